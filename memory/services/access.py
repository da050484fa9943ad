"""An access to memories (a recall, a read): counted, decay restarted, and the life of a
memory with an expiry extended by spaced repetition (its agent's policy)."""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import (
    Case,
    DateTimeField,
    DurationField,
    ExpressionWrapper,
    F,
    Value,
    When,
)
from django.db.models.functions import Least
from django.db.models.lookups import GreaterThan
from django.utils import timezone

from memory.models import Memory, MemoryQuerySet
from memory.services.policy import effective_policy
from memory.services.vectors import bump_memory_versions
from tenancy.models import Agent
from tenancy.validation import MAX_EXPIRES_AT

# What an access changes in a memory.
ACCESS_FIELDS = ("access_count", "last_accessed_at", "expires_at", "decay_base", "decay_from")


def record_access(
    memory_ids: list[int], *, now: datetime | None = None
) -> dict[int, dict[str, Any]]:
    """A recall or read counts as an access: count and time. Decay restarts: the curve
    starts again at ``now`` from the importance as the last decay pass left it (at most one
    pass interval old; the value itself is not changed).
    A memory with an expiry lives longer (spaced repetition): its deadline moves by its
    access count, this access included, x its agent's factor x base interval, so each
    recall buys more time than the one before, up to MAX_EXPIRES_AT.

    Returns each memory's ACCESS_FIELDS as this access left them, read back in the same
    transaction (one query for them all), so that a recall shows what it did.

    On PostgreSQL the update commits without waiting for its WAL flush: a crash may lose
    the last few access counts, never anything a user wrote, and recall stays fast. The
    rows are locked in id order first: an UPDATE locks them in the order it finds them on
    disk, which moves as rows are rewritten, and two recalls of the same memories then
    deadlocked (32 MCP sessions asking alike: 1 to 4% of calls failed busy)."""
    if not memory_ids:
        return {}
    now = now or timezone.now()
    memories = Memory.objects.filter(pk__in=memory_ids)
    access: dict[str, Any] = {
        "access_count": F("access_count") + 1,
        "last_accessed_at": now,
        "decay_base": F("importance"),
        "decay_from": now,
    }
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            # FOR NO KEY UPDATE, the lock the UPDATE itself takes: a plain FOR UPDATE would
            # also block the key-share locks of foreign-key checks (a graph build's edges
            # to these memories, checked at its commit) and deadlock with them instead.
            list(
                memories.order_by("pk").select_for_update(no_key=True).values_list("pk", flat=True)
            )
        extended = _access_with_repetition(memories, access)
        memories.exclude(agent_id__in=extended, expires_at__isnull=False).update(**access)
        if extended:
            # The vector cache of every process masks expired memories by their deadline.
            bump_memory_versions(extended)
        # Inside the transaction: the rows stay locked by the update, so what is read is
        # this access's result, not a later one's.
        return {
            pk: dict(zip(ACCESS_FIELDS, values, strict=True))
            for pk, *values in memories.values_list("pk", *ACCESS_FIELDS)
        }


def _access_with_repetition(memories: MemoryQuerySet, access: dict[str, Any]) -> list[int]:
    """Record the access of the TTL'd ones among ``memories`` whose agent's policy extends
    them, moving their deadlines in the same update; returns those agents' pks."""
    agent_pks = set(
        memories.filter(expires_at__isnull=False)
        .order_by()
        .values_list("agent_id", flat=True)
        .distinct()
    )
    extended = []
    for agent_pk, stored in Agent.objects.filter(pk__in=agent_pks).values_list(
        "pk", "memory_policy"
    ):
        step = effective_policy(stored or {}).repetition_step_seconds
        if step <= 0:
            continue
        memories.filter(agent_id=agent_pk, expires_at__isnull=False).update(
            **access, expires_at=_repeated_expiry(step)
        )
        extended.append(agent_pk)
    return extended


# The widest move an expiry can make: from year 1 to MAX_EXPIRES_AT.
_EXPIRY_SPAN = MAX_EXPIRES_AT - datetime.min.replace(tzinfo=UTC)


def _repeated_expiry(step_seconds: float) -> Case:
    """``expires_at + (access_count + 1) x step``, never past MAX_EXPIRES_AT. The sum is
    only computed where it stays below the cap (SQLite adds in Python, which cannot go
    past year 9999), and the count is capped so that the product stays a valid interval
    (a 64-bit count of microseconds) whatever the count and the step."""
    step = timedelta(seconds=step_seconds)
    steps_to_cap = _EXPIRY_SPAN // step + 1
    extension = ExpressionWrapper(
        Least(F("access_count") + 1, Value(steps_to_cap)) * Value(step),
        output_field=DurationField(),
    )
    cap = Value(MAX_EXPIRES_AT, output_field=DateTimeField())
    headroom = ExpressionWrapper(cap - F("expires_at"), output_field=DurationField())
    return Case(
        When(GreaterThan(extension, headroom), then=cap),
        default=ExpressionWrapper(F("expires_at") + extension, output_field=DateTimeField()),
        output_field=DateTimeField(),
    )
