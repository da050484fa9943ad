"""One run of a maintenance job at a time, across worker processes and hosts: a run that
finds its job under way (the lease held by another connection, as another worker's would
be) records nothing and says so; other jobs are not held up; the lease is let go at the end."""

import threading

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.utils import timezone

from dewee.cli import main
from memory.exceptions import JobAlreadyRunning
from memory.maintenance.job_leases import job_lease
from memory.models import MaintenanceRun, QueuedJob
from memory.services.maintenance import run_maintenance
from memory.tasks import run_job

pytestmark = pytest.mark.django_db(transaction=True)


class Holder(threading.Thread):
    """Another worker: holds ``job``'s lease on a connection of its own until told to stop."""

    def __init__(self, job: str) -> None:
        super().__init__(daemon=True)
        self.job = job
        self.holding = threading.Event()
        self.release = threading.Event()
        self.held: bool | None = None

    def run(self) -> None:
        try:
            with job_lease(self.job) as held:
                self.held = held
                self.holding.set()
                self.release.wait(30)
        finally:
            connection.close()

    def __enter__(self) -> "Holder":
        self.start()
        assert self.holding.wait(10)
        assert self.held is True
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.join(10)


def test_a_second_run_of_a_job_under_way_records_nothing(agent):
    with Holder("decay"):
        with pytest.raises(JobAlreadyRunning, match="decay run is under way") as refused:
            run_maintenance(job="decay", trigger="cli")
        assert refused.value.code == "job_running"
        assert refused.value.status == 409
        assert not MaintenanceRun.objects.filter(job="decay").exists()
        # Another job is not held up by it.
        run, _ = run_maintenance(job="expiry", trigger="cli")
        assert run.status == "succeeded"
    # Let go at the end of the other run: the job runs again.
    run, _ = run_maintenance(job="decay", trigger="cli")
    assert run.status == "succeeded"
    assert MaintenanceRun.objects.filter(job="decay").count() == 1


def test_the_lease_is_let_go_after_a_run_and_after_a_failing_one(agent, settings):
    run_maintenance(job="idle_sessions", trigger="cli")
    with job_lease("idle_sessions") as held:
        assert held is True
    settings.DEWEE_DECAY_STRATEGY = "no-such-curve"
    with pytest.raises(ImproperlyConfigured, match="no-such-curve"):
        run_maintenance(job="decay", trigger="cli")
    with job_lease("decay") as held:
        assert held is True


def test_the_worker_skips_a_job_under_way_and_clears_its_request(agent):
    request = QueuedJob.objects.create(
        job="decay",
        scope=f"workspace:{agent.workspace.pk}",
        workspace=agent.workspace,
        queued_at=timezone.now(),
    )
    with Holder("decay"):
        done = run_job("decay", workspace_pk=agent.workspace.pk, queued_job_pk=request.pk)
    assert done == {"job": "decay", "skipped": "a run of it is under way"}
    assert not QueuedJob.objects.filter(pk=request.pk).exists()
    assert not MaintenanceRun.objects.filter(job="decay").exists()


def test_the_cli_says_the_job_is_under_way(agent, capsys):
    with Holder("expiry"):
        code = main(["memory", "autopilot", "trigger", "--job", "expiry"])
    assert code == 1
    assert "expiry run is under way" in capsys.readouterr().err
    assert not MaintenanceRun.objects.filter(job="expiry").exists()
