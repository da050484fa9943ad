"""The expiry pass: memories past their ``expires_at`` are deleted, with the facts learned
only from them, through the same path as a delete by hand (erase_memories)."""

from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from memory.models import Memory
from memory.quotas import lock_quotas
from memory.services.erasure import erase_memories
from memory.services.graph import lock_agent_graph
from memory.services.passes import PassResult
from tenancy.models import Agent

EXPIRY_ACTOR = "system:expiry"
# Memories deleted per transaction: one audit event each, and short locks, so a pass over a
# large backlog neither holds up recalls nor loses its progress when it is killed.
EXPIRY_BATCH = 1000


def expiry_pass(
    *,
    agents: QuerySet[Agent] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    batch_size: int = EXPIRY_BATCH,
) -> PassResult:
    """Delete every memory whose ``expires_at`` is at or before ``now`` (recall stops
    returning them at that moment; this reclaims them), agent by agent, ``batch_size`` per
    transaction. Each batch erases the facts learned only from its memories (facts with
    other sources keep those), bumps the agent's memory_version and writes one audit event
    (actor EXPIRY_ACTOR, reason "expired").

    Counts: ``expired`` memories and ``facts`` erased; ``touched`` = memories deleted.
    ``dry_run`` counts the expired memories and changes nothing (facts are not counted)."""
    now = now or timezone.now()
    expired = Memory.objects.expired(now)
    if agents is not None:
        expired = expired.filter(agent__in=agents)
    agent_ids = set(expired.values_list("agent_id", flat=True).distinct())
    result = PassResult()
    for agent in Agent.objects.filter(pk__in=agent_ids).order_by("pk"):
        mine = expired.filter(agent=agent)
        if dry_run:
            count = mine.count()
            result.add(agent.workspace_id, touched=count, expired=count)
            continue
        while True:
            with transaction.atomic():
                # The graph lock before the rows, in the order of every delete
                # (erase_memories), so that a graph build never waits for these rows while
                # this batch waits for it. The quotas' lock before both, as a store takes it.
                lock_quotas(agent)
                lock_agent_graph(agent, shared=True)
                # Locked, so a recall that extends one of them (spaced repetition) either
                # commits first, and the row no longer matches, or waits for the delete.
                ids = list(
                    mine.select_for_update()
                    .order_by("expires_at", "pk")
                    .values_list("pk", flat=True)[:batch_size]
                )
                if not ids:
                    break
                counts = erase_memories(
                    agent=agent, memory_ids=ids, actor=EXPIRY_ACTOR, reason="expired"
                )
            result.add(
                agent.workspace_id,
                touched=counts["memories"],
                expired=counts["memories"],
                facts=counts["facts"],
            )
    return result
