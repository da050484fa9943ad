"""The Maintenance page: operators see each job's runs and schedule, run one now, and chart
an agent's importance over time; workspace members never reach it."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from memory.models import ImportanceSnapshot, MaintenanceRun
from memory.services.maintenance_schedules import ensure_schedules

pytestmark = pytest.mark.django_db

URL = "/dashboard/memory/maintenance/"


def test_operators_see_every_job_with_its_last_run_and_next_run(staff_client, agent):
    ensure_schedules()
    now = timezone.now()
    MaintenanceRun.objects.create(
        job="decay",
        status="succeeded",
        started_at=now - timedelta(minutes=5),
        finished_at=now - timedelta(minutes=5),
        duration_ms=1234,
        touched=4321,
        counts={"changed": 4321},
    )
    page = staff_client.get(URL).content.decode()
    for job in ["decay", "expiry", "idle_sessions", "dedup", "consolidate"]:
        assert f'id="job-{job}"' in page
    assert "1234 ms" in page
    assert "4321" in page
    assert "1 hour" in page  # the decay interval
    assert page.count(">Run now</button>") == 6


def test_the_jobs_table_alone_for_htmx(staff_client, agent, django_assert_max_num_queries):
    # It refreshes itself every 10 s while the page is open: the jobs, their runs and the
    # jobs waiting for the worker only.
    with django_assert_max_num_queries(10):
        response = staff_client.get(URL, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="jobs"')
    assert "<html" not in body
    assert "HX-Request" in response["Vary"]


def test_run_now_hands_the_job_to_the_worker(staff_client):
    response = staff_client.post(f"{URL}run/", {"job": "decay"})
    assert response.status_code == 302
    (task,) = [SignedPackage.loads(t.payload) for t in OrmQ.objects.all()]
    assert task["args"] == ("decay",)
    page = staff_client.get(response["Location"]).content.decode()
    assert page.count("Decay queued: the worker runs it in a moment.") == 1
    assert page.count(">queued</span>") == 1  # and its row says so, while it waits

    response = staff_client.post(f"{URL}run/", {"job": "dedup"}, headers={"HX-Request": "true"})
    assert response.content.decode().lstrip().startswith('<tr id="job-dedup"')
    assert OrmQ.objects.count() == 2


def test_run_now_on_the_dashboard_says_when_the_job_was_already_queued(staff_client):
    first = staff_client.post(f"{URL}run/", {"job": "decay"})
    assert "queued: the worker runs it" in staff_client.get(first["Location"]).content.decode()
    again = staff_client.post(f"{URL}run/", {"job": "decay"})
    page = staff_client.get(again["Location"]).content.decode()
    assert "already queued and has not started yet" in page
    assert OrmQ.objects.count() == 1


def test_run_now_refuses_an_unknown_job(staff_client):
    assert staff_client.post(f"{URL}run/", {"job": "vacuum"}).status_code == 400
    assert not OrmQ.objects.exists()


def test_the_chart_draws_each_pass_of_the_chosen_agent(staff_client, agent):
    now = timezone.now()
    for hours, buckets in [
        (2, [0, 0, 0, 0, 0, 0, 0, 2, 2, 0]),
        (1, [0, 0, 0, 1, 3, 0, 0, 0, 0, 0]),
    ]:
        ImportanceSnapshot.objects.create(
            agent=agent,
            taken_at=now - timedelta(hours=hours),
            buckets=buckets,
            total=4,
            mean=0.5,
        )
    page = staff_client.get(URL, {"agent": agent.agent_id}).content.decode()
    assert page.count("<rect ") == 4  # two bands in each of the two passes
    assert 'class="band-8"' in page
    assert 'height="120.0"' in page  # 3 of 4 memories in 0.4-0.5, of a 160 px column
    assert "4 memories" in page


def test_an_agent_without_passes_gets_a_hint(staff_client, agent):
    page = staff_client.get(URL, {"agent": agent.agent_id}).content.decode()
    assert "No decay pass has measured" in page


def test_members_never_reach_the_maintenance_page(manager_client, viewer_client):
    for client in (manager_client, viewer_client):
        assert client.get("/app/memory/maintenance/").status_code == 403
        assert client.post("/app/memory/maintenance/run/", {"job": "decay"}).status_code == 403
    assert not OrmQ.objects.exists()
