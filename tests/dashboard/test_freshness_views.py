"""The dashboard and freshness: the review queue's Needs re-confirmation section (confirm,
end, delete), the score and days left on the Facts pages, and lists as believed at a time."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, Status, Verification
from facts.services import delete_fact, resolve_fact
from tenancy.models import AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db

QUEUE = "/app/review/"
LIST = "/dashboard/facts/"
HTMX = {"HX-Request": "true"}


def aged(fact: Fact, days: float) -> Fact:
    Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=timezone.now() - timedelta(days=days))
    return refreshed(fact)


def test_stale_and_expired_facts_need_reconfirmation(manager_client, agent, other_agent):
    stale = aged(state(agent, "Acme").fact, 250)
    expired = aged(state(agent, "Paris", predicate="city").fact, 1000)
    aged(state(agent, "Python", predicate="skill").fact, 250)  # 1095-day half-life: fresh
    aged(state(other_agent, "Globex").fact, 1000)  # another workspace
    response = manager_client.get(QUEUE)
    assert [item["value"] for item in response.context["stale"]] == ["Paris", "Acme"]
    assert [item["freshness_label"] for item in response.context["stale"]] == [
        "expired",
        "stale",
    ]
    page = response.text
    assert "Needs re-confirmation" in page
    assert f"/app/review/{stale.pk}/reconfirm/" in page
    assert f"/app/review/{expired.pk}/end/" in page
    assert f"/app/facts/{expired.pk}/#delete" in page
    assert "Globex" not in page


def test_use_keeps_a_fact_out_of_the_section(manager_client, agent):
    fact = aged(state(agent, "Acme").fact, 190)
    assert len(manager_client.get(QUEUE).context["stale"]) == 1
    Fact.objects.filter(pk=fact.pk).update(access_count=20, last_accessed_at=timezone.now())
    assert manager_client.get(QUEUE).context["stale"] == []


def test_confirm_with_htmx_replaces_the_item(manager_client, agent):
    fact = aged(state(agent, "Acme").fact, 400)
    response = manager_client.post(
        f"/app/review/{fact.pk}/reconfirm/", {"reason": "checked"}, headers=HTMX
    )
    assert response.status_code == 200
    assert f'id="stale-{fact.pk}"' in response.text
    assert "Confirmed" in response.text
    assert "fresh" in response.text
    fact = refreshed(fact)
    assert fact.verification == Verification.CONFIRMED
    event = AuditEvent.objects.get(target_type="fact", target_id=str(fact.pk))
    assert (event.details["action"], event.details["reason"]) == ("reconfirm", "checked")
    assert manager_client.get(QUEUE).context["stale"] == []


def test_end_without_js_redirects_back_to_the_queue(manager_client, agent):
    fact = aged(state(agent, "Acme").fact, 400)
    response = manager_client.post(f"/app/review/{fact.pk}/end/")
    assert (response.status_code, response["Location"]) == (302, QUEUE)
    fact = refreshed(fact)
    assert fact.status == Status.HISTORY
    assert fact.valid_to is not None
    assert "Ended" in manager_client.get(QUEUE).text


def test_acting_on_a_fact_no_longer_current_says_why(manager_client, agent):
    fact = aged(state(agent, "Acme").fact, 400)
    state(agent, "Globex")
    response = manager_client.post(f"/app/review/{fact.pk}/end/", headers=HTMX)
    assert response.status_code == 200
    assert "not current" in response.text
    assert refreshed(fact).status == Status.HISTORY
    assert not AuditEvent.objects.filter(target_type="fact").exists()


def test_viewer_and_other_workspaces_cannot_act(viewer_client, manager_client, agent, other_agent):
    fact = aged(state(agent, "Acme").fact, 400)
    page = viewer_client.get(QUEUE).text
    assert "Acme" in page
    assert "/reconfirm/" not in page
    assert viewer_client.post(f"/app/review/{fact.pk}/reconfirm/").status_code == 403
    theirs = aged(state(other_agent, "Globex").fact, 400)
    assert manager_client.post(f"/app/review/{theirs.pk}/end/").status_code == 404
    assert refreshed(theirs).status == Status.CURRENT
    assert manager_client.get(f"/app/review/{fact.pk}/end/").status_code == 405


def test_facts_pages_show_score_and_days_left(staff_client, agent):
    fact = aged(state(agent, "Acme").fact, 90)
    page = staff_client.get(LIST).text
    assert "Days left" in page
    assert "0.71" in page
    detail = staff_client.get(f"/dashboard/facts/{fact.pk}/").text
    assert "stale in 90" in detail


def test_person_reads_count_no_access(staff_client, agent):
    fact = state(agent, "Acme").fact
    staff_client.get(LIST)
    staff_client.get(f"/dashboard/facts/{fact.pk}/")
    staff_client.get("/dashboard/review/")
    assert refreshed(fact).access_count == 0


def test_as_of_counts_and_labels_the_status_then(staff_client, agent):
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    Fact.objects.update(
        recorded_at=timezone.now() - timedelta(days=2),
        believed_from=None,
        last_confirmed_at=timezone.now() - timedelta(days=2),
    )
    Fact.objects.filter(value="Acme").update(believed_from=timezone.now() - timedelta(days=2))
    state(agent, "Initech", verification="confirmed")  # Acme becomes history now
    as_of = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    response = staff_client.get(LIST, {"as_of": as_of})
    rows = response.context["rows"]
    assert [(r["value"], r["status"], r["status_now"]) for r in rows] == [
        ("Globex", "disputed", "disputed"),
        ("Acme", "current", "history"),
    ]
    tabs = {value: n for value, _, n in response.context["status_tabs"]}
    assert (tabs["current"], tabs["disputed"], tabs["history"]) == (1, 1, 0)
    assert "As believed at" in response.text
    assert "now history" in response.text
    disputed_then = staff_client.get(LIST, {"as_of": as_of, "status": "disputed"}, headers=HTMX)
    assert [r["value"] for r in disputed_then.context["rows"]] == ["Globex"]


def test_valid_at_filter(staff_client, agent):
    state(agent, "Google", valid_to=timezone.now() - timedelta(days=1000))
    state(agent, "Jakarta", predicate="city")
    valid_at = timezone.now().strftime("%Y-%m-%dT%H:%M")
    response = staff_client.get(LIST, {"valid_at": valid_at})
    assert [r["value"] for r in response.context["rows"]] == ["Jakarta"]
    assert "Only facts valid at" in response.text
    bad = staff_client.get(LIST, {"valid_at": "someday"})
    assert "valid_at" in bad.context["form"].errors


def test_valid_at_filter_lists_no_refused_fact_and_no_value_replaced_before(staff_client, agent):
    state(agent, "Acme")
    state(agent, "Dropbox")  # Acme is history from now on
    resolve_fact(
        fact=state(agent, "Initech", verification="inferred").fact, action="reject", actor="x"
    )
    state(agent, "Globex", verification="inferred")  # waits for review
    delete_fact(fact=state(agent, "Lisbon", predicate="city").fact, actor="x")
    tomorrow = (timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    response = staff_client.get(LIST, {"valid_at": tomorrow})
    assert sorted(r["value"] for r in response.context["rows"]) == ["Dropbox", "Globex"]
    refused = staff_client.get(LIST, {"valid_at": tomorrow, "status": "rejected"}, headers=HTMX)
    assert refused.context["rows"] == []


def test_the_queue_shows_the_ten_longest_unconfirmed_and_more_on_request(manager_client, agent):
    for i in range(12):
        aged(state(agent, f"Acme {i}", user=f"u{i}").fact, 250 + i)
    page = manager_client.get(QUEUE)
    assert [item["value"] for item in page.context["stale"]] == [
        f"Acme {i}" for i in range(11, 1, -1)
    ]
    assert 'href="?stale=all#needs-reconfirmation"' in page.text
    everything = manager_client.get(QUEUE, {"stale": "all"})
    assert len(everything.context["stale"]) == 12
    assert "stale=all#needs-reconfirmation" not in everything.text
