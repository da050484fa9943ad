"""The real django-q2 worker (`manage.py qcluster`) against the test database: a scheduled
decay pass and a Run now both happen, a pass killed midway (kill -9) leaves every memory
before or after and the next pass finishes the work, and `manage.py serve` (what `make run`
starts) is tested with the server in tests/test_serving.py."""

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone
from django_q.models import Schedule

from memory.models import MaintenanceRun, Memory, RunStatus
from memory.queries import maintenance_status
from memory.services.maintenance import JOBS, queue_maintenance, run_maintenance
from memory.services.maintenance_schedules import ensure_schedules
from tenancy.access import Access
from tests.servers import database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

BASE_DIR = Path(settings.BASE_DIR)
WEEK = timedelta(days=7)
# Scheduler's first pass comes about 30 s after the cluster starts (PLATFORM.md).
SCHEDULER_WAIT_SECS = 120


@pytest.fixture
def start_worker(tmp_path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "worker.log"

    def start(**env: str) -> subprocess.Popen[bytes]:
        environment = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "DEWEE_WORKERS": "1",
            "DEWEE_Q_SYNC": "0",
            **env,
        }
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=BASE_DIR,
            env=environment,
            start_new_session=True,  # its own process group: the cluster forks workers
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        started.append(worker)
        return worker

    yield start
    if log.exists():  # shown by pytest only when the test failed
        print(log.read_text(errors="replace")[-5000:])
    for worker in started:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                # No test here depends on a graceful stop, and the cluster's can outlast
                # 20 s on a loaded machine: what has not stopped after 5 is killed.
                worker.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


def _aged(agent, count: int) -> None:
    """``count`` memories, accessed once, whose decay started two weeks ago at 0.8: an
    episodic memory then stands at 0.8 x 0.5^2 = 0.2 after a pass (half-life one week)."""
    now = timezone.now()
    Memory.objects.bulk_create(
        [
            Memory(
                agent=agent,
                content=f"note {i}",
                importance=0.8,
                decay_base=0.8,
                decay_from=now - 2 * WEEK,
                access_count=1,
                last_accessed_at=now - 2 * WEEK,
                created_at=now - 3 * WEEK,
                updated_at=now,
            )
            for i in range(count)
        ],
        batch_size=2000,
    )


def test_the_worker_runs_the_scheduled_pass_and_run_now(agent, start_worker):
    _aged(agent, 20)
    ensure_schedules()
    later = timezone.now() + timedelta(days=1)
    Schedule.objects.exclude(name=JOBS["decay"].schedule_name).update(next_run=later)
    Schedule.objects.filter(name=JOBS["decay"].schedule_name).update(next_run=timezone.now())
    start_worker()
    queue_maintenance(jobs=["expiry"])

    def finished(job: str, trigger: str) -> bool:
        return MaintenanceRun.objects.filter(
            job=job, trigger=trigger, status=RunStatus.SUCCEEDED
        ).exists()

    wait_for(lambda: finished("expiry", "manual"), 60, "the queued expiry run")
    wait_for(lambda: finished("decay", "schedule"), SCHEDULER_WAIT_SECS, "the scheduled pass")
    run = MaintenanceRun.objects.get(job="decay")
    assert run.touched == 20
    for importance in Memory.objects.filter(agent=agent).values_list("importance", flat=True):
        assert importance == pytest.approx(0.2, abs=1e-3)
    # The schedule moved on by its interval.
    schedule = Schedule.objects.get(name=JOBS["decay"].schedule_name)
    assert schedule.next_run > timezone.now() + timedelta(minutes=50)


def test_a_pass_killed_midway_leaves_each_memory_before_or_after(agent, start_worker, settings):
    # 2,000 batches (five times as many as 100,000 memories in batches of 250 make): the pass
    # lasts many heartbeats and polls, so it is caught midway even when the other suite
    # process starves this one of the CPU (at 400 batches it once ended first).
    total = 20_000
    _aged(agent, total)
    memories = Memory.objects.filter(agent=agent)
    worker = start_worker(DEWEE_DECAY_BATCH_SIZE="10", DEWEE_RUN_HEARTBEAT_SECS="0.2")
    queue_maintenance(jobs=["decay"])
    wait_for(lambda: memories.filter(importance__lt=0.5).exists(), 60, "the first batch")
    beating = MaintenanceRun.objects.filter(job="decay", heartbeat_at__isnull=False)
    wait_for(beating.exists, 30, "the run's heartbeat")
    # Hold the rows (PostgreSQL) or the write lock (SQLite) so the pass cannot move on, then
    # kill the whole cluster without warning.
    for attempt in range(5):
        try:
            with transaction.atomic():
                if connection.vendor == "postgresql":
                    list(memories.select_for_update().values_list("pk", flat=True))
                else:
                    Memory.objects.filter(pk=-1).update(importance=0)  # takes the write lock
                done = memories.filter(importance__lt=0.5).count()
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
            break
        except OperationalError:
            # On a loaded machine the deadlock detector may pick this transaction before
            # the batch's lock timeout gives way; take the rows again.
            if attempt == 4:
                raise
    assert 0 < done < total, "the pass was not caught midway"
    values = set(memories.values_list("importance", flat=True))
    assert {round(v, 3) for v in values} == {0.8, 0.2}
    assert memories.filter(importance__lt=0.5).count() == done

    # Its heartbeat stopped with it: within the stale time it shows as interrupted, and the
    # next run records it so and runs.
    settings.DEWEE_RUN_STALE_SECS = 2
    killed = MaintenanceRun.objects.get(job="decay")
    wait_for(lambda: _shown_status(killed.pk) == "interrupted", 10, "the run to show interrupted")
    run, _ = run_maintenance(job="decay", trigger="cli")
    assert MaintenanceRun.objects.get(pk=killed.pk).status == RunStatus.INTERRUPTED
    assert run.status == RunStatus.SUCCEEDED
    assert run.touched >= total - done
    assert not memories.filter(importance__gt=0.201).exists()


def _shown_status(run_pk: int) -> str:
    jobs = maintenance_status(access=Access(actor="test", workspace=None))
    return next(r["status"] for job in jobs for r in job["last_runs"] if r["id"] == run_pk)
