"""The worker's queue is shared by every workspace: a job already waiting for the same scope
is not queued twice, and a workspace has at most DEWEE_MAX_QUEUED_JOBS jobs waiting
(memory.services.maintenance.queue_maintenance)."""

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from dewee.cli import main
from memory.models import MaintenanceRun, QueuedJob, RunStatus
from memory.tasks import run_job
from tenancy.models import Agent
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, make_workspace
from tests.servers import database_url, wait_for

TRIGGER = "/v1/admin/autopilot/trigger"


def _tasks() -> list[dict]:
    return [SignedPackage.loads(task.payload) for task in OrmQ.objects.order_by("id")]


def _trigger(api: ApiClient, agent_id: str | None = None, jobs: list[str] | None = None):
    body: dict = {"jobs": jobs or ["dedup"]}
    if agent_id is not None:
        body["agent_id"] = agent_id
    return api.post(TRIGGER, body)


@pytest.mark.django_db
def test_a_trigger_for_a_job_already_waiting_joins_it(api, agent):
    first = _trigger(api, agent.agent_id)
    assert first.status_code == 202
    assert first.json()["queued"][0]["coalesced"] is False
    again = _trigger(api, agent.agent_id)
    assert again.status_code == 202
    (joined,) = again.json()["queued"]
    assert joined["coalesced"] is True
    assert joined["task_id"] == first.json()["queued"][0]["task_id"]
    assert joined["queued_at"] == first.json()["queued"][0]["queued_at"]
    assert "Already queued" in again.json()["message"]
    assert len(_tasks()) == 1

    # The workspace's agents are another scope; an agent's job is queued for that agent.
    assert _trigger(api).json()["queued"][0]["coalesced"] is False
    assert len(_tasks()) == 2

    # Once the worker starts it, the job is no longer waiting: a new trigger queues it again.
    task = _tasks()[0]
    run_job(*task["args"], **task["kwargs"])
    assert MaintenanceRun.objects.filter(job="dedup", agent=agent).exists()
    after = _trigger(api, agent.agent_id)
    assert after.json()["queued"][0]["coalesced"] is False
    assert len(_tasks()) == 3


@pytest.mark.django_db
def test_a_workspace_past_its_cap_gets_429_and_queues_nothing(api, workspace, other_api, settings):
    settings.DEWEE_MAX_QUEUED_JOBS = 3
    agents = [make_agent(workspace, f"bot-{n}") for n in range(5)]
    for agent in agents[:3]:
        assert _trigger(api, agent.agent_id).status_code == 202

    refused = _trigger(api, agents[3].agent_id)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_jobs"
    assert refused.json()["error"]["details"] == {"waiting": 3, "limit": 3, "asked": 1}
    assert "at most 3" in refused.json()["error"]["message"]
    assert int(refused["Retry-After"]) > 0
    assert len(_tasks()) == 3
    assert QueuedJob.objects.count() == 3

    # Joining a job that waits takes no new place; another workspace has its own share.
    assert _trigger(api, agents[0].agent_id).json()["queued"][0]["coalesced"] is True
    make_agent(make_workspace("globex-2"), "elsewhere")
    assert _trigger(other_api, None).status_code == 202

    # Once one has started, there is room for one: a trigger of two is refused whole.
    task = next(t for t in _tasks() if t["kwargs"].get("agent_pk") == agents[0].pk)
    run_job(*task["args"], **task["kwargs"])
    both = _trigger(api, agents[3].agent_id, ["dedup", "consolidate"])
    assert both.status_code == 429
    assert not QueuedJob.objects.filter(agent=agents[3]).exists()
    assert _trigger(api, agents[3].agent_id).status_code == 202


@pytest.mark.django_db
def test_a_job_that_never_started_stops_counting_after_the_stale_time(api, agent, settings):
    settings.DEWEE_MAX_QUEUED_JOBS = 1
    assert _trigger(api, agent.agent_id).status_code == 202
    lost = timezone.now() - timedelta(seconds=settings.DEWEE_QUEUED_JOB_STALE_SECS + 1)
    QueuedJob.objects.update(queued_at=lost)
    again = _trigger(api, agent.agent_id)
    assert again.status_code == 202
    assert again.json()["queued"][0]["coalesced"] is False
    assert QueuedJob.objects.get().queued_at > lost


@pytest.mark.django_db(transaction=True)
def test_20_triggers_at_once_never_pass_the_cap(settings):
    settings.DEWEE_MAX_QUEUED_JOBS = 5
    workspace = make_workspace("crowded")
    key = make_key(workspace)
    agents = [make_agent(workspace, f"bot-{n}") for n in range(20)]
    barrier = threading.Barrier(len(agents))
    statuses: list[int] = []
    errors: list[BaseException] = []

    def trigger(agent_id: str) -> None:
        try:
            client = ApiClient(key)
            barrier.wait()
            statuses.append(_trigger(client, agent_id).status_code)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=trigger, args=(a.agent_id,)) for a in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(statuses) == [202] * 5 + [429] * 15
    assert QueuedJob.objects.filter(workspace=workspace).count() == 5
    assert len(_tasks()) == 5


@pytest.mark.django_db
def test_the_cli_says_when_the_job_was_already_queued(agent, capsys):
    assert main(["memory", "autopilot", "trigger", "--queue", "--job", "decay"]) == 0
    assert "queued decay" in capsys.readouterr().out
    assert main(["memory", "autopilot", "trigger", "--queue", "--job", "decay"]) == 0
    assert "decay was already queued" in capsys.readouterr().out
    assert len(_tasks()) == 1


