"""Rebuild an agent's graph from its memories: what `dewee memory graph-rebuild` runs, for
memories stored before the graph existed or with DEWEE_GRAPH_ON_STORE off.

Idempotent: the agent's entities, mentions and built edges are deleted and built again in
order of id, in batches, by the same code as a store (memory.services.graph), so a rebuild
gives the graph the memories would have had if stored one batch at a time in that order.
Manual links (``linked_by``) are kept. Each batch is its own transaction: a rebuild stopped
midway leaves a graph of the memories it reached, and running it again finishes it.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.utils import timezone

from memory.models import EdgeType, Entity, EntityMention, Memory, MemoryEdge
from memory.services.entities import allowed_entities, memory_mentions
from memory.services.graph import NEIGHBOURS_MAX, build_graph, nearest_stored
from memory.services.policy import get_memory_policy
from tenancy.models import Agent

REBUILD_BATCH = 500


@dataclass
class GraphRebuilt:
    memories: int = 0
    entities: int = 0
    mentions: int = 0
    edges: int = 0


def rebuild_graph(
    *,
    agent: Agent,
    batch_size: int = REBUILD_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> GraphRebuilt:
    """Rebuild ``agent``'s entities, mentions and built edges; ``progress(done, total)``
    after each batch. Returns the counts of the rebuilt graph."""
    with transaction.atomic():
        Entity.objects.filter(agent=agent).delete()
        MemoryEdge.objects.filter(agent=agent).exclude(type=EdgeType.LINKED_BY).delete()
    policy = get_memory_policy(agent)
    total = Memory.objects.filter(agent=agent).count()
    done, last_id = 0, 0
    while True:
        memories = list(
            Memory.objects.filter(agent=agent, pk__gt=last_id)
            .order_by("id")
            .only("id", "agent", "content", "speaker", "session", "user_ref", "created_at")[
                :batch_size
            ]
        )
        if not memories:
            break
        vectors = _vectors(agent, [m.pk for m in memories])
        now = timezone.now()
        with transaction.atomic():
            nearest = nearest_stored(
                agent=agent,
                vectors=vectors,
                now=now,
                limit=4 * NEIGHBOURS_MAX,
                before_id=memories[0].pk,
            )
            for memory in memories:
                memory.agent = agent
            build_graph(
                agent=agent,
                memories=memories,
                mentions=[
                    memory_mentions(
                        found=allowed_entities(m.content, policy), speaker=m.speaker, policy=policy
                    )
                    for m in memories
                ],
                vectors=vectors,
                stored=nearest,
            )
        done += len(memories)
        last_id = memories[-1].pk
        if progress is not None:
            progress(done, total)
    return GraphRebuilt(
        memories=done,
        entities=Entity.objects.filter(agent=agent).count(),
        mentions=EntityMention.objects.filter(agent=agent).count(),
        edges=MemoryEdge.objects.filter(agent=agent).count(),
    )


def _vectors(agent: Agent, memory_ids: list[int]) -> np.ndarray:
    """The memories' stored vectors in order (zeros for one without: it has no neighbours)."""
    stored = dict(Memory.objects.filter(pk__in=memory_ids).values_list("id", "embedding"))
    dim = agent.embedding_dim or next((len(v) for v in stored.values() if v is not None), 1)
    return np.vstack(
        [
            np.asarray(stored[i], dtype=np.float32)
            if stored.get(i) is not None
            else np.zeros(dim, dtype=np.float32)
            for i in memory_ids
        ]
    )
