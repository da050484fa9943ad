"""The rough edges of a first walk through the dashboard: an htmx request after the session
expired, the error pages, times with their zone, the breadcrumb back to a filtered list, the
favicon, Run now in place, and the decay preview's wording."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.utils import timezone
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from dewee.cli import main
from facts.models import Fact
from memory.models import MaintenanceRun
from memory.tasks import run_job
from tests.dashboard.conftest import app
from tests.factories import state
from tests.memory.test_decay import aged

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def test_an_htmx_request_after_sign_out_redirects_the_page_to_sign_in(client: Client, agent):
    fact = state(agent, "Acme").fact
    page = "http://testserver/dashboard/facts/?user=u1"
    response = client.post(
        f"/dashboard/facts/{fact.id}/delete/",
        {"reason": "stale"},
        headers={**HTMX, "HX-Current-URL": page},
    )
    # htmx follows a 302 itself and would swap the sign-in page into the row: the browser
    # is told to go there instead, with nothing to swap.
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=/dashboard/facts/%3Fuser%3Du1"
    assert response.content == b""


def test_an_htmx_request_from_another_site_is_not_sent_back_there(client: Client):
    response = client.get(
        "/dashboard/facts/", headers={**HTMX, "HX-Current-URL": "https://evil.example/x"}
    )
    assert response["HX-Redirect"] == "/accounts/login/"


def test_a_plain_request_after_sign_out_is_still_a_redirect(client: Client):
    response = client.get("/dashboard/facts/")
    assert (response.status_code, response["Location"]) == (
        302,
        "/accounts/login/?next=/dashboard/facts/",
    )
    assert "HX-Redirect" not in response


def test_the_404_page_has_the_layout_and_a_way_back(manager_client, other_agent):
    other = state(other_agent, "Globex").fact
    for url in (app(f"/dashboard/facts/{other.id}/"), "/app/facts/999999/", "/nowhere/"):
        response = manager_client.get(url)
        assert response.status_code == 404
        assert 'class="site-header"' in response.text
        assert "Page not found" in response.text
        assert 'href="/"' in response.text
    # Another workspace's fact and a missing one read the same.
    assert manager_client.get(app(f"/dashboard/facts/{other.id}/")).text == manager_client.get(
        "/app/facts/999999/"
    ).text.replace("999999", str(other.id))


def test_the_viewers_403_says_what_they_may_not_do(viewer_client, agent):
    fact = state(agent, "Acme").fact
    response = viewer_client.post(app(f"/dashboard/facts/{fact.id}/delete/"), {"reason": "x"})
    assert response.status_code == 403
    assert 'class="site-header"' in response.text
    assert "Viewers may read but not change anything." in response.text
    assert 'href="/"' in response.text


def test_api_errors_stay_json(client: Client):
    response = client.get("/v1/nowhere")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def _at_noon_utc(fact) -> None:
    Fact.objects.filter(pk=fact.pk).update(recorded_at=datetime(2026, 1, 15, 12, 0, 5, tzinfo=UTC))


def test_times_show_seconds_and_the_viewers_zone_with_utc_on_hover(staff_client, agent):
    fact = state(agent, "Acme").fact
    _at_noon_utc(fact)
    staff_client.cookies["tz"] = "Europe/Paris"
    page = staff_client.get(f"/dashboard/facts/{fact.id}/").text
    assert (
        '<time datetime="2026-01-15T12:00:05Z" title="2026-01-15 12:00:05 UTC">'
        "2026-01-15 13:00:05 CET</time>"
    ) in page
    listing = staff_client.get("/dashboard/facts/", {"agent": "acme/support-bot"}).text
    assert "2026-01-15 13:00:05 CET</time>" in listing


@pytest.mark.parametrize("cookie", ["", "Mars/Olympus", "../../etc/passwd", "America", "x" * 300])
def test_without_a_known_zone_times_are_in_the_servers_zone(staff_client, agent, cookie):
    fact = state(agent, "Acme").fact
    _at_noon_utc(fact)
    staff_client.cookies["tz"] = cookie
    page = staff_client.get(f"/dashboard/facts/{fact.id}/").text
    assert 'title="2026-01-15 12:00:05 UTC">2026-01-15 12:00:05 UTC</time>' in page


def test_the_as_of_filter_reads_the_viewers_zone_unless_told_another(staff_client, agent):
    state(agent, "Acme")
    staff_client.cookies["tz"] = "America/New_York"
    params = {"agent": "acme/support-bot"}
    response = staff_client.get("/dashboard/facts/", {**params, "as_of": "2026-01-15T12:00"})
    assert response.context["form"].cleaned_data["as_of"] == datetime(2026, 1, 15, 17, tzinfo=UTC)
    assert 'value="2026-01-15T12:00"' in response.text  # as typed: the viewer's zone
    assert "2026-01-15 12:00:00 EST</time>" in response.text
    for typed in ("2026-01-15 12:00 UTC", "2026-01-15T12:00Z", "2026-01-15 07:00:00 EST"):
        given = staff_client.get("/dashboard/facts/", {**params, "as_of": typed})
        assert given.context["form"].cleaned_data["as_of"] == datetime(2026, 1, 15, 12, tzinfo=UTC)
    wrong_zone = staff_client.get("/dashboard/facts/", {**params, "as_of": "2026-01-15 12:00 JST"})
    assert "as_of" in wrong_zone.context["form"].errors
    # Outside the years 1 to 9999 in UTC: told, never a server error.
    for edge in ("0001-01-01 00:00+14:00", "9999-12-31 23:59-12:00"):
        response = staff_client.get("/dashboard/facts/", {**params, "as_of": edge})
        assert response.status_code == 200
        assert "as_of" in response.context["form"].errors


def test_the_favicon_is_linked_and_answers_at_favicon_ico(client: Client, staff_client):
    page = staff_client.get("/dashboard/facts/").text
    assert '<link rel="icon" href="/static/dewee/favicon.svg" type="image/svg+xml">' in page
    assert 'rel="icon"' in client.get("/nowhere/").text
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (302, "/static/dewee/favicon.svg")
    icon = finders.find("dewee/favicon.svg")
    assert icon is not None
    assert Path(icon).read_text().startswith("<svg")


def test_the_breadcrumb_returns_to_the_filtered_list(staff_client, agent):
    fact = state(agent, "Acme").fact
    listing = staff_client.get(
        "/dashboard/facts/", {"user": "u1", "predicate": "employer", "agent": "support-bot"}
    )
    back_query = "user%3Du1%26predicate%3Demployer%26agent%3Dacme%252Fsupport-bot"
    link = f"/dashboard/facts/{fact.id}/?back={back_query}"
    assert f'href="{link}"' in listing.text
    page = staff_client.get(link).text
    back = "/dashboard/facts/?user=u1&amp;predicate=employer&amp;agent=acme%2Fsupport-bot"
    assert f'<a href="{back}">← Facts of support-bot</a>' in page
    # From the list of every agent, back to that list with its filters.
    everyone = staff_client.get("/dashboard/facts/", {"user": "u1"})
    link = f"/dashboard/facts/{fact.id}/?back=user%3Du1"
    assert f'href="{link}"' in everyone.text
    page = staff_client.get(link).text
    assert '<a href="/dashboard/facts/?user=u1">← Facts of all agents</a>' in page


def test_the_breadcrumb_only_ever_leads_to_the_facts_list_of_the_facts_agent(manager_client, agent):
    fact = state(agent, "Acme").fact
    url = app(f"/dashboard/facts/{fact.id}/")
    for back in ("agent=globex-bot&user=u2", "https://evil.example/", "user=u1&" * 400):
        page = manager_client.get(url, {"back": back}).text
        crumb = page.split('class="breadcrumb"><a href="', 1)[1].split('"', 1)[0]
        assert crumb.startswith("/app/facts/?")
        assert "agent=support-bot" in crumb.split("?", 1)[1].split("&amp;")
        assert "globex" not in crumb
        assert "evil" not in crumb
        assert len(crumb) < 100


MAINTENANCE = "/dashboard/memory/maintenance/"


def test_run_now_follows_the_run_in_its_row_until_it_is_done(staff_client, agent):
    response = staff_client.post(f"{MAINTENANCE}run/", {"job": "expiry"}, headers=HTMX)
    row = response.content.decode()
    # Its row, at once, queued, and asking again every second.
    assert row.lstrip().startswith(
        '<tr id="job-expiry" hx-get="/dashboard/memory/maintenance/jobs/expiry/"'
    )
    assert 'hx-trigger="every 1s"' in row
    assert "waiting for the worker" in row
    again = staff_client.post(f"{MAINTENANCE}run/", {"job": "expiry"}, headers=HTMX)
    assert "already," in again.content.decode()

    # What the worker does: it starts the run (still followed), then finishes it.
    (task,) = [SignedPackage.loads(t.payload) for t in OrmQ.objects.all()]
    run_job(*task["args"], **task["kwargs"])
    done = staff_client.get(f"{MAINTENANCE}jobs/expiry/", headers=HTMX).content.decode()
    assert "succeeded" in done
    assert "manual" in done
    assert "waiting for the worker" not in done
    assert "hx-trigger" not in done  # done: it stops asking


def test_a_running_run_is_followed_with_its_time_so_far(staff_client, agent):
    MaintenanceRun.objects.create(job="decay", status="running", started_at=timezone.now())
    row = staff_client.get(f"{MAINTENANCE}jobs/decay/", headers=HTMX).content.decode()
    assert 'hx-trigger="every 1s"' in row
    assert "running for" in row


def test_the_job_row_is_for_operators_and_known_jobs(staff_client, manager_client):
    assert staff_client.get(f"{MAINTENANCE}jobs/vacuum/").status_code == 404
    response = manager_client.get(app(f"{MAINTENANCE}jobs/decay/"))
    assert response.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_decay_dry_run_reads_as_a_preview_wherever_it_shows(capsys, staff_client, agent):
    aged(agent, base=0.9, hours=168, start=timezone.now())
    assert main(["memory", "decay", "--agent", "support-bot", "--dry-run"]) == 0
    preview = capsys.readouterr().out.splitlines()[0]
    assert preview.startswith("Dry run, nothing written: would change the importance of 1 of 1")
    assert main(["memory", "autopilot", "status"]) == 0
    (decay,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("decay")]
    assert "succeeded, dry run" in decay
    assert decay.endswith("would touch 1")
    row = staff_client.get(f"{MAINTENANCE}jobs/decay/").content.decode()
    assert "would touch 1" in row
    assert "dry run" in row
