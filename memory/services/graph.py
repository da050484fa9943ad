"""The knowledge graph of an agent's memories, built as memories arrive: their entities and
mentions (memory.services.entities) and the edges between them (memory.services.graph_edges:
which edges, and why none joins two users' memories). By default
(DEWEE_GRAPH_ON_STORE=worker) store_memories queues a job when its transaction commits and
the worker runs ``memory.services.graph_rebuild.build_stored_graph`` on the new memories;
with "inline" it calls ``nearest_stored`` (graph_edges) before its transaction and
``build_graph`` inside it, all or nothing with the memories. Every way in (a store, a batch,
an import, a merge into a new memory) builds the same graph. "off" leaves it to ``dewee
memory graph-rebuild``.

A graph build and a merge of one agent take turns (lock_agent_graph): a merge locks the
memories it merges and then deletes their edges and mentions, a build locks edges and
entities and then references memories; in parallel, on PostgreSQL, each could wait for the
other. A delete of memories (memory.services.erasure.erase_memories) takes its turn too,
shared with other deletes: otherwise a build links a memory that a delete then takes away
(the build fails on the edge's foreign key), or commits the edge after the delete has
taken the memory's edges away (the delete fails on it).
"""

from collections import defaultdict
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

import numpy as np
from django.conf import settings
from django.core import checks
from django.db import connection, transaction
from django_q.tasks import async_task

from memory.models import EntityMention, GraphProgress, Memory, MemoryEdge
from memory.models.graph import NAMED_TYPES
from memory.services.entities import Mention, add_mentions
from memory.services.graph_edges import Neighbours, new_edges
from tenancy.models import Agent


class GraphBuild(StrEnum):
    WORKER = "worker"
    INLINE = "inline"
    OFF = "off"


def check_graph_setting(**kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse to start with a DEWEE_GRAPH_ON_STORE no store could follow."""
    if settings.DEWEE_GRAPH_ON_STORE in set(GraphBuild):
        return []
    return [
        checks.Error(
            f"DEWEE_GRAPH_ON_STORE is {settings.DEWEE_GRAPH_ON_STORE!r}",
            hint=f"Use one of: {', '.join(GraphBuild)}.",
            id="dewee.E111",
        )
    ]


def graph_build() -> GraphBuild:
    """Where a store's graph is built (DEWEE_GRAPH_ON_STORE; checked at startup)."""
    return GraphBuild(settings.DEWEE_GRAPH_ON_STORE)


def graph_on_store() -> bool:
    return graph_build() != GraphBuild.OFF


def queue_graph_build(*, agent: Agent) -> None:
    """In the store's own transaction: make sure a job will build the graph of the agent's
    new memories (memory.tasks.build_graph). One job per agent waits at a time, however many
    stores come in: the agent's GraphProgress row says whether one is queued, and is locked
    for it, so that the job (which clears the flag before it reads the memories) either sees
    this store's memories or leaves the flag for this store to queue a new job. Queued in
    the transaction, the worker sees the job exactly when the memories commit, and a
    rolled-back store queues nothing (after the commit, the ORM broker would also close and
    reopen the database connection on every store)."""
    GraphProgress.objects.get_or_create(agent=agent)
    with transaction.atomic():
        progress = GraphProgress.objects.select_for_update().get(agent=agent)
        if not progress.queued:
            GraphProgress.objects.filter(pk=progress.pk).update(queued=True)
            async_task("memory.tasks.build_graph", agent.pk, task_name="build graph", group="graph")


# Advisory lock class (the first key of pg_advisory_xact_lock's pair) of an agent's graph
# builds and merges: a number of our own, unlikely to meet anyone else's.
GRAPH_LOCK_CLASS = 0x6465_7765  # "dewe"


def lock_agent_graph(agent: Agent, *, shared: bool = False) -> None:
    """In the caller's transaction, first: wait until no other graph build or merge of
    ``agent`` is running, and keep the others waiting until this transaction ends.
    ``shared`` (a delete of memories): wait for builds and merges, and keep them waiting,
    but let other deletes run at the same time (each locks the rows it deletes).

    Why: a merge locks its memories (SELECT ... FOR UPDATE), then updates their entities'
    counts and deletes their edges (by cascade); a graph build deletes and locks edges,
    updates entities, then inserts edges, whose foreign keys take a share lock on the
    memories they join. In parallel on PostgreSQL each could hold what the other waits for:
    a deadlock, one of them rolled back. One per-agent lock taken first by both gives them
    one order. A transaction-scoped advisory lock rather than a row: it needs no row to
    exist and is released by commit or rollback. Merges take it after the quota rows they
    will check (memory.quotas.lock_quotas), as a store takes those first too; deletes take
    it (shared) before the rows they delete. SQLite serialises writers already."""
    if connection.vendor == "postgresql":
        function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {function}(%s, %s)", [GRAPH_LOCK_CLASS, agent.pk])


def build_graph(
    *,
    agent: Agent,
    memories: Sequence[Memory],
    mentions: Sequence[list[Mention]],
    vectors: np.ndarray,
    stored: Neighbours,
) -> None:
    """Entities, mentions and edges of newly stored memories (``mentions`` per memory, as
    the policy keeps them; ``stored``: nearest_stored's answer). In the caller's
    transaction. Edges to memories deleted since nearest_stored ran are skipped."""
    if not memories:
        return
    add_mentions(agent=agent, found=list(zip(memories, mentions, strict=True)))
    entity_ids: dict[int, set[int]] = defaultdict(set)
    named = EntityMention.objects.filter(
        memory__in=memories, entity__type__in=NAMED_TYPES
    ).values_list("memory_id", "entity_id")
    for memory_id, entity_id in named:
        entity_ids[memory_id].add(entity_id)
    edges = new_edges(
        agent=agent, memories=memories, vectors=vectors, stored=stored, entity_ids=entity_ids
    )
    targets = {e.target_id for e in edges} | {e.source_id for e in edges}
    # Alive, and whose: an edge between two users' memories is never made
    # (memory.services.graph_edges), whatever found it.
    users = {
        pk: user or None
        for pk, user in Memory.objects.filter(agent=agent, pk__in=targets).values_list(
            "pk", "user_ref"
        )
    }
    MemoryEdge.objects.bulk_create(
        [
            e
            for e in edges
            if e.source_id in users
            and e.target_id in users
            and users[e.source_id] == users[e.target_id]
        ],
        ignore_conflicts=True,
    )
