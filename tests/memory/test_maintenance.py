"""Maintenance bookkeeping: schedules follow the settings, every run is recorded, and the
status and trigger endpoints show a workspace only its own share."""

import json
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from django_q.models import OrmQ, Schedule
from django_q.signing import SignedPackage

from dewee.cli import main
from memory.models import MaintenanceRun, Memory, RunStatus, RunTrigger
from memory.services.maintenance import JOBS, run_maintenance
from memory.services.maintenance_schedules import ensure_schedules
from memory.tasks import run_job

pytestmark = pytest.mark.django_db


def _queued() -> list[dict]:
    return [SignedPackage.loads(task.payload) for task in OrmQ.objects.order_by("id")]


def _old_memory(agent, importance: float = 0.8) -> Memory:
    now = timezone.now()
    return Memory.objects.create(
        agent=agent,
        content="the office moved to the harbour",
        importance=importance,
        decay_base=importance,
        decay_from=now - timedelta(days=14),
        access_count=1,
        created_at=now - timedelta(days=20),
        updated_at=now,
    )


def test_schedules_are_created_once_and_follow_the_settings(settings):
    # The six jobs, the worker's heartbeat and the storage compaction.
    assert len(ensure_schedules()) == 8
    assert ensure_schedules() == []
    beat = Schedule.objects.get(name="dewee:heartbeat")
    assert (beat.func, beat.minutes) == ("memory.tasks.worker_heartbeat", 1)
    decay = Schedule.objects.get(name="dewee:decay")
    assert (decay.func, decay.args, decay.minutes) == ("memory.tasks.run_job", "'decay'", 60)
    assert Schedule.objects.get(name="dewee:dedup").minutes == 360
    assert Schedule.objects.get(name="dewee:consolidate").minutes == 720

    settings.DEWEE_DECAY_INTERVAL_SECS = 600
    assert ensure_schedules() == ["decay: every 10 min (changed)"]
    decay.refresh_from_db()
    assert decay.minutes == 10
    assert decay.next_run is not None
    assert decay.next_run <= timezone.now() + timedelta(minutes=10)

    settings.DEWEE_AUTOPILOT_ENABLED = False
    ensure_schedules()
    assert set(Schedule.objects.values_list("name", flat=True)) == {
        "dewee:heartbeat",
        "dewee:decay",
        "dewee:expiry",
        "dewee:idle_sessions",
        "dewee:fact_freshness",
        "dewee:compaction",
    }


def test_a_run_is_recorded_with_what_it_did(agent):
    _old_memory(agent)
    run, _ = run_maintenance(job="decay", agent=agent, trigger="cli")
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.touched == 1
    assert run.finished_at is not None
    assert run.finished_at >= run.started_at
    assert run.duration_ms is not None
    assert run.by_workspace[str(agent.workspace_id)]["touched"] == 1


def test_a_failing_run_is_recorded_as_failed(agent, settings):
    settings.DEWEE_DECAY_STRATEGY = "no-such-curve"
    with pytest.raises(ImproperlyConfigured, match="no-such-curve"):
        run_maintenance(job="decay", agent=agent)
    run = MaintenanceRun.objects.get()
    assert run.status == RunStatus.FAILED
    assert run.error.startswith("ImproperlyConfigured:")
    assert run.finished_at is not None


def test_a_run_left_running_by_a_dead_worker_is_marked_interrupted(agent):
    now = timezone.now()
    # Silent for a minute (no heartbeat), and one that never beat since it started.
    silent = MaintenanceRun.objects.create(
        job="decay", started_at=now - timedelta(hours=2), heartbeat_at=now - timedelta(minutes=1)
    )
    never = MaintenanceRun.objects.create(job="expiry", started_at=now - timedelta(minutes=2))
    alive = MaintenanceRun.objects.create(
        job="dedup", started_at=now - timedelta(hours=2), heartbeat_at=now
    )
    run_maintenance(job="decay")
    for run in (silent, never):
        run.refresh_from_db()
        assert run.status == RunStatus.INTERRUPTED
        assert "interrupted" in run.error
    alive.refresh_from_db()
    assert alive.status == RunStatus.RUNNING


def test_status_shows_each_job_and_only_this_workspaces_share(api, agent, other_agent):
    ensure_schedules()
    _old_memory(agent)
    _old_memory(other_agent)
    _old_memory(other_agent)
    run_maintenance(job="decay")
    run_maintenance(job="decay", agent=other_agent)  # another workspace's own run

    response = api.get("/v1/admin/autopilot/status")
    assert response.status_code == 200
    jobs = {job["job"]: job for job in response.json()["jobs"]}
    assert set(jobs) == set(JOBS)
    assert jobs["dedup"]["autopilot"]
    assert not jobs["decay"]["autopilot"]
    assert jobs["decay"]["next_run"] is not None
    runs = jobs["decay"]["last_runs"]
    assert len(runs) == 1  # the other workspace's own run is not shown
    assert runs[0]["touched"] == 1  # its share of the run over every workspace, not 3


