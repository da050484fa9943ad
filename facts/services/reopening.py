"""Taking a person's decision on a disputed fact back: undo an accept or a reject within a
short window, or reopen a rejected fact later. Each goes through the slot's lock and is
audited, like the decision itself."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from facts.exceptions import FactNotRejected, UndoRefused, ValueAlreadyCurrent
from facts.models import Change, Fact, Status
from facts.rules import trust_key
from facts.services.erasure import forget_keys
from facts.services.resolving import Resolution, _locked_fact
from facts.services.transitions import enter, make_current, retire
from language.text import normalise_value
from tenancy.audit import record_event
from tenancy.models import AuditAction, AuditEvent
from tenancy.validation import REASON_MAX_CHARS, clean_text

# The audit actions that change a fact's fate by hand: the latest one says what an undo
# would reverse (only an accept or a reject can be).
_DECISIONS = [
    AuditAction.FACT_RESOLVE,
    AuditAction.FACT_UNDO,
    AuditAction.FACT_REOPEN,
    AuditAction.FACT_RECONFIRM,
    AuditAction.FACT_RESTORE,
    AuditAction.FACT_DELETE,
    AuditAction.FACT_END,
]
# What an undo says of the latest event when it is no accept or reject.
_NOT_UNDOABLE = {
    AuditAction.FACT_UNDO: "its decision was already undone",
    AuditAction.FACT_REOPEN: "it was reopened since",
    AuditAction.FACT_RECONFIRM: "it was re-confirmed since",
    AuditAction.FACT_RESTORE: "it was restored since",
    AuditAction.FACT_DELETE: "it was deleted since",
    AuditAction.FACT_END: "it was ended since",
}


def undo_window() -> timedelta:
    return timedelta(seconds=settings.DEWEE_UNDO_SECONDS)


@dataclass(frozen=True)
class Decision:
    """The latest resolution of a fact: what was done, by whom, when, what it replaced."""

    action: Resolution
    actor: str
    at: datetime
    replaced_id: int | None


def _latest_event(fact: Fact) -> AuditEvent | None:
    return (
        AuditEvent.objects.filter(target_type="fact", target_id=str(fact.pk), action__in=_DECISIONS)
        .order_by("-created_at", "-id")
        .first()
    )


def _settled(event: AuditEvent | None) -> bool:
    """An accept or a reject (a re-confirmation logged as a resolve before it had its own
    action is neither)."""
    return (
        event is not None
        and event.action == AuditAction.FACT_RESOLVE
        and event.details.get("action") in {r.value for r in Resolution}
    )


def last_resolution(fact: Fact) -> Decision | None:
    """The fact's latest decision if it is an accept or a reject (not yet undone, reopened,
    re-confirmed, restored, deleted or ended); None otherwise. One indexed read of the
    audit log."""
    event = _latest_event(fact)
    if event is None or not _settled(event):
        return None
    return Decision(
        action=Resolution(event.details["action"]),
        actor=event.actor,
        at=event.created_at,
        replaced_id=event.details.get("replaced_fact"),
    )


def _changed_since(fact: Fact, moment: datetime, *, besides: list[int]) -> bool:
    """Whether another fact of ``fact``'s slot was recorded, believed, retired or settled
    after ``moment``: then the slot is not as the decision left it."""
    later = (
        Q(recorded_at__gt=moment)
        | Q(believed_from__gt=moment)
        | Q(believed_until__gt=moment)
        | Q(disputed_until__gt=moment)
    )
    others = Fact.objects.in_slot(fact.slot).exclude(pk__in=[fact.pk, *besides])
    return others.filter(later).exists()


def _refuse_unless_undoable(fact: Fact, decision: Decision | None, actor: str) -> None:
    if decision is None:
        event = _latest_event(fact)
        why = _NOT_UNDOABLE.get(AuditAction(event.action)) if event is not None else None
        if event is not None and why is None and not _settled(event):
            why = "it was re-confirmed since"  # logged as a resolve before fact.reconfirm
        raise UndoRefused(
            f"Fact {fact.pk} has no accept or reject to undo" + (f": {why}" if why else "")
        )
    if decision.actor != actor:
        raise UndoRefused(f"Only {decision.actor}, who settled fact {fact.pk}, may undo it")
    if timezone.now() - decision.at > undo_window():
        raise UndoRefused(
            f"The {settings.DEWEE_UNDO_SECONDS} s to undo the decision on fact {fact.pk} "
            "have passed" + ("; reopen it instead" if decision.action == Resolution.REJECT else "")
        )


@transaction.atomic
def undo_resolution(*, fact: Fact, actor: str) -> Fact:
    """Reverse ``actor``'s own accept or reject of ``fact``, within DEWEE_UNDO_SECONDS of it.

    Accepted: the fact waits again as disputed (it was believed from the accept until now)
    and the value it replaced is current again. Rejected: the fact waits again as disputed.
    Refused (``UndoRefused``) when the window passed, someone else decided, or the slot
    changed since (another fact recorded, believed, retired or settled after the decision;
    the fact or the value it replaced no longer as the decision left them): then a person
    decides again from the queue, or reopens a rejected fact.
    """
    fact = _locked_fact(fact)
    decision = last_resolution(fact)
    _refuse_unless_undoable(fact, decision, actor)
    assert decision is not None
    now = timezone.now()
    replaced = _replaced_as_decided(fact, decision)
    _back_to_review(fact, change=Change.UNDONE, actor=actor, now=now)
    if replaced is not None:
        _resume(replaced, undone=fact, actor=actor, now=now)
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_UNDO,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "undone": decision.action.value,
            "restored_fact": replaced.pk if replaced else None,
            **forget_keys(fact),
        },
    )
    return fact


def _replaced_as_decided(fact: Fact, decision: Decision) -> Fact | None:
    """The value an accept of ``fact`` replaced (None after a reject, or an accept into an
    empty slot), once the slot is seen as the decision left it; ``UndoRefused`` if not."""
    changed = UndoRefused(f"The slot of fact {fact.pk} changed since; it cannot be undone")
    replaced = None
    if decision.action == Resolution.ACCEPT:
        if fact.status != Status.CURRENT or fact.believed_from != fact.disputed_until:
            raise changed
        moment = fact.believed_from
        if decision.replaced_id is not None:
            replaced = Fact.objects.in_slot(fact.slot).filter(pk=decision.replaced_id).first()
            if replaced is None or replaced.status != Status.HISTORY:
                raise changed
            if replaced.believed_until != moment:
                raise changed
    else:
        if fact.status != Status.REJECTED:
            raise changed
        moment = fact.disputed_until
    assert moment is not None
    if _changed_since(fact, moment, besides=[replaced.pk] if replaced else []):
        raise changed
    return replaced


def _resume(replaced: Fact, *, undone: Fact, actor: str, now: datetime) -> None:
    """The value an undone accept replaced is current again."""
    # The replaced value's belief resumes from now: its periods keep that it was history
    # while the accepted value was believed (one current value at every instant).
    replaced.status = Status.CURRENT
    replaced.believed_from = now
    replaced.believed_until = None
    replaced.status_changed_by = actor
    replaced.status_reason = f"restored: accepting fact {undone.pk} was undone"
    replaced.save(
        update_fields=[
            "status",
            "believed_from",
            "believed_until",
            "status_changed_by",
            "status_reason",
        ]
    )
    enter(replaced, status=Status.CURRENT, change=Change.RESUMED, actor=actor, now=now)


def _back_to_review(fact: Fact, *, change: Change, actor: str, now: datetime) -> None:
    """``fact`` waits for a person again; a fact that was believed stops being believed
    (retired first: the slot's one current value is checked per statement)."""
    fields = ["status", "disputed_until", "status_changed_by", "status_reason"]
    if fact.status == Status.CURRENT:
        fact.believed_until = now
        fields.append("believed_until")
    fact.status = Status.DISPUTED
    fact.disputed_until = None
    fact.status_changed_by = actor
    fact.status_reason = "back to review"
    fact.save(update_fields=fields)
    enter(fact, status=Status.DISPUTED, change=change, actor=actor, now=now)


class ReopenOutcome(StrEnum):
    DISPUTED = "disputed"
    CURRENT = "current"
    SUPERSEDED = "superseded"


@transaction.atomic
def reopen_fact(*, fact: Fact, actor: str, reason: str = "") -> Fact:
    """Take a rejected fact back into use, any time after its rejection, with the trust
    rules applied again as if its value had just been stated (DESIGN.md, fact rules).

    The slot has no current value: the fact becomes current. Its current value is less
    trusted (confirmed > stated > inferred, then confidence): the fact becomes current and
    that value history. Otherwise it waits again as disputed beside the current value.
    Refused: a fact that is not rejected (``FactNotRejected``), and a value equal to the
    current one (``ValueAlreadyCurrent``: it would only repeat it).
    """
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    fact = _locked_fact(fact)
    if fact.status != Status.REJECTED:
        raise FactNotRejected(f"Fact {fact.pk} is {fact.status}, not rejected")
    current = Fact.objects.in_slot(fact.slot).current().first()
    if current is not None and normalise_value(current.value) == normalise_value(fact.value):
        raise ValueAlreadyCurrent(f"Fact {current.pk} already holds the value {current.value!r}")
    now = timezone.now()
    replaced = None
    if current is not None and trust_key(fact.verification, fact.confidence) < trust_key(
        current.verification, current.confidence
    ):
        outcome = ReopenOutcome.DISPUTED
        _back_to_review(fact, change=Change.REOPENED, actor=actor, now=now)
    else:
        outcome = ReopenOutcome.CURRENT if current is None else ReopenOutcome.SUPERSEDED
        if current is not None:
            replaced = current
            retire(
                current,
                status=Status.HISTORY,
                change=Change.SUPERSEDED,
                actor=actor,
                reason=f"replaced by reopened fact {fact.pk}",
                now=now,
            )
        make_current(
            fact, change=Change.REOPENED, actor=actor, reason=reason or "reopened", now=now
        )
    if reason and outcome == ReopenOutcome.DISPUTED:
        fact.status_reason = reason
        fact.save(update_fields=["status_reason"])
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_REOPEN,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "reason": reason,
            "outcome": outcome.value,
            "replaced_fact": replaced.pk if replaced else None,
            **forget_keys(fact),
        },
    )
    return fact
