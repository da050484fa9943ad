"""Each rule of facts, as DESIGN.md states it, checked on the service that owns it."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from dewee.errors import InvalidInput, TooLarge
from facts.exceptions import FactAlreadyDeleted, FactNotDisputed
from facts.models import Fact, FactSource, Status
from facts.queries import FactFilters, fact_detail, filter_facts, list_facts
from facts.services import (
    ForgetCoverage,
    ForgetScope,
    Outcome,
    delete_fact,
    forget_coverage,
    forget_facts,
    forget_scope,
    resolve_fact,
    subject_scope_of,
)
from tenancy.models import AuditAction, AuditEvent, ErasureReceipt
from tenancy.receipts import user_digest
from tests.factories import refreshed, source, state

pytestmark = pytest.mark.django_db


def current_values(agent, **slot):
    return list(Fact.objects.filter(agent=agent, **slot).current().values_list("value", flat=True))


def test_first_value_of_a_slot_is_created_current(agent):
    result = state(agent, "Acme")
    assert result.outcome == Outcome.CREATED
    assert result.fact.status == Status.CURRENT
    assert result.fact.believed_from is not None
    assert result.fact.sources.count() == 1


def test_same_value_confirms_the_current_fact_and_adds_the_source(agent):
    first = state(agent, "Acme", verification="inferred", confidence=0.4).fact
    result = state(
        agent, "  acme ", verification="stated", confidence=0.9, source=source(reference="conv-2")
    )
    assert result.outcome == Outcome.CONFIRMED
    assert result.fact.pk == first.pk
    fact = refreshed(first)
    assert fact.verification == "stated"  # rose with the stronger source
    assert fact.confidence == pytest.approx(0.9)
    assert fact.last_confirmed_at > first.last_confirmed_at
    assert sorted(fact.sources.values_list("reference", flat=True)) == ["conv-1", "conv-2"]
    assert Fact.objects.filter(agent=agent).count() == 1


def test_confirming_never_lowers_verification(agent):
    first = state(agent, "Acme", verification="confirmed", confidence=0.9).fact
    state(agent, "Acme", verification="inferred", confidence=0.2)
    fact = refreshed(first)
    assert (fact.verification, fact.confidence) == ("confirmed", pytest.approx(0.9))


def test_different_value_at_least_as_trusted_supersedes_and_keeps_history(agent):
    old = state(agent, "Acme").fact
    result = state(agent, "Globex")  # same trust: stated, 1.0
    assert result.outcome == Outcome.SUPERSEDED
    assert result.other is not None
    assert result.other.pk == old.pk
    old = refreshed(old)
    assert old.status == Status.HISTORY
    assert old.believed_until == result.fact.believed_from
    assert current_values(agent) == ["Globex"]


def test_less_trusted_value_is_disputed_and_current_is_kept(agent):
    state(agent, "Acme", verification="stated", confidence=0.9)
    result = state(agent, "Globex", verification="inferred", confidence=0.99)
    assert result.outcome == Outcome.DISPUTED
    assert result.fact.status == Status.DISPUTED
    assert result.fact.believed_from is None
    assert current_values(agent) == ["Acme"]


def test_lower_confidence_at_same_verification_is_disputed(agent):
    state(agent, "Acme", confidence=0.9)
    assert state(agent, "Globex", confidence=0.5).outcome == Outcome.DISPUTED


def test_confirmed_beats_stated_whatever_the_confidence(agent):
    state(agent, "Acme", verification="stated", confidence=1.0)
    result = state(agent, "Globex", verification="confirmed", confidence=0.3)
    assert result.outcome == Outcome.SUPERSEDED


def test_a_disputed_value_stated_again_gains_the_source_and_can_win(agent):
    state(agent, "Acme", verification="stated", confidence=0.8)
    disputed = state(agent, "Globex", verification="inferred", confidence=0.9).fact
    again = state(agent, "globex", verification="confirmed", confidence=0.9)
    assert again.fact.pk == disputed.pk
    assert again.outcome == Outcome.SUPERSEDED
    assert refreshed(disputed).status == Status.CURRENT
    assert refreshed(disputed).sources.count() == 2
    assert current_values(agent) == ["Globex"]


def test_qualifier_makes_separate_slots(agent):
    state(agent, "alice@example.com", predicate="email", qualifier="work")
    state(agent, "alice@home.example", predicate="email", qualifier="home")
    assert sorted(current_values(agent, predicate="email")) == [
        "alice@example.com",
        "alice@home.example",
    ]


def test_users_have_separate_slots(agent):
    state(agent, "Acme", user="u1")
    state(agent, "Globex", user="u2")
    assert current_values(agent, user_ref="u1") == ["Acme"]
    assert current_values(agent, user_ref="u2") == ["Globex"]


def test_database_refuses_a_second_current_fact_in_a_slot(agent):
    fact = state(agent, "Acme").fact
    twin = Fact(
        agent=agent,
        user_ref=fact.user_ref,
        subject=fact.subject,
        predicate=fact.predicate,
        value="Globex",
        status=Status.CURRENT,
        recorded_at=fact.recorded_at,
        last_confirmed_at=fact.recorded_at,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        twin.save()


def test_accept_makes_the_disputed_value_current_and_the_old_one_history(agent):
    old = state(agent, "Acme").fact
    disputed = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=disputed, action="accept", actor="operator:ann")
    assert refreshed(disputed).status == Status.CURRENT
    assert refreshed(old).status == Status.HISTORY
    assert refreshed(old).believed_until is not None
    event = AuditEvent.objects.get(action=AuditAction.FACT_RESOLVE)
    assert (event.actor, event.details["action"]) == ("operator:ann", "accept")


def test_reject_keeps_the_current_value_and_the_rejected_record(agent):
    old = state(agent, "Acme").fact
    disputed = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=disputed, action="reject", actor="operator:ann", reason="wrong user")
    assert refreshed(disputed).status == Status.REJECTED
    assert refreshed(disputed).status_reason == "wrong user"
    assert refreshed(old).status == Status.CURRENT
    assert AuditEvent.objects.filter(action=AuditAction.FACT_RESOLVE).count() == 1


def test_only_disputed_facts_can_be_resolved(agent):
    fact = state(agent, "Acme").fact
    with pytest.raises(FactNotDisputed):
        resolve_fact(fact=fact, action="accept", actor="x")
    assert refreshed(fact).status == Status.CURRENT
    assert not AuditEvent.objects.exists()


def test_unknown_resolve_action_is_refused(agent):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    with pytest.raises(InvalidInput):
        resolve_fact(fact=disputed, action="maybe", actor="x")
    assert refreshed(disputed).status == Status.DISPUTED


def test_delete_is_soft_and_records_who_and_why(agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="operator:ann", reason="typo")
    fact = refreshed(fact)
    assert fact.status == Status.DELETED
    assert (fact.status_changed_by, fact.status_reason) == ("operator:ann", "typo")
    assert fact.believed_until is not None
    assert fact.sources.count() == 1
    event = AuditEvent.objects.get(action=AuditAction.FACT_DELETE)
    assert event.details["reason"] == "typo"
    assert current_values(agent) == []


def test_deleting_twice_is_a_conflict(agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="x")
    with pytest.raises(FactAlreadyDeleted):
        delete_fact(fact=fact, actor="x")


def _history_of_everything(agent, user="u1"):
    state(agent, "Acme", user=user)
    state(agent, "Globex", user=user)  # Acme -> history
    disputed = state(agent, "Initech", user=user, verification="inferred").fact
    rejected = state(agent, "Umbrella", user=user, verification="inferred").fact
    resolve_fact(fact=rejected, action="reject", actor="x")
    gone = state(agent, "Paris", user=user, predicate="city").fact
    delete_fact(fact=gone, actor="x", reason="asked")
    return disputed


def test_forget_user_erases_every_status_sources_and_events_and_leaves_a_receipt(agent):
    _history_of_everything(agent, "u1")
    state(agent, "Hooli", user="u2")
    receipt = forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="operator:ann")

    assert not Fact.objects.filter(user_ref="u1").exists()
    assert not FactSource.objects.filter(fact__user_ref="u1").exists()
    assert not AuditEvent.objects.filter(target_type="fact").exists()
    assert current_values(agent, user_ref="u2") == ["Hooli"]
    assert receipt.counts == {
        "facts": 5,
        "current": 1,
        "history": 1,
        "disputed": 1,
        "rejected": 1,
        "deleted": 1,
        "sources": 5,
        "audit_events": 2,
    }
    assert receipt.scope == {"user_hmac": user_digest("u1")}
    stored = ErasureReceipt.objects.get(pk=receipt.pk)
    text = str(stored.counts) + str(stored.scope) + stored.actor
    for erased in ["Acme", "Globex", "Initech", "Umbrella", "Paris", "employer", "said so"]:
        assert erased not in text
    forget_event = AuditEvent.objects.get(action=AuditAction.FACTS_FORGET)
    assert forget_event.target_id == str(receipt.pk)


def test_forget_subject_erases_only_that_subject(agent):
    state(agent, "Blue", subject="project-x", predicate="colour", user="")
    state(agent, "Acme")
    receipt = forget_facts(agent=agent, scope=forget_scope(subject="project-x"), actor="x")
    assert receipt.counts["facts"] == 1
    assert list(Fact.objects.values_list("value", flat=True)) == ["Acme"]


def test_forget_needs_a_scope_and_may_narrow_a_subject_to_one_user():
    with pytest.raises(InvalidInput) as neither:
        forget_scope()
    assert neither.value.field == "scope"
    assert forget_scope(user=" u1 ").as_dict() == {"user": "u1"}
    assert forget_scope(subject="acme").as_dict() == {"subject": "acme"}
    both = forget_scope(user="u1", subject="user")
    assert both.as_dict() == {"user": "u1", "subject": "user"}
    assert both.describe() == "subject 'user' of user 'u1'"


def test_forget_a_subject_of_one_user_erases_only_that_users_facts(agent):
    state(agent, "Acme")
    state(agent, "Paris", predicate="city")
    state(agent, "Hooli", user="u2")
    kept = state(agent, "Blue", subject="project-x", predicate="colour").fact
    delete_fact(fact=Fact.objects.get(value="Paris"), actor="x", reason="wrong")
    scope = forget_scope(user="u1", subject="user")
    coverage = forget_coverage(agent=agent, scope=scope)
    assert (coverage.facts, coverage.users, coverage.user_count) == (2, ["u1"], 1)
    receipt = forget_facts(agent=agent, scope=scope, actor="x")
    assert (receipt.scope, receipt.counts["facts"], receipt.counts["audit_events"]) == (
        {"user_hmac": user_digest("u1"), "subject": "user"},
        2,
        1,
    )
    assert sorted(Fact.objects.values_list("value", flat=True)) == ["Blue", "Hooli"]
    assert kept.user_ref == "u1"
    event = AuditEvent.objects.get(action=AuditAction.FACTS_FORGET)
    assert event.details["scope_kind"] == "user_subject"


def test_forgetting_the_user_subject_is_offered_for_the_facts_own_user_only(agent):
    about_u1 = state(agent, "Acme").fact
    state(agent, "Hooli", user="u2")
    state(agent, "Globex", user="")
    named = state(agent, "Blue", subject="project-x", predicate="colour").fact
    state(agent, "Red", subject="project-x", predicate="colour", user="u2")
    state(agent, "Big", subject="project-x", predicate="size", user="")
    assert subject_scope_of(about_u1) == ForgetScope(user="u1", subject="user")
    assert subject_scope_of(Fact.objects.get(value="Globex")) is None
    assert subject_scope_of(named) == ForgetScope(subject="project-x")
    coverage = forget_coverage(agent=agent, scope=ForgetScope(subject="project-x"))
    assert coverage == ForgetCoverage(facts=3, users=["u1", "u2"], user_count=2, without_user=1)


def test_forget_touches_only_its_agent(agent, other_agent):
    state(agent, "Acme")
    state(other_agent, "Acme")
    forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="x")
    assert Fact.objects.filter(agent=other_agent).count() == 1


def believed(agent, moment, **filters):
    """The values current at ``moment``: an as-of list shows every fact recorded by then,
    each with its status then."""
    filters.setdefault("statuses", ["current"])
    return [f.value for f in filter_facts(agent, FactFilters(as_of=moment, **filters))]


def test_as_of_shows_what_was_believed_before_and_after_a_change(agent):
    before_anything = timezone.now()
    state(agent, "Acme")
    after_first = timezone.now()
    state(agent, "Globex")
    after_change = timezone.now()
    assert believed(agent, before_anything) == []
    assert believed(agent, after_first) == ["Acme"]
    assert believed(agent, after_change) == ["Globex"]


def test_as_of_ignores_disputed_values_until_accepted(agent):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    while_disputed = timezone.now()
    resolve_fact(fact=disputed, action="accept", actor="x")
    after_accept = timezone.now()
    assert believed(agent, while_disputed) == ["Acme"]
    assert believed(agent, after_accept) == ["Globex"]


def test_as_of_stops_at_deletion_and_never_shows_rejected(agent):
    fact = state(agent, "Acme").fact
    rejected = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=rejected, action="reject", actor="x")
    before_delete = timezone.now()
    delete_fact(fact=fact, actor="x")
    assert believed(agent, before_delete) == ["Acme"]
    assert believed(agent, timezone.now()) == []


def test_get_fact_shows_sources_and_the_whole_history_chain(agent):
    state(agent, "Acme")
    state(agent, "Globex")
    latest = state(agent, "Initech").fact
    detail = fact_detail(latest)
    assert [h["value"] for h in detail["history"]] == ["Acme", "Globex", "Initech"]
    assert [h["status"] for h in detail["history"]] == ["history", "history", "current"]
    assert detail["sources"][0]["excerpt"] == "said so"


def test_freshness_falls_with_time_since_last_confirmation(agent):
    fact = state(agent, "Acme").fact  # employment: 180-day half-life
    Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=timezone.now() - timedelta(days=300))
    detail = fact_detail(fact)
    assert detail["freshness_label"] == "stale"
    state(agent, "Acme")  # re-confirmed
    assert fact_detail(fact)["freshness_label"] == "fresh"


def test_list_pages_with_a_cursor_newest_first(agent):
    for i in range(5):
        state(agent, f"v{i}", predicate=f"p{i}")
    first = list_facts(agent=agent, filters=FactFilters(), limit=2)
    second = list_facts(agent=agent, filters=FactFilters(), cursor=first.next_cursor, limit=2)
    third = list_facts(agent=agent, filters=FactFilters(), cursor=second.next_cursor, limit=2)
    values = [f.value for page in (first, second, third) for f in page.items]
    assert values == ["v4", "v3", "v2", "v1", "v0"]
    assert third.next_cursor is None


def test_list_filters_and_value_search(agent):
    state(agent, "Acme Rockets")
    state(agent, "Paris", predicate="city")
    state(agent, "Berlin", predicate="city", user="u2")
    assert [f.value for f in filter_facts(agent, FactFilters(predicate="city"))] == [
        "Berlin",
        "Paris",
    ]
    assert [f.value for f in filter_facts(agent, FactFilters(user="u2"))] == ["Berlin"]
    assert [f.value for f in filter_facts(agent, FactFilters(search="rocket"))] == ["Acme Rockets"]
    assert [f.value for f in filter_facts(agent, FactFilters(statuses=["history"]))] == []


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"value": ""}, InvalidInput),
        ({"value": "x" * 4097}, TooLarge),
        ({"qualifier": "q" * 256}, TooLarge),
        ({"subject": "  "}, InvalidInput),
        ({"confidence": float("nan")}, InvalidInput),
        ({"confidence": 1.5}, InvalidInput),
        ({"verification": "rumour"}, InvalidInput),
        ({"category": "gossip"}, InvalidInput),
        ({"value": "a\x00b"}, InvalidInput),
        ({"source": source(kind="telepathy")}, InvalidInput),
        ({"source": source(kind="operator", operator="")}, InvalidInput),
        (
            {"valid_from": timezone.now(), "valid_to": timezone.now() - timedelta(days=1)},
            InvalidInput,
        ),
    ],
)
def test_bad_assertions_are_refused_and_write_nothing(agent, overrides, error):
    with pytest.raises(error):
        state(agent, overrides.pop("value", "Acme"), **overrides)
    assert not Fact.objects.exists()
    assert not FactSource.objects.exists()
