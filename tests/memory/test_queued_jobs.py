"""The worker's queue is shared by every workspace: a job already waiting for the same scope
is not queued twice, and a workspace has at most DEWEE_MAX_QUEUED_JOBS jobs waiting
(memory.services.maintenance.queue_maintenance)."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from dewee.cli import main
from memory.models import MaintenanceRun, QueuedJob
from memory.tasks import run_job
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, make_workspace

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
