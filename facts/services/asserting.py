"""Asserting a fact: a claimed value meets its slot, and the trust rules decide whether it
confirms, supersedes or disputes the current value."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from dewee.metrics import count_dispute_opened, count_fact_written
from facts.exceptions import SlotBusy
from facts.models import Change, Fact, FactQuerySet, FactSource, Status
from facts.queries import fact_to_dict
from facts.rules import stronger_verification, trust_key
from facts.services.claims import CheckedClaim, Claim, SourceInput, check_claim
from facts.services.transitions import enter, lock_slot, make_current, retire
from language.text import normalise_value
from memory.quotas import QuotaWarning, Usage, check_quotas, lock_quotas
from tenancy.models import Agent

# Attempts before a contended slot is reported as busy. Each retry sees the committed
# winner of the previous race, so more than a couple are only needed under heavy load.
_SLOT_ATTEMPTS = 8


class Outcome(StrEnum):
    CREATED = "created"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"


@dataclass(frozen=True)
class AssertResult:
    fact: Fact
    outcome: Outcome
    # The fact this one replaced (superseded), or the current value it waits against
    # (disputed); None otherwise.
    other: Fact | None = None
    # Soft quotas the new fact went over (memory.quotas); it was written.
    warnings: tuple[QuotaWarning, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The answer every interface gives to an assert (REST, MCP)."""
        return {
            "outcome": self.outcome,
            "fact": fact_to_dict(self.fact),
            "other": fact_to_dict(self.other) if self.other else None,
        }


def _trusted_at_least_as(candidate: Fact | CheckedClaim, current: Fact) -> bool:
    return trust_key(candidate.verification, candidate.confidence) >= trust_key(
        current.verification, current.confidence
    )


def placement(candidate: Fact | CheckedClaim, current: Fact | None) -> Outcome:
    """Where a value other than the current one goes by the trust rules: into an empty slot
    (created), over a current value it is trusted at least as much as (superseded), or
    beside a more trusted one, to wait for review (disputed). Restoring a deleted fact
    (facts.services.restoring) places it by the same rule."""
    if current is None:
        return Outcome.CREATED
    if _trusted_at_least_as(candidate, current):
        return Outcome.SUPERSEDED
    return Outcome.DISPUTED


def _add_source(fact: Fact, claim: CheckedClaim, now: datetime) -> FactSource:
    return FactSource.objects.create(
        fact=fact,
        agent_id=fact.agent_id,
        kind=claim.source.kind,
        reference=claim.source.reference,
        excerpt=claim.source.excerpt,
        operator=claim.source.operator,
        memory=claim.memory,
        verification=claim.verification,
        confidence=claim.confidence,
        recorded_at=now,
    )


def _strengthen(fact: Fact, claim: CheckedClaim, now: datetime) -> None:
    """Another source for the same value: it may raise verification and confidence, and it
    counts as a re-confirmation for freshness."""
    fact.verification = stronger_verification(fact.verification, claim.verification)
    fact.confidence = max(fact.confidence, claim.confidence)
    fact.last_confirmed_at = now
    fields = ["verification", "confidence", "last_confirmed_at"]
    if fact.valid_from is None and claim.valid_from is not None:
        fact.valid_from = claim.valid_from
        fields.append("valid_from")
    if fact.valid_to is None and claim.valid_to is not None:
        fact.valid_to = claim.valid_to
        fields.append("valid_to")
    fact.save(update_fields=fields)
    _add_source(fact, claim, now)


def _hand_over(slot: FactQuerySet, *, starts: datetime) -> None:
    """A new value of the slot is in force from ``starts``: a value still in force after
    then, handed over to a later one ("from January I'll be at Stripe", then "I just started
    at Meta") or ending later ("my last day is June 30"), now ends there, so the slot has
    one value in force at any time."""
    slot.filter(status=Status.HISTORY, valid_to__gt=starts).filter(
        Q(valid_from__isnull=True) | Q(valid_from__lte=starts)
    ).update(valid_to=starts)


def _assert_in_locked_slot(agent: Agent, claim: CheckedClaim, actor: str) -> AssertResult:
    now = timezone.now()
    slot = Fact.objects.in_slot(claim.slot)
    # The slot's current value and those waiting beside it, in one read.
    waiting = list(slot.filter(status__in=[Status.CURRENT, Status.DISPUTED]).order_by("id"))
    current = next((f for f in waiting if f.status == Status.CURRENT), None)
    wanted = normalise_value(claim.value)

    if current is not None and normalise_value(current.value) == wanted:
        _strengthen(current, claim, now)
        return AssertResult(fact=current, outcome=Outcome.CONFIRMED)

    pending = next(
        (f for f in waiting if f.status == Status.DISPUTED and normalise_value(f.value) == wanted),
        None,
    )
    if pending is not None:
        return _back_pending(pending, slot=slot, current=current, claim=claim, actor=actor, now=now)
    return _record_new(agent, claim, slot=slot, current=current, actor=actor, now=now)


