"""Settling many disputes at once (facts.services.bulk), the rules every interface gets:
two values of one slot are never accepted together, each fact stands or fails alone, and
Undo is offered only while the window of the earliest decision is open."""

from datetime import timedelta

import pytest

from facts.models import Status
from facts.services import Resolution, resolve_facts, undo_resolutions, undo_seconds_left
from tenancy.access import Access
from tenancy.models import AuditAction, AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db


def dispute(agent, value: str, **overrides):
    return state(agent, value, verification="inferred", **overrides).fact


def test_two_values_of_one_slot_are_not_accepted_together_and_the_rest_are(agent):
    state(agent, "Acme")
    globex, initech = dispute(agent, "Globex"), dispute(agent, "Initech", confidence=0.5)
    state(agent, "Paris", predicate="city")
    rome = dispute(agent, "Rome", predicate="city")
    access = Access(actor="ann", workspace=agent.workspace)
    settled = resolve_facts(
        access=access, fact_ids=[globex.pk, initech.pk, rome.pk], action=Resolution.ACCEPT
    )
    assert [f.pk for f in settled.done] == [rome.pk]
    assert len(settled.failed) == 1
    assert "2 values of" in settled.failed[0]
    assert "accept one of them" in settled.failed[0]
    assert refreshed(rome).status == Status.CURRENT
    assert refreshed(globex).status == refreshed(initech).status == Status.DISPUTED


def test_rejecting_many_of_one_slot_is_allowed_and_a_stranger_fact_fails_alone(agent, other_agent):
    state(agent, "Acme")
    globex, initech = dispute(agent, "Globex"), dispute(agent, "Initech", confidence=0.5)
    state(other_agent, "Hooli")
    theirs = dispute(other_agent, "Umbrella")
    access = Access(actor="ann", workspace=agent.workspace)
    settled = resolve_facts(
        access=access, fact_ids=[globex.pk, theirs.pk, initech.pk], action=Resolution.REJECT
    )
    assert [f.pk for f in settled.done] == [globex.pk, initech.pk]
    assert len(settled.failed) == 1
    assert refreshed(theirs).status == Status.DISPUTED


def test_undo_is_offered_while_the_window_of_the_earliest_decision_is_open(agent, settings):
    settings.DEWEE_UNDO_SECONDS = 30
    state(agent, "Acme")
    state(agent, "Paris", predicate="city")
    globex, rome = dispute(agent, "Globex"), dispute(agent, "Rome", predicate="city")
    access = Access(actor="ann", workspace=agent.workspace)
    ids = [globex.pk, rome.pk]
    resolve_facts(access=access, fact_ids=ids, action=Resolution.REJECT)
    assert 25 <= undo_seconds_left(actor="ann", fact_ids=ids) <= 30
    assert undo_seconds_left(actor="bob", fact_ids=ids) == 0  # not bob's decisions
    first = AuditEvent.objects.filter(action=AuditAction.FACT_RESOLVE, target_id=str(globex.pk))
    first.update(created_at=first.get().created_at - timedelta(seconds=31))
    assert undo_seconds_left(actor="ann", fact_ids=ids) == 0
    settled = undo_resolutions(access=access, fact_ids=ids)
    # Rome, decided last and still in its window, is undone; Globex's window has passed.
    assert [f.pk for f in settled.done] == [rome.pk]
    assert len(settled.failed) == 1
    assert refreshed(rome).status == Status.DISPUTED
    assert refreshed(globex).status == Status.REJECTED
