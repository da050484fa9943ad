"""The dashboard's Changes page and the Restore button on a deleted fact's page: roles,
isolation, htmx fragments, defaults, bad input, and queries that stay flat."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, FactPeriod, Status
from facts.services import delete_fact, resolve_fact
from tenancy.models import AuditAction, AuditEvent
from tests.dashboard.conftest import app
from tests.factories import make_agent, refreshed, state

pytestmark = pytest.mark.django_db

CHANGES = "/dashboard/changes/"
HTMX = {"HX-Request": "true"}


def restore_url(fact: Fact, mount: str = "dashboard") -> str:
    return f"/{mount}/facts/{fact.pk}/restore/"


def deleted(agent, value="Acme", **claim):
    fact = state(agent, value, **claim).fact
    return delete_fact(fact=fact, actor="ops", reason="looked wrong")


# --- restore ---------------------------------------------------------------------------


def test_deleted_fact_page_offers_restore_to_managers_only(manager_client, viewer_client, agent):
    fact = deleted(agent)
    page = manager_client.get(app(f"/dashboard/facts/{fact.pk}/")).text
    assert "Restore fact" in page
    assert f'action="{restore_url(fact, "app")}"' in page
    assert "Restore fact" not in viewer_client.get(app(f"/dashboard/facts/{fact.pk}/")).text
    live = state(agent, "Globex").fact
    assert "Restore fact" not in manager_client.get(app(f"/dashboard/facts/{live.pk}/")).text


def test_restore_without_js_redirects_to_the_fact_with_its_outcome(manager_client, agent):
    fact = deleted(agent)
    response = manager_client.post(
        restore_url(fact, "app"), {"confirm": "on", "reason": "was right"}
    )
    assert (response.status_code, response["Location"]) == (302, f"/app/facts/{fact.pk}/")
    assert refreshed(fact).status == Status.CURRENT
    page = manager_client.get(response["Location"]).text
    assert "it is the current value again" in page
    event = AuditEvent.objects.get(action=AuditAction.FACT_RESTORE)
    assert (event.actor, event.details["reason"]) == ("operator:mia", "was right")


def test_restore_with_htmx_returns_the_detail_fragment(staff_client, agent):
    fact = deleted(agent, verification="inferred")
    state(agent, "Globex", verification="confirmed")
    response = staff_client.post(restore_url(fact), {"confirm": "on"}, headers=HTMX)
    assert response.status_code == 200
    assert 'id="fact-detail"' in response.text
    assert "<html" not in response.text
    assert "waits for review" in response.text
    assert refreshed(fact).status == Status.DISPUTED


def test_restore_needs_the_box_ticked_and_writes_nothing_without(manager_client, agent):
    fact = deleted(agent)
    response = manager_client.post(restore_url(fact, "app"), {"reason": "oops"})
    assert response.status_code == 200
    assert "Tick the box to confirm the restore." in response.text
    assert refreshed(fact).status == Status.DELETED
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).exists()


def test_restore_of_a_fact_not_deleted_says_so(manager_client, agent):
    fact = state(agent, "Acme").fact
    response = manager_client.post(restore_url(fact, "app"), {"confirm": "on"}, follow=True)
    assert "is current, not deleted" in response.text
    assert refreshed(fact).restored_at is None


def test_viewer_may_not_restore(viewer_client, agent):
    fact = deleted(agent)
    response = viewer_client.post(restore_url(fact, "app"), {"confirm": "on"})
    assert response.status_code == 403
    assert refreshed(fact).status == Status.DELETED


def test_restore_of_another_workspaces_fact_is_404(manager_client, other_agent):
    theirs = deleted(other_agent)
    response = manager_client.post(restore_url(theirs, "app"), {"confirm": "on"})
    assert response.status_code == 404
    assert refreshed(theirs).status == Status.DELETED


# --- changes ---------------------------------------------------------------------------


def test_changes_page_shows_the_last_week_by_default_linking_each_fact(manager_client, agent):
    old = state(agent, "Acme").fact
    eight_days_ago = timezone.now() - timedelta(days=8)
    Fact.objects.filter(pk=old.pk).update(recorded_at=eight_days_ago)
    FactPeriod.objects.filter(fact=old).update(started_at=eight_days_ago)
    disputed = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=disputed, action="reject", actor="ops")

    response = manager_client.get(app(CHANGES))

    assert response.status_code == 200
    kinds = [(row["kind"], row["fact"]["value"]) for row in response.context["rows"]]
    assert kinds == [("resolved", "Globex"), ("disputed", "Globex")]
    assert f'href="/app/facts/{disputed.pk}/"' in response.text
    assert "(rejected)" in response.text


def test_changes_filter_by_agent_user_kind_and_window(staff_client, agent, workspace):
    start = timezone.now()
    state(agent, "Acme")
    state(agent, "Berlin", user="u2", predicate="city")
    second = make_agent(workspace, "second-bot")
    state(second, "Hooli")

    def values(**params):
        rows = staff_client.get(CHANGES, params).context["rows"]
        return sorted(row["fact"]["value"] for row in rows)

    assert values() == ["Acme", "Berlin", "Hooli"]
    assert values(agent=f"{workspace.slug}/second-bot") == ["Hooli"]
    assert values(user="u2") == ["Berlin"]
    assert values(kind="deleted") == []
    before = (start - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M")
    assert values(since=before, until=before) == []  # an empty window
    later = (timezone.now() + timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M")
    assert values(since=before, until=later) == ["Acme", "Berlin", "Hooli"]


def test_changes_with_htmx_return_the_fragment(manager_client, agent):
    state(agent, "Acme")
    response = manager_client.get(app(CHANGES), headers=HTMX)
    assert response.status_code == 200
    assert "<html" not in response.text
    assert "Acme" in response.text


def test_changes_bad_input_shows_the_errors_and_lists_nothing(manager_client, agent):
    state(agent, "Acme")
    response = manager_client.get(
        app(CHANGES), {"since": "2026-02-01T00:00", "until": "2026-01-01T00:00"}
    )
    assert response.status_code == 200
    assert "must not be before since" in response.text
    assert "rows" not in response.context
    response = manager_client.get(app(CHANGES), {"cursor": "nope"})
    assert "is not a cursor this server returned" in response.text


def test_changes_of_another_workspace_are_never_listed(manager_client, agent, other_agent):
    state(agent, "Acme")
    state(other_agent, "Theirs")
    page = manager_client.get(app(CHANGES))
    assert [row["fact"]["value"] for row in page.context["rows"]] == ["Acme"]
    assert "Theirs" not in page.text
    assert manager_client.get(app(CHANGES), {"agent": "globex-bot"}).status_code == 404


def test_changes_page_pages_with_a_cursor(manager_client, agent):
    for i in range(30):
        state(agent, f"v{i}", predicate="city", user=f"u{i}")
    first = manager_client.get(app(CHANGES))
    assert len(first.context["rows"]) == 25
    cursor = first.context["page"].next_cursor
    assert cursor
    assert "Next page" in first.text
    second = manager_client.get(app(CHANGES), {"cursor": cursor})
    assert len(second.context["rows"]) == 5
    values = [r["fact"]["value"] for r in first.context["rows"] + second.context["rows"]]
    assert sorted(values) == sorted(f"v{i}" for i in range(30))


def test_reading_changes_writes_nothing(staff_client, agent):
    deleted(agent)
    facts = list(Fact.objects.values())
    events = AuditEvent.objects.count()
    assert staff_client.get(CHANGES).status_code == 200
    assert list(Fact.objects.values()) == facts
    assert AuditEvent.objects.count() == events


@pytest.mark.parametrize("n", [2, 20])
def test_changes_queries_do_not_grow_with_changes(
    staff_client, agent, other_agent, django_assert_max_num_queries, n
):
    for i in range(n):
        fact = state(agent, f"v{i}", predicate="city", user=f"u{i}").fact
        delete_fact(fact=fact, actor="ops")
        state(other_agent, f"w{i}", predicate="city", user=f"u{i}")
    # session, user, the agent picker, the changes (one UNION), their facts, the badge, the
    # saved views of the page; on PostgreSQL also the agents' ids (a branch of the UNION per
    # agent)
    with django_assert_max_num_queries(8):
        response = staff_client.get(CHANGES)
    assert len(response.context["rows"]) == min(3 * n, 25)
