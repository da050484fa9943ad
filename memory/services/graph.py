"""The knowledge graph of an agent's memories, built as memories arrive: their entities and
mentions (memory.services.entities) and the edges between them. By default
(DEWEE_GRAPH_ON_STORE=worker) store_memories queues a job when its transaction commits and
the worker runs ``memory.services.graph_rebuild.build_stored_graph`` on the new memories;
with "inline" it calls ``nearest_stored`` before its transaction and ``build_graph`` inside
it, all or nothing with the memories. Every way in (a store, a batch, an import, a merge into
a new memory) builds the same graph. "off" leaves it to ``dewee memory graph-rebuild``.

Edges, each bounded per new memory so the graph stays O(n):

- ``precedes`` (earlier -> later, weight 1): the memory just before it in its session, by
  (created_at, id). Without a session: the agent's memory just before it with no session
  and the same user (none counts as one user), if that one was made at most
  CONVERSATION_GAP earlier. The speaker does not split a conversation: its turns alternate
  speakers.
- ``related_to`` (newer -> older, weight cosine): up to NEIGHBOURS_MAX nearest earlier
  memories with cosine >= RELATED_MIN_COSINE (the stored ones through recall's vector
  search, the batch's own by a matrix product).
- ``shares_entity`` (newer -> older, weight: entities shared): the SHARED_ENTITY_MAX most
  recently stored earlier memories that mention one of its named entities (people,
  organisations, places, products, untyped names; never dates, addresses or numbers), those
  sharing more entities first.
- ``supersedes`` (newer -> older, weight cosine): a related memory with cosine >=
  SUPERSEDES_MIN_COSINE that shares an entity with it and that it does not contradict
  (language.extraction.contradicts): a newer wording of the same thing. Recall demotes the
  older.
- ``linked_by``: only by hand (memory.services.links).

Users stay apart: no built edge joins memories of different users. A memory about a user
(``user_ref``) is joined only to memories about the same user, and a shared memory (no
user) only to other shared memories. (A shared memory could in principle link to anyone's
without leaking, but a user's memory linked from a shared one would be one hop from every
other user's walk; the simple rule is the safe one.) Candidates of other users are left out
before each edge kind picks its best few, so another user's memories never crowd out a
memory's own neighbours, and build_graph drops any edge whose ends are of two users as the
last word. So a newer wording by one user never ``supersedes`` (and so never demotes) a
memory of another.

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
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

import numpy as np
from django.conf import settings
from django.core import checks
from django.db import connection, transaction
from django.db.models import Q
from django_q.tasks import async_task

from language.extraction import contradicts
from language.moments import shifted
from memory.conversations import speaker
from memory.models import EdgeType, EntityMention, GraphProgress, Memory, MemoryEdge
from memory.models.graph import NAMED_TYPES
from memory.services.entities import Mention, add_mentions
from tenancy.models import Agent

RELATED_MIN_COSINE = 0.85
SUPERSEDES_MIN_COSINE = 0.92
NEIGHBOURS_MAX = 5
SHARED_ENTITY_MAX = 5
CONVERSATION_GAP = timedelta(minutes=30)

# Per new memory: (id of an earlier stored memory, cosine), best first.
Neighbours = list[list[tuple[int, float]]]


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


def user_q(user_ref: str | None) -> Q:
    """Memories of the same user as ``user_ref`` (None or "": the shared memories)."""
    if user_ref:
        return Q(user_ref=user_ref)
    return Q(user_ref__isnull=True) | Q(user_ref="")


def same_user(first: str | None, second: str | None) -> bool:
    return (first or None) == (second or None)


def nearest_stored(
    *,
    agent: Agent,
    vectors: np.ndarray,
    now: datetime,
    limit: int = NEIGHBOURS_MAX,
    before_id: int | None = None,
    users: Sequence[str | None] | None = None,
) -> Neighbours:
    """Before a batch is written: for each new vector, the agent's stored live memories
    with cosine >= RELATED_MIN_COSINE, at most NEIGHBOURS_MAX, best first. ``before_id``
    (a rebuild): only memories with a smaller id, among the ``limit`` nearest. ``users``
    (one per vector): only memories of that vector's user (none: shared ones only)."""
    if not agent.embedding_model:
        return [[] for _ in range(len(vectors))]
    # Imported here: importing memory.recall runs its package, whose pipeline imports
    # memory.services, which is still importing this module at that point.
    from memory.recall.vector_search import vector_search

    candidates = Memory.objects.filter(agent=agent, embedding__isnull=False).live(now)
    found = []
    for index, vector in enumerate(vectors):
        rows, filtered = candidates, False
        if users is not None:
            rows, filtered = candidates.filter(user_q(users[index])), True
        found.append(
            [
                (memory_id, score)
                for memory_id, score in vector_search(
                    agent, rows, vector, limit=limit, filtered=filtered, now=now
                )
                if score >= RELATED_MIN_COSINE and (before_id is None or memory_id < before_id)
            ][:NEIGHBOURS_MAX]
        )
    return found


