"""POST /v1/facts/{id}/restore and GET /v1/facts/changes: status codes, scopes, bodies,
bad input, pagination and isolation."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, Status
from facts.services import delete_fact, resolve_fact, restore_fact
from tenancy.models import AuditAction, AuditEvent
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, refreshed, state

pytestmark = pytest.mark.django_db


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    return response.json()["error"]


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


# --- restore ---------------------------------------------------------------------------


def test_restore_brings_a_deleted_fact_back_and_says_where(api, agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    response = api.post(f"/v1/facts/{fact.pk}/restore", {"reason": "wrongly deleted"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["outcome"] == "current"
    assert body["other"] is None
    assert body["fact"]["status"] == "current"
    assert body["fact"]["restored_at"] is not None
    assert body["fact"]["deleted_at"] is not None
    assert body["fact"]["events"][-1]["action"] == "fact.restore"
    assert body["fact"]["events"][-1]["details"]["reason"] == "wrongly deleted"


def test_restore_without_a_body_reason_is_fine(api, agent):
    fact = state(agent, "Acme", verification="inferred").fact
    delete_fact(fact=fact, actor="ops")
    state(agent, "Globex", verification="confirmed")
    response = api.post(f"/v1/facts/{fact.pk}/restore")
    assert response.status_code == 200, response.content
    assert response.json()["outcome"] == "disputed"
    assert response.json()["other"]["value"] == "Globex"


def test_restore_of_a_fact_not_deleted_is_a_conflict(api, agent):
    fact = state(agent, "Acme").fact
    assert_error(api.post(f"/v1/facts/{fact.pk}/restore"), 409, "fact_not_deleted")
    assert refreshed(fact).restored_at is None


def test_restore_of_an_erased_fact_is_not_found(api, agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    api.post("/v1/facts/forget", {"agent_id": agent.agent_id, "user": "u1", "confirm": True})
    assert_error(api.post(f"/v1/facts/{fact.pk}/restore"), 404, "fact_not_found")


def test_restore_of_another_workspaces_fact_is_not_found_and_writes_nothing(other_api, agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    assert_error(other_api.post(f"/v1/facts/{fact.pk}/restore"), 404, "fact_not_found")
    assert refreshed(fact).status == Status.DELETED
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).exists()


def test_restore_needs_the_write_scope(workspace, agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    assert_error(reader.post(f"/v1/facts/{fact.pk}/restore"), 403, "insufficient_scope")
    assert refreshed(fact).status == Status.DELETED
    writer = ApiClient(make_key(workspace, scopes=["write"]))
    assert writer.post(f"/v1/facts/{fact.pk}/restore").status_code == 200


def test_restore_by_a_key_limited_to_another_agent_is_not_found(workspace, agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    other = make_agent(workspace, "other-bot")
    limited = ApiClient(make_key(workspace, agent_ids=[other.agent_id]))
    assert_error(limited.post(f"/v1/facts/{fact.pk}/restore"), 404, "fact_not_found")


# --- changes ---------------------------------------------------------------------------


def every_kind(agent):
    """One change of each kind, in this order: added Acme, superseded Acme (by Globex,
    added), disputed Initech, resolved Initech (rejected), deleted Globex, restored Globex."""
    acme = state(agent, "Acme").fact
    globex = state(agent, "Globex").fact
    initech = state(agent, "Initech", verification="inferred").fact
    resolve_fact(fact=initech, action="reject", actor="ops")
    delete_fact(fact=globex, actor="ops")
    restore_fact(fact=globex, actor="ops")
    return acme, globex, initech


def kinds_of(body):
    return [(item["kind"], item["fact"]["value"]) for item in body["items"]]


def test_each_kind_of_change_appears_newest_first(api, agent):
    before = timezone.now()
    every_kind(agent)
    response = api.get("/v1/facts/changes", since=iso(before))
    assert response.status_code == 200, response.content
    assert kinds_of(response.json()) == [
        ("restored", "Globex"),
        ("deleted", "Globex"),
        ("resolved", "Initech"),
        ("disputed", "Initech"),
        # Globex took over at the moment Acme was superseded: the newer fact first.
        ("added", "Globex"),
        ("superseded", "Acme"),
        ("added", "Acme"),
    ]
    resolved = response.json()["items"][2]
    assert resolved["resolution"] == "rejected"
    assert response.json()["next_cursor"] is None


def test_an_accepted_dispute_reads_accepted(api, agent):
    before = timezone.now()
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=disputed, action="accept", actor="ops")
    items = api.get("/v1/facts/changes", since=iso(before), kind="resolved").json()["items"]
    assert [(i["fact"]["value"], i["resolution"]) for i in items] == [("Globex", "accepted")]


def test_changes_outside_the_window_are_left_out(api, agent):
    acme, globex, _initech = every_kind(agent)
    deleted_at = refreshed(globex).deleted_at
    restored_at = refreshed(globex).restored_at
    assert deleted_at is not None
    assert restored_at is not None
    # [deleted_at, restored_at): the deletion only; the window's end is exclusive.
    window = api.get("/v1/facts/changes", since=iso(deleted_at), until=iso(restored_at))
    assert kinds_of(window.json()) == [("deleted", "Globex")]
    # Before anything happened, and after everything: nothing.
    earlier = acme.recorded_at - timedelta(hours=1)
    nothing_yet = api.get("/v1/facts/changes", since=iso(earlier), until=iso(acme.recorded_at))
    assert nothing_yet.json()["items"] == []
    later = restored_at + timedelta(microseconds=1)
    assert api.get("/v1/facts/changes", since=iso(later)).json()["items"] == []


def test_changes_filter_by_kind_user_and_agent(api, workspace, agent):
    before = timezone.now()
    every_kind(agent)
    state(agent, "Umbrella", user="u2")
    second = make_agent(workspace, "second-bot")
    state(second, "Hooli")

    deleted = api.get("/v1/facts/changes", since=iso(before), kind="deleted,restored")
    assert kinds_of(deleted.json()) == [("restored", "Globex"), ("deleted", "Globex")]
    of_u2 = api.get("/v1/facts/changes", since=iso(before), user="u2")
    assert kinds_of(of_u2.json()) == [("added", "Umbrella")]
    of_second = api.get("/v1/facts/changes", since=iso(before), agent_id="second-bot")
    assert kinds_of(of_second.json()) == [("added", "Hooli")]
    every_agent = api.get("/v1/facts/changes", since=iso(before), kind="added")
    assert {v for _k, v in kinds_of(every_agent.json())} == {"Acme", "Globex", "Umbrella", "Hooli"}


def test_changes_page_with_the_cursor_without_gaps_or_repeats(api, agent):
    before = timezone.now()
    every_kind(agent)
    whole = kinds_of(api.get("/v1/facts/changes", since=iso(before)).json())
    seen, cursor = [], None
    for _page in range(10):
        params = {"since": iso(before), "limit": 2, **({"cursor": cursor} if cursor else {})}
        body = api.get("/v1/facts/changes", **params).json()
        assert len(body["items"]) <= 2
        seen += kinds_of(body)
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == whole
    assert len(whole) == 7


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, None),
        ({"since": "yesterday"}, "invalid_time"),
        ({"since": "2026-01-01T00:00:00Z", "until": "soon"}, "invalid_time"),
        ({"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "invalid_time"),
        ({"since": "2026-01-01T00:00:00Z", "kind": "renamed"}, "invalid_input"),
        ({"since": "2026-01-01T00:00:00Z", "cursor": "nope"}, "invalid_input"),
        ({"since": "2026-01-01T00:00:00Z", "limit": 0}, "invalid_input"),
    ],
)
def test_bad_changes_input_is_400_with_a_code(api, agent, params, code):
    response = api.get("/v1/facts/changes", **params)
    assert response.status_code == 400, response.content
    if code:
        assert response.json()["error"]["code"] == code


def test_changes_of_another_workspace_are_never_seen(api, other_api, agent, other_agent):
    before = timezone.now()
    state(agent, "Acme")
    state(other_agent, "Theirs")
    mine = api.get("/v1/facts/changes", since=iso(before)).json()
    assert kinds_of(mine) == [("added", "Acme")]
    assert_error(
        other_api.get("/v1/facts/changes", since=iso(before), agent_id=agent.agent_id),
        404,
        "agent_not_found",
    )


def test_reading_changes_writes_nothing(api, agent):
    before = timezone.now()
    fact = state(agent, "Acme").fact
    rows = list(Fact.objects.values())
    events = AuditEvent.objects.count()
    assert api.get("/v1/facts/changes", since=iso(before)).status_code == 200
    assert list(Fact.objects.values()) == rows
    assert AuditEvent.objects.count() == events
    assert refreshed(fact).access_count == 0


def test_changes_need_a_key(agent):
    response = ApiClient(None).get("/v1/facts/changes", since="2026-01-01T00:00:00Z")
    assert response.status_code == 401


def test_changes_of_many_agents_page_in_order(api, workspace, agent):
    """More agents than read one by one (facts.changes.AGENT_BRANCHES_MAX): one range per
    kind over all of them, the same order and pages."""
    before = timezone.now()
    for i in range(21):
        state(make_agent(workspace, f"bot-{i}"), f"v{i}")
    seen, cursor = [], None
    for _page in range(10):
        params = {"since": iso(before), "limit": 8, **({"cursor": cursor} if cursor else {})}
        body = api.get("/v1/facts/changes", **params).json()
        seen += [item["fact"]["value"] for item in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"v{i}" for i in reversed(range(21))]
