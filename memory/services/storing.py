"""Storing memories: the all-or-nothing store of a batch (store_memories, or
store_memories_as for an agent named by its id), and the tags a memory carries: the
caller's, plus entity tags derived from its text. What a caller may say about a new memory,
and how it is checked: memory.services.memory_input; editing one: memory.services.editing.
"""

from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np
from django.db import transaction
from django.utils import timezone

from dewee.errors import DeweeError, InvalidInput, TooLarge
from language.entities import Entity, is_entity_tag
from memory.embeddings.engine import Embedder, get_embedder
from memory.models import Memory, MemoryTag, Session
from memory.quotas import QuotaWarning, Usage, check_quotas, memory_size
from memory.services.entities import allowed_entities, memory_mentions
from memory.services.graph import GraphBuild, build_graph, graph_build, queue_graph_build
from memory.services.graph_edges import Neighbours, nearest_stored
from memory.services.memory_input import CleanMemory, MemoryInput, clean_memory
from memory.services.policy import MemoryPolicy, get_memory_policy
from memory.services.sessions import record_session_activity
from memory.services.vectors import bump_memory_version, claim_embedding_model, embedding_text
from memory.sessions.conversations import previous_sessionless, speaker
from memory.signals import Learning, memories_stored
from tenancy.models import Agent, Workspace
from tenancy.services import ensure_agent
from tenancy.validation import clean_agent_id

BATCH_MAX = 1000


def _embedding_texts(agent: Agent, cleaned: list[CleanMemory]) -> list[str]:
    previous: dict[int, str] = {}
    session_ids = {c.session.pk for c in cleaned if c.session is not None}
    for session_id in session_ids:
        last = (
            Memory.objects.filter(agent=agent, session_id=session_id)
            .order_by("-id")
            .values_list("content", flat=True)
            .first()
        )
        if last is not None:
            previous[session_id] = last
    # Memories without a session: the turn before them in their sessionless conversation.
    sessionless = [
        (c.user, c.created_at, c.content, speaker(c.speaker, c.metadata))
        for c in cleaned
        if c.session is None
    ]
    before = iter(previous_sessionless(agent, sessionless) if sessionless else [])
    texts = []
    for c in cleaned:
        if c.session is None:
            texts.append(embedding_text(c.content, next(before)))
            continue
        texts.append(embedding_text(c.content, previous.get(c.session.pk)))
        previous[c.session.pk] = c.content
    return texts


def store_memories(
    *,
    agent: Agent,
    items: Sequence[MemoryInput],
    embedder: Embedder | None = None,
    learning: Learning | None = None,
    enforce_quotas: bool = True,
    quota_warnings: list[QuotaWarning] | None = None,
) -> list[Memory]:
    """Store a batch all-or-nothing: every item is validated (the error names the first
    failing item) and embedded before anything is written; then, in one transaction, the
    batch is checked against the agent's and workspace's quotas as a whole (over a hard
    one: QuotaExceeded, nothing written) and memories, their tags (with entity tags) and
    the session activity are written. Soft-quota warnings are appended to
    ``quota_warnings`` when it is given. ``enforce_quotas`` False is for the server's own
    writes (merges, idle-session summaries), which are counted but never refused.

    Then ``memories_stored`` is sent, so that facts are learned from them: as ``learning``
    says, or as the agent's policy says when it is None."""
    if not items:
        raise InvalidInput("items", "must hold at least one memory")
    if len(items) > BATCH_MAX:
        raise TooLarge("items", f"has {len(items)} memories; the limit is {BATCH_MAX}")
    now = timezone.now()
    sessions: dict[int, Session] = {}
    policy = get_memory_policy(agent)
    cleaned = _clean_batch(agent, items, now=now, sessions=sessions, policy=policy)
    embedder = embedder or get_embedder()
    vectors = embedder.embed(_embedding_texts(agent, cleaned))
    # Read before the transaction: a vector cache must never hold rows that may roll back.
    graph = graph_build()
    nearest = (
        nearest_stored(agent=agent, vectors=vectors, now=now, users=[c.user for c in cleaned])
        if graph == GraphBuild.INLINE
        else []
    )
    found = [allowed_entities(c.content, policy) for c in cleaned]

    with transaction.atomic():
        # First, so that the quota rows' lock is the first lock this transaction takes.
        warnings = check_quotas(
            agent=agent, adding=sum((c.size for c in cleaned), Usage()), enforce=enforce_quotas
        )
        claim_embedding_model(agent, embedder)
        memories = Memory.objects.bulk_create(_memory_rows(agent, cleaned, vectors, embedder, now))
        _write_derived(agent, memories, cleaned, found, policy, graph, vectors, nearest)
        bump_memory_version(agent)
        record_session_activity(session_ids=sessions, now=now)
    if quota_warnings is not None:
        quota_warnings.extend(warnings)
    if learning is None:
        learning = Learning.ASYNC if policy.extract_facts else Learning.OFF
    memories_stored.send(sender=Agent, agent=agent, memories=memories, learning=learning)
    return memories