def _taken_by_a_worker_that_died(seconds_ago: float) -> QueuedJob:
    """What a worker leaves that took the waiting job and died before its run started: the
    broker's task taken (locked until its retry time, as a worker's pusher leaves it), the
    ledger row marked taken ``seconds_ago``, and no run."""
    assert get_broker().dequeue(), "the queued task"
    row = QueuedJob.objects.get()
    QueuedJob.objects.filter(pk=row.pk).update(
        taken_at=timezone.now() - timedelta(seconds=seconds_ago)
    )
    assert not MaintenanceRun.objects.exists()
    return row


@pytest.mark.django_db
def test_a_job_taken_by_a_worker_that_died_before_starting_it_does_not_block_a_trigger(
    api, agent, settings
):
    settings.DEWEE_MAX_QUEUED_JOBS = 1
    first = _trigger(api, agent.agent_id)
    assert first.status_code == 202
    # Taken a moment longer ago than a run may go without a heartbeat; queued far less long
    # ago than a job that was never taken is given.
    _taken_by_a_worker_that_died(settings.DEWEE_RUN_STALE_SECS + 1)

    again = _trigger(api, agent.agent_id)
    assert again.status_code == 202
    (queued,) = again.json()["queued"]
    assert queued["coalesced"] is False
    assert queued["task_id"] != first.json()["queued"][0]["task_id"]
    assert QueuedJob.objects.get().taken_at is None
    # The new task is the one waiting in the broker's queue: the worker takes and runs it.
    (waiting,) = [
        SignedPackage.loads(task.payload) for task in OrmQ.objects.filter(lock__lte=timezone.now())
    ]
    assert waiting["id"] == queued["task_id"]
    run_job(*waiting["args"], **waiting["kwargs"])
    run = MaintenanceRun.objects.get(job="dedup", agent=agent)
    assert (run.trigger, run.status) == ("manual", RunStatus.SUCCEEDED)
    assert not QueuedJob.objects.exists()


@pytest.mark.django_db
def test_a_job_a_worker_took_a_moment_ago_still_holds_its_place(api, agent, settings):
    settings.DEWEE_MAX_QUEUED_JOBS = 1
    first = _trigger(api, agent.agent_id)
    # Within the time a run may go without a heartbeat, its worker is taken to be starting it.
    row = _taken_by_a_worker_that_died(settings.DEWEE_RUN_STALE_SECS - 5)

    again = _trigger(api, agent.agent_id)
    assert again.status_code == 202
    assert again.json()["queued"][0]["coalesced"] is True
    assert again.json()["queued"][0]["task_id"] == first.json()["queued"][0]["task_id"]
    assert QueuedJob.objects.get().pk == row.pk
    # It still counts against the workspace's cap too.
    other = make_agent(agent.workspace, "other-bot")
    assert _trigger(api, other.agent_id).status_code == 429
    assert len(_tasks()) == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="freezes the job with a table lock of PostgreSQL"
)
def test_a_worker_killed_between_taking_the_job_and_starting_it_blocks_no_trigger(
    agent, settings, tmp_path
):
    """A real death: the broker's task is taken as a worker's pusher takes it, and the job
    (memory.tasks.run_job, what the worker runs) is started in a process of its own, with
    the agents' table locked by the test (LOCK TABLE ... ACCESS EXCLUSIVE), so that it stops
    at its first read of the agent, before its run starts. Once it is seen waiting for that
    lock (pg_blocking_pids), it is killed with SIGKILL and the lock released. A trigger at
    once still joins the job (its worker may be starting it); one after the heartbeat
    rule's stale time (shortened here) queues it anew, and that one runs."""
    api = ApiClient(make_key(agent.workspace))
    first = _trigger(api, agent.agent_id)
    assert first.status_code == 202
    ((_, payload),) = get_broker().dequeue()
    task = SignedPackage.loads(payload)
    holding, release = threading.Event(), threading.Event()
    holder: list[int] = []

    def hold_the_agents() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                holder.append(int(cursor.fetchone()[0]))
                table = connection.ops.quote_name(Agent._meta.db_table)
                cursor.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
                holding.set()
                release.wait(60)
        finally:
            connection.close()

    def waiting_for_the_lock() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
                holder,
            )
            return int(cursor.fetchone()[0]) > 0

    locker = threading.Thread(target=hold_the_agents)
    locker.start()
    job = None
    try:
        assert holding.wait(20)
        job = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "shell",
                "-c",
                "from memory.tasks import run_job; "
                f"run_job(*{task['args']!r}, **{task['kwargs']!r})",
            ],
            cwd=settings.BASE_DIR,
            env={**os.environ, "DATABASE_URL": database_url()},
            stdout=(tmp_path / "job.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_for(waiting_for_the_lock, 60, "the job to stop at the agents' lock")
        job.send_signal(signal.SIGKILL)
        job.wait(10)
    finally:
        if job is not None and job.poll() is None:
            job.kill()
            job.wait(10)
        release.set()
        locker.join(30)
    assert not MaintenanceRun.objects.exists()

    joined = _trigger(api, agent.agent_id).json()["queued"][0]
    assert joined["coalesced"] is True
    settings.DEWEE_RUN_STALE_SECS = 0.5
    time.sleep(0.6)
    again = _trigger(api, agent.agent_id)
    assert again.status_code == 202
    (queued,) = again.json()["queued"]
    assert queued["coalesced"] is False
    ((_, payload),) = get_broker().dequeue()
    task = SignedPackage.loads(payload)
    assert task["id"] == queued["task_id"]
    run_job(*task["args"], **task["kwargs"])
    run = MaintenanceRun.objects.get(job="dedup", agent=agent)
    assert (run.trigger, run.status) == ("manual", RunStatus.SUCCEEDED)
    assert not QueuedJob.objects.exists()
