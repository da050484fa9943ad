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

from memory.models import EdgeType, Entity, EntityMention, GraphProgress, Memory, MemoryEdge
from memory.quotas import forget_quota_counts, lock_quotas
from memory.services.entities import allowed_entities, memory_mentions, release_mentions
from memory.services.graph import build_graph, lock_agent_graph
from memory.services.graph_edges import NEIGHBOURS_MAX, Neighbours, nearest_stored
from memory.services.policy import MemoryPolicy, get_memory_policy
from tenancy.models import Agent, QuotaKind

REBUILD_BATCH = 500
# What one graph job of the worker builds before it hands over to a new job: batches of
# JOB_BATCH memories, JOB_BATCHES of them. A job stays a few seconds long, so that a cluster
# that stops (a worker died, a deploy) never waits long for it.
JOB_BATCH = 100
JOB_BATCHES = 2
# What a build reads of each memory.
_BUILT_FIELDS = (
    "id",
    "agent",
    "content",
    "speaker",
    "metadata",
    "session",
    "user_ref",
    "created_at",
)


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
        # The quotas' lock before the graph's, as a merge takes them (merging.lock_merge):
        # the entities an entities quota counts go, and are made again under it below.
        forget_quota_counts(agent=agent, kinds=[QuotaKind.ENTITIES])
        lock_agent_graph(agent)
        Entity.objects.filter(agent=agent).delete()
        MemoryEdge.objects.filter(agent=agent).exclude(type=EdgeType.LINKED_BY).delete()
    policy = get_memory_policy(agent)
    total = Memory.objects.filter(agent=agent).count()
    done, last_id = 0, 0
    while memories := _rebuild_batch(agent, policy, after_id=last_id, batch_size=batch_size):
        done += len(memories)
        last_id = memories[-1].pk
        if progress is not None:
            progress(done, total)
    GraphProgress.objects.update_or_create(agent=agent, defaults={"built_through": last_id})
    return GraphRebuilt(
        memories=done,
        entities=Entity.objects.filter(agent=agent).count(),
        mentions=EntityMention.objects.filter(agent=agent).count(),
        edges=MemoryEdge.objects.filter(agent=agent).count(),
    )


def _rebuild_batch(
    agent: Agent, policy: MemoryPolicy, *, after_id: int, batch_size: int
) -> list[Memory]:
    """One transaction of a rebuild: the graph of the ``batch_size`` memories after
    ``after_id``, which it returns (none: the rebuild is done)."""
    now = timezone.now()
    with transaction.atomic():
        lock_quotas(agent)
        lock_agent_graph(agent)
        # Read under the lock, which deletes take too: no memory of the batch goes
        # before its mentions and edges are committed.
        memories = list(
            Memory.objects.filter(agent=agent, pk__gt=after_id)
            .order_by("id")
            .only(*_BUILT_FIELDS)[:batch_size]
        )
        if not memories:
            return []
        vectors = _vectors(agent, [m.pk for m in memories])
        nearest = nearest_stored(
            agent=agent,
            vectors=vectors,
            now=now,
            limit=4 * NEIGHBOURS_MAX,
            before_id=memories[0].pk,
            users=[m.user_ref for m in memories],
        )
        _build(agent, memories, vectors, nearest, policy)
    return memories


# The edges a memory's graph build makes: from it (to earlier memories), and the precedes
# edge into it. Built again, they are deleted first.
_OWN_EDGES = (EdgeType.RELATED_TO, EdgeType.SHARES_ENTITY, EdgeType.SUPERSEDES)


def build_stored_graph(*, agent: Agent, memory_ids: list[int]) -> int:
    """The graph of memories already stored: their entities, mentions and edges, as a store
    with the graph inline would have built them. Safe to run twice: what an earlier run
    built for them is taken down first. Memories deleted since are skipped. Returns the
    number of memories built.

    The memories are read under the agent's graph lock, which every delete of memories
    takes too (memory.services.erasure.erase_memories): none of them, nor of those they
    are linked to, goes away before the edges and mentions are committed."""
    policy = get_memory_policy(agent)
    with transaction.atomic():
        # Before any row lock (a merge of the agent waits, or is waited for, whole), after
        # the quotas' (as a merge): what an earlier run built may go, new entities be made.
        lock_quotas(agent)
        lock_agent_graph(agent)
        memories = list(
            Memory.objects.filter(agent=agent, pk__in=memory_ids)
            .order_by("id")
            .only(*_BUILT_FIELDS)
        )
        if not memories:
            return 0
        ids = [m.pk for m in memories]
        vectors = _vectors(agent, ids)
        nearest = nearest_stored(
            agent=agent,
            vectors=vectors,
            now=timezone.now(),
            limit=4 * NEIGHBOURS_MAX,
            before_id=ids[0],
            users=[m.user_ref for m in memories],
        )
        release_mentions(agent=agent, memory_ids=ids)
        MemoryEdge.objects.filter(agent=agent, source_id__in=ids, type__in=_OWN_EDGES).delete()
        MemoryEdge.objects.filter(agent=agent, target_id__in=ids, type=EdgeType.PRECEDES).delete()
        _build(agent, memories, vectors, nearest, policy)
    return len(memories)


@dataclass
class GraphCaughtUp:
    memories: int = 0
    more: bool = False  # stopped at its batch limit: another job carries on


def build_pending_graph(*, agent: Agent, max_batches: int | None = None) -> GraphCaughtUp:
    """What the worker's job runs: the graph of the agent's memories stored since it was last
    built (GraphProgress.built_through), in id order and batches, each batch with its advance
    of the mark in one transaction. It clears the ``queued`` flag first, so that a store
    from now on queues a new job. Memories stored before the graph existed are built the
    same way, by the first jobs after an upgrade. At most ``max_batches`` batches per job: a
    long catch-up leaves room for the other jobs and goes on in a new one."""
    GraphProgress.objects.get_or_create(agent=agent)
    GraphProgress.objects.filter(agent=agent).update(queued=False)
    caught_up = GraphCaughtUp()
    for _ in range(JOB_BATCHES if max_batches is None else max_batches):
        with transaction.atomic():
            # First: build_stored_graph takes it again, and it must come before the row;
            # the quotas' lock before it, as build_stored_graph takes that first too.
            lock_quotas(agent)
            lock_agent_graph(agent)
            progress = GraphProgress.objects.select_for_update().get(agent=agent)
            ids = list(
                Memory.objects.filter(agent=agent, pk__gt=progress.built_through)
                .order_by("id")
                .values_list("id", flat=True)[:JOB_BATCH]
            )
            if not ids:
                return caught_up
            caught_up.memories += build_stored_graph(agent=agent, memory_ids=ids)
            progress.built_through = ids[-1]
            progress.save(update_fields=["built_through"])
    caught_up.more = Memory.objects.filter(
        agent=agent, pk__gt=GraphProgress.objects.get(agent=agent).built_through
    ).exists()
    return caught_up


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


def _build(
    agent: Agent,
    memories: list[Memory],
    vectors: np.ndarray,
    nearest: Neighbours,
    policy: MemoryPolicy,
) -> None:
    """build_graph for memories read back from the database: their mentions found anew in
    their text, as the policy keeps them."""
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
