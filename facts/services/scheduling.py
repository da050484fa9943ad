"""A change announced for a later date, then taken back or moved ("the move is off", "the
start got pushed to August 3"): the held future value is dropped, or starts on the new date,
and the value it was to take over from holds until then again (or for good)."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from facts.exceptions import ChangeNotPending
from facts.models import Change, Fact, Status
from facts.services.transitions import enter, lock_slot, not_before_start, retire


def _pending(fact: Fact, at: datetime) -> Fact:
    lock_slot(fact.slot)
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.CURRENT or fact.valid_from is None or fact.valid_from <= at:
        raise ChangeNotPending(f"Fact {fact.pk} is not a change still to take effect")
    return fact


def _handed_over_from(fact: Fact) -> Fact | None:
    """The value ``fact`` takes over from on its valid_from: held until exactly then."""
    return (
        Fact.objects.in_slot(fact.slot)
        .filter(status=Status.HISTORY, valid_to=fact.valid_from)
        .exclude(pk=fact.pk)
        .order_by("-id")
        .first()
    )


@transaction.atomic
def cancel_change(
    *, fact: Fact, actor: str, reason: str = "", at: datetime | None = None
) -> Fact | None:
    """Call off ``fact``, a value that was only to hold from a later date (as of ``at``,
    default now: the time the text was said). It never holds: history with an empty window.
    The value it was to take over from is current again and holds on (its belief resumes,
    as an undone decision's does); returned, or None when the slot held nothing before.
    Refused (``change_not_pending``) for a fact that is not a change still to come."""
    now = timezone.now()
    fact = _pending(fact, at or now)
    previous = _handed_over_from(fact)
    # Retire first: the one-current-per-slot index is checked per statement.
    retire(
        fact,
        status=Status.HISTORY,
        change=Change.CALLED_OFF,
        actor=actor,
        reason=reason or "called off",
        now=now,
    )
    fact.valid_to = fact.valid_from  # an empty window: it never held
    fact.save(update_fields=["valid_to"])
    if previous is None:
        return None
    # Its belief resumes from now; before, its periods say what it was.
    previous.status = Status.CURRENT
    previous.valid_to = None
    previous.believed_from = now
    previous.believed_until = None
    previous.status_changed_by = actor
    previous.status_reason = f"restored: the change to fact {fact.pk} was called off"
    previous.save(
        update_fields=[
            "status",
            "valid_to",
            "believed_from",
            "believed_until",
            "status_changed_by",
            "status_reason",
        ]
    )
    enter(previous, status=Status.CURRENT, change=Change.RESUMED, actor=actor, now=now)
    return previous


@transaction.atomic
def move_change(
    *, fact: Fact, starts: datetime, actor: str, reason: str = "", at: datetime | None = None
) -> Fact:
    """Move ``fact``, a value only to hold from a later date (as of ``at``, default now),
    to start at ``starts`` instead; the value it takes over from holds until then. Refused
    (``change_not_pending``) for a fact that is not a change still to come."""
    now = timezone.now()
    fact = _pending(fact, at or now)
    previous = _handed_over_from(fact)
    if fact.valid_to is not None and fact.valid_to < starts:
        raise ChangeNotPending(f"Fact {fact.pk} ends before {starts.isoformat()}")
    if previous is not None:
        previous.valid_to = not_before_start(previous, starts)
        previous.save(update_fields=["valid_to"])
    fact.valid_from = starts
    fact.status_changed_by = actor
    fact.status_reason = reason or "moved"
    fact.save(update_fields=["valid_from", "status_changed_by", "status_reason"])
    return fact