def test_trigger_queues_the_autopilot_jobs_for_this_workspace(api, agent, workspace):
    response = api.post("/v1/admin/autopilot/trigger", {})
    assert response.status_code == 202
    assert [q["job"] for q in response.json()["queued"]] == ["dedup", "consolidate"]
    tasks = _queued()
    assert [t["args"] for t in tasks] == [("dedup",), ("consolidate",)]
    assert all(t["func"] == "memory.tasks.run_job" for t in tasks)
    assert tasks[0]["kwargs"]["workspace_pk"] == workspace.pk

    # What the worker then runs: one recorded run per job, limited to this workspace.
    run_job(*tasks[0]["args"], **tasks[0]["kwargs"])
    run = MaintenanceRun.objects.get(job="dedup")
    assert (run.trigger, run.workspace_id, run.status) == ("manual", workspace.pk, "succeeded")


def test_trigger_one_agent_and_named_jobs(api, agent):
    response = api.post(
        "/v1/admin/autopilot/trigger", {"jobs": ["decay"], "agent_id": agent.agent_id}
    )
    assert response.status_code == 202
    (task,) = _queued()
    assert task["args"] == ("decay",)
    assert task["kwargs"]["agent_pk"] == agent.pk


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"jobs": ["vacuum"]}, 400, "invalid_input"),
        ({"jobs": "decay"}, 400, "invalid_input"),
        ({"agent_id": "nobody"}, 404, "agent_not_found"),
        ({"surprise": 1}, 400, "invalid_input"),
    ],
)
def test_trigger_refuses_bad_input_and_queues_nothing(api, agent, body, status, code):
    response = api.post("/v1/admin/autopilot/trigger", body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert not OrmQ.objects.exists()


def test_trigger_cannot_reach_another_workspaces_agent(api, other_agent):
    response = api.post("/v1/admin/autopilot/trigger", {"agent_id": other_agent.agent_id})
    assert response.status_code == 404
    assert not OrmQ.objects.exists()


def test_cli_status_and_trigger(agent, capsys):
    ensure_schedules()
    _old_memory(agent)
    assert (
        main(
            [
                "memory",
                "autopilot",
                "trigger",
                "--job",
                "decay",
                "--agent",
                agent.agent_id,
                "--json",
            ]
        )
        == 0
    )
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert (run["job"], run["touched"], run["status"]) == ("decay", 1, "succeeded")

    assert main(["memory", "autopilot", "status", "--json"]) == 0
    jobs = {job["job"]: job for job in json.loads(capsys.readouterr().out)["jobs"]}
    assert jobs["decay"]["last_runs"][0]["trigger"] == "cli"

    assert main(["memory", "autopilot", "trigger", "--queue"]) == 0
    assert "queued dedup" in capsys.readouterr().out
    assert [t["args"] for t in _queued()] == [("dedup",), ("consolidate",)]


def test_runs_and_feedback_are_listed_read_only_in_the_admin(admin_client, agent):
    _old_memory(agent)
    run_maintenance(job="decay")
    page = admin_client.get("/admin/memory/maintenancerun/")
    assert page.status_code == 200
    assert "decay" in page.content.decode()
    assert admin_client.get("/admin/memory/maintenancerun/add/").status_code == 403
    assert admin_client.get("/admin/memory/memoryfeedback/").status_code == 200


def test_a_runs_trigger_is_one_of_the_choices_the_code_writes(api, agent, capsys):
    field = MaintenanceRun._meta.get_field("trigger")
    assert field.choices == RunTrigger.choices
    assert set(RunTrigger.values) == {"schedule", "manual", "cli"}
    run_job("expiry")
    api.post("/v1/admin/autopilot/trigger", {"jobs": ["decay"], "agent_id": agent.agent_id})
    (task,) = _queued()
    run_job(*task["args"], **task["kwargs"])
    assert main(["memory", "autopilot", "trigger", "--job", "dedup", "--agent", "support-bot"]) == 0
    runs = MaintenanceRun.objects.order_by("id")
    assert [run.trigger for run in runs] == ["schedule", "manual", "cli"]
    for run in runs:
        run.full_clean()  # each is one of the field's choices
