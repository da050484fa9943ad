"""The edges a graph build (memory.services.graph.build_graph) makes for newly stored
memories, and how each kind finds them. Each kind is bounded per new memory, so the graph
stays O(n):

- ``precedes`` (earlier -> later, weight 1): the memory just before it in its session, by
  (created_at, id). Without a session: the agent's memory just before it with no session
  and the same user (none counts as one user), if that one was made at most
  CONVERSATION_GAP earlier. The speaker does not split a conversation: its turns alternate
  speakers.
- ``related_to`` (newer -> older, weight cosine): up to NEIGHBOURS_MAX nearest earlier
  memories with cosine >= RELATED_MIN_COSINE (the stored ones through recall's vector
  search, nearest_stored; the batch's own by a matrix product).
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
"""

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db.models import Q

from language.extraction import contradicts
from language.moments import shifted
from memory.models import EdgeType, EntityMention, Memory, MemoryEdge
from memory.sessions.conversations import speaker
from tenancy.models import Agent

RELATED_MIN_COSINE = 0.85
SUPERSEDES_MIN_COSINE = 0.92
NEIGHBOURS_MAX = 5
SHARED_ENTITY_MAX = 5
CONVERSATION_GAP = timedelta(minutes=30)

# Per new memory: (id of an earlier stored memory, cosine), best first.
Neighbours = list[list[tuple[int, float]]]


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
    # serve the lookup (memory.sessions.conversations does the same).
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
    together in the memory's vector (memory.sessions.conversations.previous_content's rule): in a
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


def new_edges(
    *,
    agent: Agent,
    memories: Sequence[Memory],
    vectors: np.ndarray,
    stored: Neighbours,
    entity_ids: dict[int, set[int]],
) -> list[MemoryEdge]:
    """Every edge of each kind into and out of newly stored ``memories`` (``stored``:
    nearest_stored's answer; ``entity_ids``: the named entities each mentions), not yet
    written, nor checked for memories deleted since or for two users' ends (build_graph)."""
    edges = _precedes(agent, memories)
    previous = _blended(memories, {e.target_id: e.source_id for e in edges})
    edges += _shares_entity(agent, memories, entity_ids)
    edges += _similarity_edges(
        agent, memories, _similar(memories, vectors, stored), entity_ids, previous
    )
    return edges
