"""The steps every write of a fact is made of: lock its slot, take a fact out of use, make
one current. Asserting, resolving and deleting all use these, inside their transaction."""

from datetime import datetime

from django.db import connection

from facts.models import Change, Fact, FactPeriod, Status
from facts.slots import Slot


def lock_slot(slot: Slot) -> None:
    """Serialise writers of one slot until the transaction ends.

    PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the slot (a row lock
    cannot cover a slot that has no current fact yet). SQLite: transactions start with
    BEGIN IMMEDIATE (see settings), which already serialises every writer.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [slot.lock_key()])


def enter(
    fact: Fact, *, status: Status, change: Change, actor: str, now: datetime, new: bool = False
) -> None:
    """Record that ``fact`` has ``status`` from ``now`` on, begun by ``change``: its open
    period closes at ``now`` and a new one opens (FactPeriod). Every change of a fact's
    status goes through here, so an as-of read finds exactly one status at every instant.
    ``new``: the fact was just inserted, so it has no period to close."""
    if not new:
        FactPeriod.objects.filter(fact=fact, ended_at__isnull=True).update(ended_at=now)
    FactPeriod.objects.create(
        fact=fact, agent_id=fact.agent_id, status=status, change=change, started_at=now, actor=actor
    )


def retire(
    fact: Fact,
    *,
    status: Status,
    change: Change,
    actor: str,
    reason: str,
    now: datetime,
    holds_until: datetime | None = None,
) -> None:
    """Take ``fact`` out of use; a fact that was believed stops being believed now, and a
    deleted one keeps when (``deleted_at``, its last deletion).
    ``holds_until``: when its successor only holds from a later time ("I join Canva next
    month"), the retired value still holds in the world until then (its ``valid_to``). A
    value that was itself only to hold from after then ("from August I'll be at Stripe",
    then "from July I'm at Meta") never comes into force: its window closes where it would
    have begun."""
    fields = ["status", "status_changed_by", "status_reason"]
    if fact.status == Status.CURRENT:
        fact.believed_until = now
        fields.append("believed_until")
    if holds_until is not None and holds_until > now:
        holds_until = not_before_start(fact, holds_until)
        if fact.valid_to is None or fact.valid_to > holds_until:
            fact.valid_to = holds_until
            fields.append("valid_to")
    if fact.status == Status.DISPUTED:
        fact.disputed_until = now
        fields.append("disputed_until")
    if status == Status.DELETED:
        fact.deleted_at = now
        fields.append("deleted_at")
    fact.status = status
    fact.status_changed_by = actor
    fact.status_reason = reason
    fact.save(update_fields=fields)
    enter(fact, status=status, change=change, actor=actor, now=now)


def not_before_start(fact: Fact, ends: datetime) -> datetime:
    """Where ``fact`` can stop holding at ``ends`` the latest: not before its window begins
    (the window stays ordered; an empty window is a value that never held)."""
    if fact.valid_from is not None and ends < fact.valid_from:
        return fact.valid_from
    return ends


def make_current(fact: Fact, *, change: Change, actor: str, reason: str, now: datetime) -> None:
    """``fact`` becomes its slot's believed value from ``now``; the caller has retired the
    slot's previous current fact first (one current fact per slot, checked per statement)."""
    if fact.status == Status.DISPUTED:
        fact.disputed_until = now
    fact.status = Status.CURRENT
    fact.believed_from = now
    fact.believed_until = None
    fact.status_changed_by = actor
    fact.status_reason = reason
    fact.save(
        update_fields=[
            "status",
            "believed_from",
            "believed_until",
            "disputed_until",
            "status_changed_by",
            "status_reason",
        ]
    )
    enter(fact, status=Status.CURRENT, change=change, actor=actor, now=now)