def _conversation(memory: Memory) -> Q:
    """The memories of ``memory``'s conversation: its session, or with none, the agent's
    memories without a session about the same user (or about none)."""
    if memory.session_id is not None:
        return Q(session_id=memory.session_id)
    if memory.user_ref:
        return Q(session__isnull=True, user_ref=memory.user_ref)
    return Q(session__isnull=True, user_ref__isnull=True)


def _stored_before(agent: Agent, memory: Memory, batch_ids: list[int]) -> Memory | None:
    rows = Memory.objects.filter(agent=agent).filter(_conversation(memory))
    if memory.session_id is None:
        rows = rows.filter(created_at__gte=shifted(memory.created_at, -CONVERSATION_GAP))
    # The plain bound on created_at beside the OR is what lets the (agent, created_at) index
    # serve the lookup (memory.conversations does the same).
    return (
        rows.filter(
            Q(created_at__lt=memory.created_at) | Q(created_at=memory.created_at, pk__lt=memory.pk),
            created_at__lte=memory.created_at,
        )
        .exclude(pk__in=batch_ids)
        .order_by("-created_at", "-id")
        .only("id", "created_at")
        .first()
    )


def _precedes(agent: Agent, memories: Sequence[Memory]) -> list[MemoryEdge]:
    """The ``precedes`` edge into each new memory (rule in the module docstring). Two
    queries per conversation of the batch, and one per memory only when the batch goes back
    in time into a conversation (an import)."""
    batch_ids = [m.pk for m in memories]
    conversations: dict[tuple[object, ...], list[Memory]] = defaultdict(list)
    for memory in sorted(memories, key=lambda m: (m.created_at, m.pk)):
        key = (memory.session_id, None if memory.session_id else memory.user_ref)
        conversations[key].append(memory)
    edges = []
    for turns in conversations.values():
        went_back = (
            Memory.objects.filter(agent=agent, created_at__gt=turns[0].created_at)
            .filter(_conversation(turns[0]))
            .exclude(pk__in=batch_ids)
            .exists()
        )
        before: Memory | None = None
        for memory in turns:
            options = [before] if before is not None else []
            if before is None or went_back:
                stored = _stored_before(agent, memory, batch_ids)
                options += [stored] if stored is not None else []
            best = max(options, key=lambda m: (m.created_at, m.pk), default=None)
            gap = memory.created_at - best.created_at if best is not None else None
            if gap is not None and memory.session_id is None and gap > CONVERSATION_GAP:
                best = None
            if best is not None:
                edges.append(
                    MemoryEdge(
                        agent=agent, source_id=best.pk, target=memory, type=EdgeType.PRECEDES
                    )
                )
            before = memory
    return edges


def _shares_entity(
    agent: Agent, memories: Sequence[Memory], entity_ids: dict[int, set[int]]
) -> list[MemoryEdge]:
    """The ``shares_entity`` edges of each new memory: one indexed query per named entity
    and user of the batch (its latest mentions in that user's memories stored before the
    batch), the batch's own in memory."""
    first_id = min(m.pk for m in memories)
    earlier: dict[tuple[int, str | None], list[int]] = {}
    for memory in memories:
        user = memory.user_ref or None
        for entity_id in entity_ids.get(memory.pk, ()):
            if (entity_id, user) in earlier:
                continue
            earlier[(entity_id, user)] = list(
                EntityMention.objects.filter(entity_id=entity_id, memory_id__lt=first_id)
                .filter(
                    Q(memory__user_ref=user)
                    if user
                    else Q(memory__user_ref__isnull=True) | Q(memory__user_ref="")
                )
                .order_by("-memory_id")
                .values_list("memory_id", flat=True)[:SHARED_ENTITY_MAX]
            )
    in_batch: dict[tuple[int, str | None], list[int]] = defaultdict(list)
    edges = []
    for memory in sorted(memories, key=lambda m: m.pk):
        user = memory.user_ref or None
        shared: dict[int, int] = defaultdict(int)
        for entity_id in entity_ids.get(memory.pk, ()):
            key = (entity_id, user)
            for other in [*in_batch[key][-SHARED_ENTITY_MAX:], *earlier[key]]:
                shared[other] += 1
            in_batch[key].append(memory.pk)
        best = sorted(shared.items(), key=lambda item: (-item[1], -item[0]))[:SHARED_ENTITY_MAX]
        edges += [
            MemoryEdge(
                agent=agent, source=memory, target_id=other, type=EdgeType.SHARES_ENTITY, weight=n
            )
            for other, n in best
        ]
    return edges


