"""Undoing a decision on a disputed fact within its window, and reopening a rejected one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.exceptions import FactNotRejected, UndoRefused, ValueAlreadyCurrent
from facts.models import Fact
from facts.queries import FactFilters, filter_facts
from facts.services import delete_fact, reopen_fact, resolve_fact, undo_resolution
from tenancy.models import AuditAction, AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db

ME = "operator:mia"


def dispute(agent, value: str, **overrides) -> Fact:
    return state(agent, value, verification="inferred", **overrides).fact


def statuses(*facts: Fact) -> tuple[str, ...]:
    return tuple(refreshed(f).status for f in facts)


def test_undo_accept_puts_the_replaced_value_back(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="accept", actor=ME)
    assert statuses(globex, acme) == ("current", "history")
    undo_resolution(fact=globex, actor=ME)
    assert statuses(globex, acme) == ("disputed", "current")
    assert refreshed(acme).believed_until is None
    assert refreshed(globex).disputed_until is None
    event = AuditEvent.objects.get(action=AuditAction.FACT_UNDO)
    assert (event.actor, event.target_id) == (ME, str(globex.pk))
    assert event.details["undone"] == "accept"
    assert event.details["restored_fact"] == acme.pk
    # It can be settled again, and that decision undone in turn.
    resolve_fact(fact=globex, action="reject", actor=ME)
    undo_resolution(fact=globex, actor=ME)
    assert statuses(globex, acme) == ("disputed", "current")


def test_undo_accept_into_an_empty_slot_empties_it_again(agent):
    acme = state(agent, "Acme").fact
    lone = dispute(agent, "Globex")
    delete_fact(fact=acme, actor=ME)
    resolve_fact(fact=lone, action="accept", actor=ME)
    undo_resolution(fact=lone, actor=ME)
    assert statuses(lone) == ("disputed",)
    assert not Fact.objects.filter(agent=agent).current().exists()


def test_undo_reject_puts_the_fact_back_in_review(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor=ME)
    undo_resolution(fact=globex, actor=ME)
    assert statuses(globex, acme) == ("disputed", "current")
    assert AuditEvent.objects.get(action=AuditAction.FACT_UNDO).details["undone"] == "reject"


def test_undo_is_refused_once_the_window_passed(agent, settings):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor=ME)
    AuditEvent.objects.filter(action=AuditAction.FACT_RESOLVE).update(
        created_at=timezone.now() - timedelta(seconds=31)
    )
    with pytest.raises(UndoRefused, match=r"30 s .* have passed; reopen it instead"):
        undo_resolution(fact=globex, actor=ME)
    assert statuses(globex) == ("rejected",)
    settings.DEWEE_UNDO_SECONDS = 60
    undo_resolution(fact=globex, actor=ME)
    assert statuses(globex) == ("disputed",)


def test_undo_is_refused_when_the_slot_changed_since(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="accept", actor=ME)
    initech = dispute(agent, "Initech", confidence=0.1)  # waits against Globex now
    with pytest.raises(UndoRefused, match="changed since"):
        undo_resolution(fact=globex, actor=ME)
    assert statuses(globex, acme, initech) == ("current", "history", "disputed")
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_UNDO).exists()


def test_undo_is_refused_when_the_replaced_value_was_deleted(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="accept", actor=ME)
    delete_fact(fact=acme, actor=ME, reason="wrong")
    with pytest.raises(UndoRefused, match="changed since"):
        undo_resolution(fact=globex, actor=ME)
    assert statuses(globex) == ("current",)


def test_only_the_resolver_may_undo_and_only_a_resolution(agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    with pytest.raises(UndoRefused, match="no accept or reject"):
        undo_resolution(fact=globex, actor=ME)
    resolve_fact(fact=globex, action="reject", actor=ME)
    with pytest.raises(UndoRefused, match="Only operator:mia"):
        undo_resolution(fact=globex, actor="operator:sam")
    undo_resolution(fact=globex, actor=ME)
    with pytest.raises(UndoRefused, match="no accept or reject"):
        undo_resolution(fact=globex, actor=ME)


def test_reopen_against_a_more_trusted_current_value_waits_again(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor=ME)
    reopen_fact(fact=globex, actor=ME, reason="the user said so twice")
    assert statuses(globex, acme) == ("disputed", "current")
    event = AuditEvent.objects.get(action=AuditAction.FACT_REOPEN)
    assert event.details["outcome"] == "disputed"
    assert event.details["reason"] == "the user said so twice"
    assert refreshed(globex).status_reason == "the user said so twice"


def test_reopen_into_an_empty_slot_makes_it_current(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor=ME)
    delete_fact(fact=acme, actor=ME)
    fact = reopen_fact(fact=globex, actor=ME)
    assert statuses(fact) == ("current",)
    assert refreshed(fact).believed_from is not None
    assert AuditEvent.objects.get(action=AuditAction.FACT_REOPEN).details["outcome"] == "current"


def test_reopen_against_a_less_trusted_current_value_supersedes_it(agent):
    acme = state(agent, "Acme").fact
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="reject", actor=ME)
    # Since the rejection, a weaker value replaced Acme.
    Fact.objects.filter(pk=acme.pk).update(verification="inferred", confidence=0.2)
    fact = reopen_fact(fact=globex, actor=ME)
    assert statuses(fact, acme) == ("current", "history")
    event = AuditEvent.objects.get(action=AuditAction.FACT_REOPEN)
    assert (event.details["outcome"], event.details["replaced_fact"]) == ("superseded", acme.pk)


def test_reopen_refuses_what_is_not_rejected_or_equals_the_current_value(agent):
    acme = state(agent, "Acme").fact
    with pytest.raises(FactNotRejected, match="is current, not rejected"):
        reopen_fact(fact=acme, actor=ME)
    twin = dispute(agent, "Globex")
    resolve_fact(fact=twin, action="reject", actor=ME)
    Fact.objects.filter(pk=acme.pk).update(value="globex")
    with pytest.raises(ValueAlreadyCurrent):
        reopen_fact(fact=twin, actor=ME)
    assert statuses(twin) == ("rejected",)
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_REOPEN).exists()


def test_undone_accept_reads_as_believed_only_while_it_was(agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    resolve_fact(fact=globex, action="accept", actor=ME)
    accepted_at = refreshed(globex).believed_from
    assert accepted_at is not None
    undo_resolution(fact=globex, actor=ME)
    before = filter_facts(agent, FactFilters(as_of=accepted_at - timedelta(microseconds=1)))
    assert getattr(before.get(pk=globex.pk), "status_then") == "disputed"  # noqa: B009
    now = filter_facts(agent, FactFilters(as_of=timezone.now()))
    assert getattr(now.get(pk=globex.pk), "status_then") == "disputed"  # noqa: B009