def _back_pending(
    pending: Fact,
    *,
    slot: FactQuerySet,
    current: Fact | None,
    claim: CheckedClaim,
    actor: str,
    now: datetime,
) -> AssertResult:
    """The value already waits for review: it gains the source, and wins the slot if the
    combined evidence now trusts it at least as much as the current value."""
    _strengthen(pending, claim, now)
    if current is None or _trusted_at_least_as(pending, current):
        if current is not None:
            retire(
                current,
                status=Status.HISTORY,
                change=Change.SUPERSEDED,
                actor=actor,
                reason="superseded",
                now=now,
                holds_until=pending.valid_from,
            )
        _hand_over(slot, starts=pending.valid_from or now)
        make_current(
            pending, change=Change.CORROBORATED, actor=actor, reason="corroborated", now=now
        )
        return AssertResult(fact=pending, outcome=Outcome.SUPERSEDED, other=current)
    return AssertResult(fact=pending, outcome=Outcome.DISPUTED, other=current)


def _record_new(
    agent: Agent,
    claim: CheckedClaim,
    *,
    slot: FactQuerySet,
    current: Fact | None,
    actor: str,
    now: datetime,
) -> AssertResult:
    """A value the slot does not hold yet: a new row, placed by the trust rules (current,
    the current value becoming history, or disputed beside it)."""
    # Only a new row counts against a facts quota: confirming a value held, or backing
    # one that waits, is never refused.
    warnings = tuple(check_quotas(agent=agent, adding=Usage(facts=1)))
    new = Fact(
        **claim.slot.lookup(),
        value=claim.value,
        valid_from=claim.valid_from,
        valid_to=claim.valid_to,
        category=claim.category,
        verification=claim.verification,
        confidence=claim.confidence,
        recorded_at=now,
        last_confirmed_at=now,
        status_changed_by=actor,
    )
    # The loaded agent, not only its id: readers of the result use fact.agent.
    new.agent = agent
    outcome = placement(claim, current)
    if outcome == Outcome.DISPUTED:
        new.status = Status.DISPUTED
        new.status_reason = "less trusted than the current value"
        count_dispute_opened()
    else:
        if current is not None:
            # Retire first: the one-current-per-slot index is checked per statement.
            retire(
                current,
                status=Status.HISTORY,
                change=Change.SUPERSEDED,
                actor=actor,
                reason="superseded",
                now=now,
                holds_until=claim.valid_from,
            )
        new.status = Status.CURRENT
        new.believed_from = now
        _hand_over(slot, starts=claim.valid_from or now)
    new.save()
    enter(new, status=Status(new.status), change=Change.RECORDED, actor=actor, now=now, new=True)
    _add_source(new, claim, now)
    return AssertResult(fact=new, outcome=outcome, other=current, warnings=warnings)


def _lost_slot_race(error: IntegrityError) -> bool:
    """Whether another writer made a value of the slot current first (the one-current-per-
    slot index): worth a retry. Any other constraint failing is not a race."""
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    if diag is not None:  # PostgreSQL names the constraint
        return getattr(diag, "constraint_name", None) == "fact_one_current_per_slot"
    return "UNIQUE constraint failed" in str(error)


def assert_fact(*, agent: Agent, claim: Claim, source: SourceInput, actor: str) -> AssertResult:
    """Record ``claim``'s value for its slot of ``agent``, learned from ``source``.

    Invariants: at most one current fact per slot; the same value (compared normalised)
    confirms the current fact and adds the source; a different value at least as trusted
    becomes current and the old one history; a less trusted value is stored disputed.
    Concurrent callers on one slot are serialised; a lost race is retried here, so callers
    only see ``slot_busy`` under extreme contention. A new fact row (not a confirmation)
    is checked against the ``facts`` quotas of the agent and its workspace: over a hard one
    it is QuotaExceeded and nothing is written; over a soft one the result's ``warnings``
    say so.
    """
    checked = check_claim(agent=agent, claim=claim, source=source)
    for _attempt in range(_SLOT_ATTEMPTS):
        try:
            with transaction.atomic():
                # The quotas' lock before the slot's, in the order of a store (which may
                # learn facts): a new fact checks them under the slot's lock.
                lock_quotas(agent)
                lock_slot(checked.slot)
                result = _assert_in_locked_slot(agent, checked, actor)
                count_fact_written(result.outcome.value)
                return result
        except IntegrityError as error:
            if not _lost_slot_race(error):
                raise  # a broken rule of the data is a bug to see, not a busy slot
            continue
    raise SlotBusy("The slot is being changed by other writers; retry the request")
