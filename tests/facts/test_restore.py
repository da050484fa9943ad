"""Restoring a deleted fact: the trust rules place it as if it were asserted now against its
slot as it stands; audited; only a deleted fact; an erased one cannot come back."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.exceptions import FactNotDeleted, FactNotFound
from facts.models import Fact, Status
from facts.queries import get_fact
from facts.services import (
    RestoreOutcome,
    delete_fact,
    end_fact,
    forget_facts,
    forget_scope,
    resolve_fact,
    restore_fact,
)
from tenancy.access import Access
from tenancy.models import AuditAction, AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db


def current_values(agent):
    return list(Fact.objects.filter(agent=agent).current().values_list("value", flat=True))


def test_deleted_current_fact_of_an_empty_slot_comes_back_current(agent):
    fact = state(agent, "Acme").fact
    deleted = delete_fact(fact=fact, actor="ops", reason="typo")
    assert deleted.deleted_at is not None

    result = restore_fact(fact=deleted, actor="ops", reason="it was right")

    assert result.outcome == RestoreOutcome.CURRENT
    assert result.other is None
    fact = refreshed(fact)
    assert fact.status == Status.CURRENT
    assert fact.believed_from == fact.restored_at
    assert fact.believed_until is None
    assert fact.deleted_at == deleted.deleted_at  # the deletion stays dated
    assert fact.status_changed_by == "ops"
    assert current_values(agent) == ["Acme"]


def test_restored_value_as_trusted_supersedes_the_value_current_now(agent):
    old = state(agent, "Acme").fact
    delete_fact(fact=old, actor="ops")
    newer = state(agent, "Globex", verification="inferred", confidence=0.5).fact

    result = restore_fact(fact=old, actor="ops")

    assert result.outcome == RestoreOutcome.CURRENT
    assert result.other is not None
    assert result.other.pk == newer.pk
    newer = refreshed(newer)
    assert newer.status == Status.HISTORY
    assert newer.believed_until == refreshed(old).believed_from
    assert current_values(agent) == ["Acme"]


def test_restored_value_less_trusted_than_the_current_one_is_disputed(agent):
    old = state(agent, "Acme", verification="inferred", confidence=0.4).fact
    delete_fact(fact=old, actor="ops")
    confirmed = state(agent, "Globex", verification="confirmed").fact

    result = restore_fact(fact=old, actor="ops")

    assert result.outcome == RestoreOutcome.DISPUTED
    assert result.other is not None
    assert result.other.pk == confirmed.pk
    old = refreshed(old)
    assert old.status == Status.DISPUTED
    assert old.disputed_until is None  # it waits for review again
    assert current_values(agent) == ["Globex"]
    # ... and the review settles it as any disputed value.
    resolve_fact(fact=old, action="accept", actor="ops")
    assert current_values(agent) == ["Acme"]


def test_restored_value_the_current_fact_already_holds_stays_history(agent):
    first = state(agent, "Acme").fact
    delete_fact(fact=first, actor="ops")
    again = state(agent, "ACME ").fact

    result = restore_fact(fact=first, actor="ops")

    assert result.outcome == RestoreOutcome.HISTORY
    assert result.other is not None
    assert result.other.pk == again.pk
    assert refreshed(first).status == Status.HISTORY
    assert refreshed(again).status == Status.CURRENT


def test_restored_fact_whose_valid_window_ended_stays_history(agent):
    fact = state(agent, "Acme").fact
    ended = end_fact(fact=fact, actor="ops", at=timezone.now() - timedelta(days=1))
    delete_fact(fact=ended, actor="ops")

    result = restore_fact(fact=fact, actor="ops")

    assert result.outcome == RestoreOutcome.HISTORY
    assert current_values(agent) == []


def test_restore_is_audited_with_outcome_and_replaced_fact(agent):
    old = state(agent, "Acme").fact
    delete_fact(fact=old, actor="ops")
    newer = state(agent, "Globex").fact

    restore_fact(fact=old, actor="operator:mia", reason="the customer confirmed")

    event = AuditEvent.objects.get(action=AuditAction.FACT_RESTORE)
    assert (event.actor, event.target_id) == ("operator:mia", str(old.pk))
    assert event.target_type == "fact"
    assert event.agent_id == agent.pk
    assert event.details["outcome"] == "current"
    assert event.details["reason"] == "the customer confirmed"
    assert event.details["replaced_fact"] == newer.pk
    assert event.details["user"] == "u1"


@pytest.mark.parametrize("status", [Status.CURRENT, Status.HISTORY, Status.DISPUTED])
def test_only_a_deleted_fact_can_be_restored_and_nothing_is_written(agent, status):
    state(agent, "Acme", verification="confirmed")
    fact = state(agent, "Globex", verification="inferred").fact  # disputed
    if status == Status.CURRENT:
        fact = Fact.objects.get(agent=agent, status=Status.CURRENT)
    elif status == Status.HISTORY:
        resolve_fact(fact=fact, action="accept", actor="ops")
        fact = Fact.objects.get(agent=agent, status=Status.HISTORY)
    before = refreshed(fact)

    with pytest.raises(FactNotDeleted):
        restore_fact(fact=fact, actor="ops")

    after = refreshed(fact)
    assert (after.status, after.restored_at) == (before.status, None)
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).exists()


def test_restoring_twice_is_refused_the_second_time(agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    restore_fact(fact=fact, actor="ops")
    with pytest.raises(FactNotDeleted):
        restore_fact(fact=fact, actor="ops")
    assert AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).count() == 1


def test_a_fact_erased_by_forget_cannot_be_found_to_restore(agent):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="ops")
    with pytest.raises(FactNotFound):
        get_fact(access=Access(actor="ops"), fact_id=fact.pk)


def test_another_workspace_cannot_load_a_deleted_fact_to_restore(agent, other_workspace):
    fact = state(agent, "Acme").fact
    delete_fact(fact=fact, actor="ops")
    with pytest.raises(FactNotFound):
        get_fact(access=Access(actor="them", workspace=other_workspace), fact_id=fact.pk)
    assert refreshed(fact).status == Status.DELETED
