"""Triage: the review queue filtered, grouped by slot, settled in bulk, undone, and the
viewer's own decisions."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, Status
from tenancy.models import AuditAction, AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db

QUEUE = "/app/review/"
STAFF_QUEUE = "/dashboard/review/"
BULK = "/app/review/bulk/"
UNDO = "/app/review/undo/"
MINE = "/app/review/mine/"
HTMX = {"HX-Request": "true"}


def dispute(agent, value: str, **overrides) -> Fact:
    return state(agent, value, verification="inferred", **overrides).fact


def ids(response) -> list[int]:
    return [item["id"] for group in response.context["groups"] for item in group["items"]]


# --- grouping, and the current value as it is now ---------------------------------------


def test_disputes_of_one_slot_are_grouped_under_its_current_value(manager_client, agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    initech = dispute(agent, "Initech", confidence=0.5)
    response = manager_client.get(QUEUE)
    groups = response.context["groups"]
    assert [[i["id"] for i in g["items"]] for g in groups] == [[globex.pk, initech.pk], [rome.pk]]
    assert [g["current"]["value"] for g in groups] == ["Acme", "Paris"]
    assert response.text.count("Current value</h3>") == 2


def test_accepting_one_dispute_shows_its_neighbours_beside_the_new_current_value(
    manager_client, agent
):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    initech = dispute(agent, "Initech", confidence=0.5)
    response = manager_client.post(
        f"/app/review/{globex.pk}/resolve/", {"action": "accept"}, headers=HTMX
    )
    assert response.status_code == 200
    assert "<html" not in response.text
    # The neighbour is still there, now beside Globex, the slot's value as it is now.
    assert f'id="review-{initech.pk}"' in response.text
    current = response.text.split("Current value</h3>")[1].split("</p>")[0]
    assert "Globex" in current
    assert "Acme" not in current
    assert refreshed(globex).status == Status.CURRENT


def test_settling_the_last_dispute_of_a_slot_leaves_a_note_and_the_badge(manager_client, agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    response = manager_client.post(
        f"/app/review/{globex.pk}/resolve/", {"action": "reject"}, headers=HTMX
    )
    assert "Nothing of this slot waits any more." in response.text
    assert "Value “Globex” rejected." in response.text
    assert 'id="review-badge" class="badge" hx-swap-oob="true"' in response.text
    assert 'id="toast" class="toast-area" aria-live="polite" hx-swap-oob="true"' in response.text
    assert f'name="fact" value="{globex.pk}"' in response.text  # the Undo form


def test_reject_says_the_slot_stays_empty_when_it_has_no_current_value(manager_client, agent):
    from facts.services import delete_fact

    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    page = manager_client.get(QUEUE).text
    assert "Reject it, keep the current value" in page
    delete_fact(fact=acme, actor="t")
    page = manager_client.get(QUEUE).text
    assert "Reject (slot stays empty)" in page
    assert "keep the current value" not in page
    assert "No current value: the slot is empty." in page
    detail = manager_client.get(f"/app/facts/{globex.pk}/").text
    assert "Reject (slot stays empty)" in detail


# --- filters ------------------------------------------------------------------------------


def test_filters_by_agent_predicate_prefix_in_any_case_and_age(manager_client, agent, workspace):
    from tests.factories import make_agent

    other = make_agent(workspace, "sales-bot")
    state(agent, "Acme")
    employer = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    city = dispute(agent, "Rome", predicate="city")
    state(other, "Acme")
    theirs = dispute(other, "Umbrella")
    Fact.objects.filter(pk=employer.pk).update(recorded_at=timezone.now() - timedelta(days=8))
    assert ids(manager_client.get(QUEUE)) == [employer.pk, city.pk, theirs.pk]
    assert ids(manager_client.get(QUEUE, {"agent": "sales-bot"})) == [theirs.pk]
    assert ids(manager_client.get(QUEUE, {"predicate": "EMPL"})) == [employer.pk, theirs.pk]
    assert ids(manager_client.get(QUEUE, {"predicate": "mploy"})) == []
    assert ids(manager_client.get(QUEUE, {"age": "7"})) == [employer.pk]
    assert ids(manager_client.get(QUEUE, {"age": "30"})) == []
    today = timezone.now().date()
    assert ids(manager_client.get(QUEUE, {"before": str(today)})) == [employer.pk]
    fragment = manager_client.get(QUEUE, {"predicate": "ci"}, headers=HTMX)
    assert "<html" not in fragment.text
    assert 'id="review-queue"' in fragment.text
    assert ids(fragment) == [city.pk]


def test_bad_filters_say_so_and_another_workspaces_agent_is_not_found(
    manager_client, staff_client, agent, other_agent
):
    state(other_agent, "Acme")
    theirs = dispute(other_agent, "Initech")
    response = manager_client.get(QUEUE, {"age": "9"})
    assert response.status_code == 200
    assert "Fix the highlighted filters" in response.text
    assert "groups" not in response.context
    assert manager_client.get(QUEUE, {"agent": "globex-bot"}).status_code == 404
    # Staff pick a workspace, or a workspace's agent.
    assert ids(staff_client.get(STAFF_QUEUE, {"workspace": "globex"})) == [theirs.pk]
    assert ids(staff_client.get(STAFF_QUEUE, {"workspace": "acme"})) == []
    assert ids(staff_client.get(STAFF_QUEUE, {"agent": "globex/globex-bot"})) == [theirs.pk]
    assert 'name="workspace"' in staff_client.get(STAFF_QUEUE).text
    assert 'name="workspace"' not in manager_client.get(QUEUE).text


@pytest.mark.parametrize("n", [3, 30])
def test_grouped_queue_queries_do_not_grow_with_disputes(
    staff_client, agent, django_assert_max_num_queries, n
):
    for i in range(n):
        state(agent, f"c{i}", predicate="city", user=f"u{i}")
        dispute(agent, f"d{i}", predicate="city", user=f"u{i}")
        dispute(agent, f"e{i}", predicate="city", user=f"u{i}", confidence=0.5)
    # session, user, the filter's agents, whether any dispute is snoozed, the count, the
    # disputes, their sources, their assignees and snoozes, the current facts, theirs, the
    # badge, the re-confirmation section's agents, how many current facts the prefix has,
    # and its stale facts
    with django_assert_max_num_queries(14):
        response = staff_client.get(STAFF_QUEUE, {"predicate": "ci"})
    assert len(response.context["groups"]) == min(n, 25)
    assert response.context["shown"] == min(2 * n, 50)


# --- bulk ---------------------------------------------------------------------------------


def test_bulk_without_js_asks_first_then_settles_each_and_reports_a_failure(manager_client, agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    state(agent, "Anna", predicate="spouse")
    settled = dispute(agent, "Bea", predicate="spouse")
    form = {"fact": [globex.pk, rome.pk, settled.pk], "action": "reject", "next": "predicate=c"}
    asked = manager_client.post(BULK, {**form, "reason": "spam"})
    assert asked.status_code == 200
    assert "Reject 3 disputed values?" in asked.text
    assert 'name="confirm" value="on"' in asked.text
    assert refreshed(globex).status == Status.DISPUTED  # nothing happened yet
    # Someone else settled one meanwhile.
    from facts.services import resolve_fact

    resolve_fact(fact=settled, action="accept", actor="operator:sam")
    done = manager_client.post(BULK, {**form, "reason": "spam", "confirm": "on"})
    assert done.status_code == 302
    assert done["Location"] == f"{QUEUE}?predicate=c&undo={globex.pk}%2C{rome.pk}"
    assert (refreshed(globex).status, refreshed(rome).status) == ("rejected", "rejected")
    events = AuditEvent.objects.filter(action=AuditAction.FACT_RESOLVE, actor="operator:mia")
    assert sorted(e.details["reason"] for e in events) == ["spam", "spam"]
    page = manager_client.get(done["Location"]).text
    assert "Rejected 2 disputed values." in page
    assert f"Fact {settled.pk} is current, not disputed" in page
    assert "Undo</button>" in page


def test_bulk_with_htmx_redraws_the_queue_with_the_toast(manager_client, agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    initech = dispute(agent, "Initech", confidence=0.5)
    response = manager_client.post(
        BULK, {"fact": [globex.pk], "action": "accept", "confirm": "on"}, headers=HTMX
    )
    assert "<html" not in response.text
    assert 'id="review-queue"' in response.text
    assert "Accepted 1 disputed value." in response.text
    assert f'id="review-{initech.pk}"' in response.text
    assert response.context["groups"][0]["current"]["value"] == "Globex"
    assert 'hx-swap-oob="true"' in response.text


def test_bulk_refuses_bad_input_and_viewers_and_other_workspaces(
    manager_client, viewer_client, agent, other_agent
):
    state(other_agent, "Acme")
    theirs = dispute(other_agent, "Initech")
    assert manager_client.post(BULK, {"action": "accept", "confirm": "on"}).status_code == 400
    assert manager_client.post(BULK, {"fact": ["x"], "action": "accept"}).status_code == 400
    assert manager_client.post(BULK, {"fact": [theirs.pk], "action": "maybe"}).status_code == 400
    assert manager_client.post(BULK, {"fact": [theirs.pk], "action": "accept"}).status_code == 404
    done = manager_client.post(BULK, {"fact": [theirs.pk], "action": "accept", "confirm": "on"})
    assert done.status_code == 302
    assert refreshed(theirs).status == Status.DISPUTED
    assert viewer_client.post(BULK, {"fact": [theirs.pk], "action": "accept"}).status_code == 403
    assert viewer_client.post(UNDO, {"fact": [theirs.pk]}).status_code == 403
    assert "Accept selected" not in viewer_client.get(QUEUE).text
    assert not AuditEvent.objects.exists()


# --- undo ---------------------------------------------------------------------------------


def test_undo_after_bulk_accept_puts_both_back(manager_client, agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    manager_client.post(BULK, {"fact": [globex.pk, rome.pk], "action": "accept", "confirm": "on"})
    assert refreshed(acme).status == Status.HISTORY
    response = manager_client.post(UNDO, {"fact": [globex.pk, rome.pk], "next": "age=1"})
    assert response["Location"] == f"{QUEUE}?age=1"
    assert [refreshed(f).status for f in (globex, rome, acme)] == ["disputed"] * 2 + ["current"]
    assert AuditEvent.objects.filter(action=AuditAction.FACT_UNDO).count() == 2
    assert "Undone: 2 disputed values back in review." in manager_client.get(QUEUE).text


def test_undo_after_the_window_is_refused_and_the_toast_is_gone(manager_client, agent, settings):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    manager_client.post(f"/app/review/{globex.pk}/resolve/", {"action": "reject"})
    assert "Undo</button>" in manager_client.get(QUEUE, {"undo": globex.pk}).text
    settings.DEWEE_UNDO_SECONDS = 0
    assert "Undo</button>" not in manager_client.get(QUEUE, {"undo": globex.pk}).text
    response = manager_client.post(UNDO, {"fact": [globex.pk]}, headers=HTMX)
    assert "have passed; reopen it instead" in response.text
    assert refreshed(globex).status == Status.REJECTED


# --- resolved by me -----------------------------------------------------------------------


def test_resolved_by_me_lists_my_decisions_newest_first_paginated(
    manager_client, staff_client, agent, django_assert_max_num_queries
):
    from facts.services import resolve_fact

    for i in range(27):
        state(agent, f"c{i}", predicate="city", user=f"u{i}")
        fact = dispute(agent, f"d{i}", predicate="city", user=f"u{i}")
        resolve_fact(fact=fact, action="reject", actor="operator:mia", reason=f"r{i}")
    state(agent, "Rex", predicate="pet")
    resolve_fact(fact=dispute(agent, "x", predicate="pet"), action="reject", actor="operator:ops")
    with django_assert_max_num_queries(6):
        first = manager_client.get(MINE)
    items = first.context["page"].items
    assert [i["details"]["reason"] for i in items[:2]] == ["r26", "r25"]
    assert len(items) == 25
    assert all(i["fact"]["status"] == "rejected" for i in items)
    cursor = first.context["page"].next_cursor
    rest = manager_client.get(MINE, {"cursor": cursor}, headers=HTMX)
    assert [i["details"]["reason"] for i in rest.context["page"].items] == ["r1", "r0"]
    assert "<html" not in rest.text
    assert "Rejected" in first.text
    assert "d26" in first.text
    # Only one's own: staff ops made one decision.
    assert len(staff_client.get("/dashboard/review/mine/").context["page"].items) == 1
    assert manager_client.get(MINE, {"cursor": "nope"}).status_code == 400


# --- reopen from the fact page ------------------------------------------------------------


def test_reopen_from_the_fact_page(manager_client, viewer_client, agent, other_agent):
    from facts.services import resolve_fact

    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor="operator:sam")
    page = manager_client.get(f"/app/facts/{globex.pk}/").text
    assert "Reopen</button>" in page
    assert "Reopen</button>" not in viewer_client.get(f"/app/facts/{globex.pk}/").text
    url = f"/app/facts/{globex.pk}/reopen/"
    assert viewer_client.post(url).status_code == 403
    response = manager_client.post(url, {"reason": "asked again"}, headers=HTMX)
    assert "Reopened: the fact is disputed now." in response.text
    assert refreshed(globex).status == Status.DISPUTED
    again = manager_client.post(url, follow=True)
    assert "is disputed, not rejected" in again.text
    state(other_agent, "Acme")
    theirs = dispute(other_agent, "Initech")
    resolve_fact(fact=theirs, action="reject", actor="t")
    assert manager_client.post(f"/app/facts/{theirs.pk}/reopen/").status_code == 404
    assert refreshed(theirs).status == Status.REJECTED


def test_bulk_accept_of_two_values_of_one_slot_accepts_neither_and_asks_to_pick(
    manager_client, agent
):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    initech = dispute(agent, "Initech", confidence=0.5)
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    form = {"fact": [globex.pk, initech.pk, rome.pk], "action": "accept", "confirm": "on"}
    done = manager_client.post(BULK, form)
    assert done["Location"] == f"{QUEUE}?undo={rome.pk}"
    assert refreshed(rome).status == Status.CURRENT
    assert (refreshed(globex).status, refreshed(initech).status) == ("disputed", "disputed")
    assert Fact.objects.get(status=Status.CURRENT, predicate="employer").value == "Acme"
    page = manager_client.get(done["Location"]).text
    assert "Accepted 1 disputed value." in page
    assert "2 values of user.employer were selected" in page
    # Rejecting several values of one slot is fine: none becomes current.
    rejected = manager_client.post(
        BULK, {**form, "fact": [globex.pk, initech.pk], "action": "reject"}
    )
    assert rejected.status_code == 302
    assert (refreshed(globex).status, refreshed(initech).status) == ("rejected", "rejected")


def test_what_needs_reconfirmation_follows_the_queues_filters(manager_client, agent):
    long_ago = timezone.now() - timedelta(days=3000)
    for predicate, value in (("employer", "Acme"), ("city", "Paris")):
        fact = state(agent, value, predicate=predicate).fact
        Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=long_ago, recorded_at=long_ago)
    everything = manager_client.get(QUEUE).context["stale"]
    assert {item["value"] for item in everything} == {"Acme", "Paris"}
    narrowed = manager_client.get(QUEUE, {"predicate": "emp"}).context["stale"]
    assert [item["value"] for item in narrowed] == ["Acme"]
    assert manager_client.get(QUEUE, {"predicate": "zzz"}).context["stale"] == []


@pytest.mark.parametrize("names_at_most", [10, 1])
def test_a_prefix_of_several_predicates_lists_their_stale_facts_oldest_confirmed_first(
    manager_client, agent, monkeypatch, names_at_most
):
    """One list over every predicate the prefix names, in confirmation order across them,
    whether each predicate is read on its own (PostgreSQL's index by predicate) or the
    prefix is walked whole (more predicates than PREDICATES_BY_NAME, or SQLite)."""
    monkeypatch.setattr("facts.staleness.PREDICATES_BY_NAME", names_at_most)
    now = timezone.now()
    stated = [
        ("email", "a@x.io", 3000, "u1"),
        ("employer", "Acme", 3100, "u1"),
        ("employer", "Globex", 2900, "u2"),
        ("email", "b@x.io", 3050, "u2"),
        ("city", "Paris", 3200, "u1"),
    ]
    for predicate, value, days, user in stated:
        fact = state(agent, value, predicate=predicate, user=user).fact
        long_ago = now - timedelta(days=days)
        Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=long_ago, recorded_at=long_ago)
    narrowed = manager_client.get(QUEUE, {"predicate": "E"}).context["stale"]
    assert [item["value"] for item in narrowed] == ["Acme", "b@x.io", "a@x.io", "Globex"]


def test_bulk_over_every_matching_dispute_asks_with_the_count_then_settles_them_all(
    manager_client, agent
):
    from facts.triage import GROUPED_QUEUE_LIMIT

    count = GROUPED_QUEUE_LIMIT + 3  # more than the queue shows
    for n in range(count):
        state(agent, f"Acme {n}", predicate=f"employer_{n}")
        dispute(agent, f"Globex {n}", predicate=f"employer_{n}")
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    queue = manager_client.get(QUEUE, {"predicate": "emp"})
    assert (queue.context["total"], queue.context["shown"]) == (count, GROUPED_QUEUE_LIMIT)
    assert f"All {count} matching the filters:" in queue.text

    asked = manager_client.post(
        BULK, {"matching": "on", "action": "reject", "next": "predicate=emp"}
    )
    assert asked.status_code == 200
    assert asked.context["count"] == count
    assert f"Reject {count} disputed values?" in asked.text
    assert Fact.objects.filter(status="rejected").count() == 0  # asked, nothing done yet
    ids = asked.context["ids"]
    assert rome.pk not in ids

    done = manager_client.post(
        BULK, {"fact": ids, "action": "reject", "confirm": "on", "next": "predicate=emp"}
    )
    assert done.status_code == 302
    assert Fact.objects.filter(status="rejected").count() == count
    assert refreshed(rome).status == Status.DISPUTED
    back = manager_client.get(done["Location"])
    assert back.context["undo"]["ids"] == ids


def test_an_undo_of_more_than_a_url_holds_goes_through_the_session(manager_client, agent):
    from facts.views_review import URL_UNDO_MAX

    count = URL_UNDO_MAX + 5
    ids = []
    for n in range(count):
        state(agent, f"Acme {n}", predicate=f"p{n}")
        ids.append(dispute(agent, f"Globex {n}", predicate=f"p{n}").pk)
    done = manager_client.post(BULK, {"fact": ids, "action": "reject", "confirm": "on"})
    assert done["Location"].endswith("undo=session")
    back = manager_client.get(done["Location"])
    assert len(back.context["undo"]["ids"]) == count
    undone = manager_client.post(UNDO, {"fact": back.context["undo"]["ids"]})
    assert undone.status_code == 302
    assert Fact.objects.filter(status="disputed").count() == count
