"""The audit log and the erasure receipts in the dashboard: who sees which events (staff
all, managers their workspace, viewers nothing), the filters, pages whose query count stays
flat, and reads that write nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact
from facts.services import delete_fact, forget_facts, forget_scope, resolve_fact
from tenancy.audit import record_event
from tenancy.models import AuditAction, AuditEvent, ErasureReceipt
from tests.dashboard.conftest import app
from tests.factories import state

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/audit/"
RECEIPTS = "/dashboard/audit/receipts/"
HTMX = {"HX-Request": "true"}


def test_a_receipt_names_its_counts_in_words(manager_client, agent):
    state(agent, "Acme")
    receipt = forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="test")
    assert "audit_events" in receipt.counts
    page = manager_client.get(f"/app/receipts/{receipt.pk}/").text
    assert "Audit events" in page
    assert "Audit_events" not in page


def _snapshot():
    return (
        list(AuditEvent.objects.order_by("id").values_list("id", "action")),
        list(ErasureReceipt.objects.values_list("pk", flat=True)),
        list(Fact.objects.order_by("id").values_list("id", "status")),
    )


@pytest.fixture
def events(agent, other_agent):
    """In acme: a dispute accepted by ana, a fact deleted by the key "bot"; in globex: a
    fact deleted by gus."""
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred", confidence=0.6).fact
    resolve_fact(fact=disputed, action="accept", actor="operator:ana")
    other = state(agent, "Zed", user="u2").fact
    delete_fact(fact=other, actor="key:bot#1", reason="wrong")
    theirs = state(other_agent, "Initech").fact
    delete_fact(fact=theirs, actor="operator:gus", reason="wrong")
    return {"accepted": disputed, "deleted": other, "theirs": theirs}


def shown(response) -> list[tuple[str, str]]:
    return [(e.action, e.actor) for e, _url in response.context["rows"]]


def test_managers_see_their_workspace_and_staff_every_one(manager_client, staff_client, events):
    mine = manager_client.get(app(PAGE))
    assert mine.status_code == 200
    assert shown(mine) == [("fact.delete", "key:bot#1"), ("fact.resolve", "operator:ana")]
    assert "operator:gus" not in mine.text
    every = staff_client.get(PAGE)
    assert shown(every)[0] == ("fact.delete", "operator:gus")
    assert len(shown(every)) == 3
    assert "globex/globex-bot" in every.text


def test_viewers_are_refused_the_audit_log_and_receipts(viewer_client, events):
    for url in (PAGE, RECEIPTS):
        refused = viewer_client.get(app(url))
        assert refused.status_code == 403
        assert b"operator:ana" not in refused.content


def test_filters_narrow_the_events(staff_client, events, agent):
    def actions(**query):
        return shown(staff_client.get(PAGE, query))

    assert actions(actor="ANA") == [("fact.resolve", "operator:ana")]
    assert actions(action="fact.delete") == [
        ("fact.delete", "operator:gus"),
        ("fact.delete", "key:bot#1"),
    ]
    assert actions(agent="acme/support-bot", action="fact.delete") == [("fact.delete", "key:bot#1")]
    assert actions(user="u2") == [("fact.delete", "key:bot#1")]
    today = timezone.localdate()
    assert len(actions(since=today.isoformat(), until=today.isoformat())) == 3
    assert actions(until=(today - timedelta(days=1)).isoformat()) == []
    assert actions(since=(today + timedelta(days=1)).isoformat()) == []


def test_bad_filters_are_shown_and_an_agent_of_another_workspace_is_not_found(
    manager_client, staff_client, events
):
    bad = staff_client.get(PAGE, {"since": "2026-05-02", "until": "2026-05-01", "action": "x"})
    assert bad.status_code == 200
    assert bad.context["form"].errors.keys() == {"until", "action"}
    assert "rows" not in bad.context
    assert manager_client.get(app(PAGE), {"agent": "globex-bot"}).status_code == 404
    assert manager_client.get(app(PAGE), {"cursor": "nonsense"}).status_code == 200


def test_each_event_links_to_its_target_while_it_exists(manager_client, events, agent):
    rows = {event.target_id: url for event, url in manager_client.get(app(PAGE)).context["rows"]}
    accepted = events["accepted"]
    assert rows[str(accepted.pk)] == f"/app/facts/{accepted.pk}/"
    receipt = forget_facts(agent=agent, scope=forget_scope(user="u2"), actor="operator:mia")
    rows = {event.target_id: url for event, url in manager_client.get(app(PAGE)).context["rows"]}
    # Forgetting u2 erased the events about its facts, and left the receipt's.
    assert rows[str(receipt.pk)] == f"/app/receipts/{receipt.pk}/"
    assert str(events["deleted"].pk) not in rows


def test_pages_follow_newest_first_and_htmx_gets_the_table(staff_client, agent):
    for n in range(60):
        record_event(
            workspace_id=agent.workspace_id, agent=agent, actor=f"a{n}",
            action=AuditAction.POLICY_CHANGE, target_type="agent",
        )  # fmt: skip
    first = staff_client.get(PAGE)
    assert [e.actor for e, _ in first.context["rows"]][:2] == ["a59", "a58"]
    assert len(first.context["rows"]) == 50
    cursor = first.context["page"]["next_cursor"]
    second = staff_client.get(PAGE, {"cursor": cursor}, headers=HTMX)
    assert [e.actor for e, _ in second.context["rows"]][-1] == "a0"
    assert len(second.context["rows"]) == 10
    assert "<h1>" not in second.text
    assert 'id="event-' in second.text


def test_the_audit_log_query_count_stays_flat(staff_client, agent, django_assert_max_num_queries):
    def add(n):
        for _ in range(n):
            fact = state(agent, f"v{Fact.objects.count()}", user=f"u{Fact.objects.count()}").fact
            delete_fact(fact=fact, actor="operator:ana")
            receipt = forget_facts(agent=agent, scope=forget_scope(subject="x"), actor="ana")
            record_event(
                workspace_id=agent.workspace_id, agent=agent, actor="ana",
                action=AuditAction.FACTS_FORGET, target_type="erasure", target_id=str(receipt.pk),
            )  # fmt: skip

    add(2)
    with django_assert_max_num_queries(12) as few:
        staff_client.get(PAGE)
    add(8)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(staff_client.get(PAGE).context["rows"]) >= 25
    with django_assert_max_num_queries(len(few.captured_queries)):
        staff_client.get(RECEIPTS)


def test_reading_the_log_and_receipts_writes_nothing(staff_client, manager_client, events):
    before = _snapshot()
    staff_client.get(PAGE, {"actor": "ana"})
    staff_client.get(RECEIPTS)
    manager_client.get(app(PAGE))
    manager_client.get(app(RECEIPTS))
    assert _snapshot() == before


def test_receipts_list_shows_each_workspace_its_own_with_counts(
    manager_client, staff_client, agent, other_agent
):
    state(agent, "Acme")
    mine = forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="operator:mia")
    state(other_agent, "Initech")
    theirs = forget_facts(agent=other_agent, scope=forget_scope(user="u1"), actor="operator:gus")
    page = manager_client.get(app(RECEIPTS))
    assert [r.pk for r in page.context["receipts"]] == [mine.pk]
    assert f"/app/receipts/{mine.pk}/" in page.text
    assert "Facts 1" in page.text
    assert "Audit events" in page.text
    assert str(theirs.pk)[:8] not in page.text
    every = staff_client.get(RECEIPTS)
    assert [r.pk for r in every.context["receipts"]] == [theirs.pk, mine.pk]
    assert f"/dashboard/receipts/{theirs.pk}/" in every.text
    assert manager_client.get(f"/app/receipts/{theirs.pk}/").status_code == 404


def test_whether_a_user_id_was_erased_and_when(manager_client, staff_client, agent, other_agent):
    state(agent, "Acme", user="u-gone")
    mine = forget_facts(agent=agent, scope=forget_scope(user="u-gone"), actor="operator:mia")
    state(other_agent, "Initech", user="u-theirs")
    theirs = forget_facts(
        agent=other_agent, scope=forget_scope(user="u-theirs"), actor="operator:gus"
    )
    found = manager_client.get(app(RECEIPTS), {"user": "u-gone"})
    assert [r.pk for r in found.context["receipts"]] == [mine.pk]
    assert "User “u-gone” was erased 1 time, the last on" in found.text
    never = manager_client.get(app(RECEIPTS), {"user": "u-never"})
    assert never.context["receipts"] == []
    assert "No erasure of user “u-never” is recorded in acme." in never.text
    # Another workspace's erasure is not told to this one; staff see every workspace's.
    assert manager_client.get(app(RECEIPTS), {"user": "u-theirs"}).context["receipts"] == []
    every = staff_client.get(RECEIPTS, {"user": "u-theirs"})
    assert [r.pk for r in every.context["receipts"]] == [theirs.pk]


def _csv(response) -> list[dict[str, str]]:
    import csv
    import io

    assert response.streaming
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_the_audit_log_exports_with_its_filters_and_only_what_the_viewer_may_see(
    staff_client, manager_client, viewer_client, events, django_assert_max_num_queries
):
    export = "/dashboard/audit/export/"
    deletions = _csv(staff_client.get(export, {"action": "fact.delete", "format": "csv"}))
    assert {(r["workspace"], r["actor"]) for r in deletions} == {
        ("acme", "key:bot#1"),
        ("globex", "operator:gus"),
    }
    mine = _csv(manager_client.get(app(export), {"format": "csv"}))
    assert mine
    assert {r["workspace"] for r in mine} == {"acme"}
    assert viewer_client.get(app(export), {"format": "csv"}).status_code == 403
    page = staff_client.get(PAGE, {"action": "fact.delete"}).text
    assert "/dashboard/audit/export/?action=fact.delete&amp;agent=&amp;format=csv" in page
    for i in range(30):
        record_event(
            workspace_id=events["accepted"].agent.workspace_id,
            agent=None,
            actor=f"op{i}",
            action=AuditAction.FACT_DELETE,
            target_type="fact",
        )
    with django_assert_max_num_queries(4):
        rows = _csv(staff_client.get(export, {"format": "csv"}))
    assert len(rows) >= 33
