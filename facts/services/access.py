"""Serving facts to an agent counts as their use: the one place it is recorded (the facts
list and a fact read through the API, a turn's context). A person reading facts on the
dashboard, in the CLI or an export never counts."""

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from facts.models import Fact


def record_fact_access(fact_ids: list[int], *, now: datetime | None = None) -> int:
    """Count one access to each of ``fact_ids`` at ``now`` in one UPDATE (a fact accessed
    less than ACCESS_WRITE_INTERVAL ago is skipped: its count moves at most that often);
    returns how many were counted.

    As for memories (memory.services.access), on PostgreSQL the rows are locked in id order
    first, so that two agents' turns serving the same facts do not deadlock, and the update
    commits without waiting for its WAL flush: a crash may lose the last access counts,
    never anything a user wrote."""
    if not fact_ids:
        return 0
    now = now or timezone.now()
    facts = Fact.objects.filter(pk__in=fact_ids)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            list(facts.order_by("pk").select_for_update(no_key=True).values_list("pk", flat=True))
        return facts.mark_accessed(now)