def _clean_batch(
    agent: Agent,
    items: Sequence[MemoryInput],
    *,
    now: datetime,
    sessions: dict[int, Session],
    policy: MemoryPolicy,
) -> list[CleanMemory]:
    """Every item cleaned (memory.services.memory_input); the first that fails is the error,
    named by its index when the batch holds more than one."""
    cleaned = []
    for index, item in enumerate(items):
        try:
            cleaned.append(clean_memory(agent, item, now, sessions, policy))
        except DeweeError as exc:
            raise (exc.for_item(index) if len(items) > 1 else exc) from None
    return cleaned


def _memory_rows(
    agent: Agent,
    cleaned: list[CleanMemory],
    vectors: np.ndarray,
    embedder: Embedder,
    now: datetime,
) -> list[Memory]:
    """The batch's memories as rows to insert, each with its vector and its sizes."""
    return [
        Memory(
            agent=agent,
            session=c.session,
            user_ref=c.user or None,
            speaker=c.speaker,
            content=c.content,
            memory_type=c.memory_type,
            importance=c.importance,
            decay_base=c.importance,
            decay_from=c.last_accessed_at or c.created_at,
            metadata=c.metadata,
            source_refs=c.source_refs,
            ttl_seconds=c.ttl_seconds,
            expires_at=c.expires_at,
            created_at=c.created_at,
            updated_at=now,
            access_count=c.access_count,
            last_accessed_at=c.last_accessed_at,
            embedding=vector,
            embedding_model=embedder.model_id,
            stored_bytes=c.size.storage_bytes,
            metadata_bytes=c.size.metadata_bytes,
        )
        for c, vector in zip(cleaned, vectors, strict=True)
    ]


def _write_derived(
    agent: Agent,
    memories: list[Memory],
    cleaned: list[CleanMemory],
    found: list[list[Entity]],
    policy: MemoryPolicy,
    graph: GraphBuild,
    vectors: np.ndarray,
    nearest: Neighbours,
) -> None:
    """In the store's transaction, what the new memories derive: their tag rows (the
    caller's tags and the entity tags ``found`` in each text), and their graph, built here
    or queued for the worker as DEWEE_GRAPH_ON_STORE says (``nearest``: nearest_stored's
    answer when it is built here)."""
    MemoryTag.objects.bulk_create(
        [
            row
            for m, c, entities in zip(memories, cleaned, found, strict=True)
            for row in tag_rows(m, c.tags, entities)
        ]
    )
    if graph == GraphBuild.INLINE:
        build_graph(
            agent=agent,
            memories=memories,
            mentions=[
                memory_mentions(found=entities, speaker=c.speaker, policy=policy)
                for c, entities in zip(cleaned, found, strict=True)
            ],
            vectors=vectors,
            stored=nearest,
        )
    if graph == GraphBuild.WORKER:
        queue_graph_build(agent=agent)


def store_memories_as(
    *,
    workspace: Workspace,
    agent_id: str,
    items: Sequence[MemoryInput],
    learning: Learning | None = None,
    quota_warnings: list[QuotaWarning] | None = None,
) -> list[Memory]:
    """Store into the agent ``agent_id`` of ``workspace``, which its first memory creates.
    A new agent is created in the same transaction as its memories, so a refused first
    batch (invalid, or over a quota) leaves no agent behind. Only ``workspace``'s agents are
    looked at: another workspace's agent of the same id is neither written nor revealed."""
    agent = Agent.objects.in_workspace(workspace).with_id(clean_agent_id(agent_id))
    if agent is None:
        with transaction.atomic():
            agent = ensure_agent(workspace=workspace, agent_id=agent_id)
            return store_memories(
                agent=agent, items=items, learning=learning, quota_warnings=quota_warnings
            )
    return store_memories(
        agent=agent, items=items, learning=learning, quota_warnings=quota_warnings
    )


def memory_size_of(memory: Memory, tags: list[str]) -> Usage:
    """``memory`` as quotas count it, with these user ``tags``."""
    return memory_size(
        content=memory.content,
        metadata=memory.metadata,
        tags=tags,
        source_refs=memory.source_refs,
        user=memory.user_ref,
        speaker=memory.speaker,
    )


def tag_rows(memory: Memory, tags: Iterable[str], entities: list[Entity]) -> list[MemoryTag]:
    """The tag rows of ``memory``: the caller's ``tags``, then the tags of ``entities``."""
    entity_tags = [entity.tag[:200] for entity in entities]
    names = dict.fromkeys([*tags, *entity_tags])
    return [MemoryTag(memory=memory, agent_id=memory.agent_id, name=name) for name in names]


def user_tags(memory: Memory) -> list[str]:
    """The tags a caller gave (entity tags are derived, not given)."""
    return [t for t in memory_tags(memory) if not is_entity_tag(t)]


def memory_tags(memory: Memory) -> list[str]:
    rows = getattr(memory, "_prefetched_objects_cache", {}).get("tag_rows")
    if rows is None:
        rows = memory.tag_rows.all()
    return [row.name for row in sorted(rows, key=lambda r: r.pk or 0)]