def _similar(
    memories: Sequence[Memory], vectors: np.ndarray, stored: Neighbours
) -> list[list[tuple[int, float]]]:
    """Each new memory's nearest earlier memories (stored before the batch, or earlier in
    it, of its user), cosine >= RELATED_MIN_COSINE, at most NEIGHBOURS_MAX, best first."""
    matrix = np.asarray(vectors, dtype=np.float32)
    within = matrix @ matrix.T if len(memories) > 1 else np.zeros((1, 1))
    similar = []
    for i, memory in enumerate(memories):
        pairs = [(mid, score) for mid, score in stored[i] if mid != memory.pk]
        pairs += [
            (memories[j].pk, float(within[i, j]))
            for j in range(i)
            if within[i, j] >= RELATED_MIN_COSINE
            and same_user(memory.user_ref, memories[j].user_ref)
        ]
        pairs.sort(key=lambda pair: -pair[1])
        similar.append(pairs[:NEIGHBOURS_MAX])
    return similar


def _similarity_edges(
    agent: Agent,
    memories: Sequence[Memory],
    similar: list[list[tuple[int, float]]],
    entity_ids: dict[int, set[int]],
    previous: dict[int, int],
) -> list[MemoryEdge]:
    """``related_to`` and ``supersedes`` edges. Never to the turn just before a memory in
    its conversation (``previous``: later -> earlier, from the ``precedes`` edges): the
    context embedding put that turn's words into the memory's vector, so their cosine says
    they are neighbours, which ``precedes`` already says. A memory supersedes only what its
    own speaker said (or a memory of no speaker): another person's close wording is a reply,
    not a newer version."""
    edges = []
    close = {mid for pairs in similar for mid, score in pairs if score >= SUPERSEDES_MIN_COSINE}
    their_entities: dict[int, set[int]] = defaultdict(set)
    for memory_id, entity_id in EntityMention.objects.filter(memory_id__in=close).values_list(
        "memory_id", "entity_id"
    ):
        their_entities[memory_id].add(entity_id)
    texts: dict[int, tuple[str, str | None]] = {
        pk: (content, speaker)
        for pk, content, speaker in Memory.objects.filter(pk__in=close).values_list(
            "pk", "content", "speaker"
        )
    }
    for memory, pairs in zip(memories, similar, strict=True):
        for other, score in pairs:
            if previous.get(memory.pk) == other:
                continue
            content, speaker = texts.get(other, ("", None))
            edges.append(
                MemoryEdge(
                    agent=agent,
                    source=memory,
                    target_id=other,
                    type=EdgeType.RELATED_TO,
                    weight=score,
                )
            )
            if (
                score >= SUPERSEDES_MIN_COSINE
                and entity_ids.get(memory.pk, set()) & their_entities[other]
                and (not memory.speaker or not speaker or memory.speaker == speaker)
                and not contradicts(memory.content, content)
            ):
                edges.append(
                    MemoryEdge(
                        agent=agent,
                        source=memory,
                        target_id=other,
                        type=EdgeType.SUPERSEDES,
                        weight=score,
                    )
                )
    return edges


def _blended(memories: Sequence[Memory], previous: dict[int, int]) -> dict[int, int]:
    """Of ``previous`` (memory -> the turn before it), the pairs the context embedding put
    together in the memory's vector (memory.conversations.previous_content's rule): in a
    session, or without one when both turns say who spoke."""
    if not settings.DEWEE_EMBED_SESSION_CONTEXT:
        return {}
    earlier = {
        pk: speaker(said, metadata)
        for pk, said, metadata in Memory.objects.filter(pk__in=previous.values()).values_list(
            "pk", "speaker", "metadata"
        )
    }
    return {
        memory.pk: previous[memory.pk]
        for memory in memories
        if memory.pk in previous
        and (
            memory.session_id is not None
            or (speaker(memory.speaker, memory.metadata) and earlier.get(previous[memory.pk]))
        )
    }


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
    edges = _precedes(agent, memories)
    previous = _blended(memories, {e.target_id: e.source_id for e in edges})
    edges += _shares_entity(agent, memories, entity_ids)
    edges += _similarity_edges(
        agent, memories, _similar(memories, vectors, stored), entity_ids, previous
    )
    targets = {e.target_id for e in edges} | {e.source_id for e in edges}
    # Alive, and whose: an edge between two users' memories is never made (the module's
    # docstring), whatever found it.
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
