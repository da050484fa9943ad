"""Storing memories and editing one: what a caller may say about a new memory (MemoryInput)
and how it is checked, the all-or-nothing store of a batch (store_memories, or
store_memories_as for an agent named by its id), update_memory, and the tags a memory
carries: the caller's, plus entity tags derived from its text.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import DeweeError, InvalidInput, TooLarge
from language.entities import SPEAKER_MAX_CHARS, Entity, is_entity_tag, speaker_of
from memory.conversations import previous_sessionless, speaker
from memory.embeddings.engine import Embedder, get_embedder
from memory.exceptions import MemoryNotFound, SessionNotFound
from memory.models import Memory, MemoryTag, MemoryType, Session, is_expired
from memory.quotas import QuotaWarning, Usage, check_quotas, memory_size
from memory.services.entities import (
    add_mentions,
    allowed_entities,
    memory_mentions,
    release_mentions,
)
from memory.services.graph import (
    GraphBuild,
    build_graph,
    graph_build,
    graph_on_store,
    nearest_stored,
    queue_graph_build,
)
from memory.services.policy import MemoryPolicy, get_memory_policy
from memory.services.sessions import record_session_activity
from memory.services.vectors import bump_memory_version, claim_embedding_model, embedding_text
from memory.signals import Learning, memories_stored
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, Workspace
from tenancy.services import ensure_agent
from tenancy.validation import (
    CONTENT_MAX_CHARS,
    MAX_EXPIRES_AT,
    TTL_MAX_SECONDS,
    clean_agent_id,
    clean_choice,
    clean_metadata,
    clean_refs,
    clean_tags,
    clean_text,
    clean_unit_interval,
    clean_user,
)

BATCH_MAX = 1000


@dataclass(frozen=True)
class MemoryInput:
    """What a caller may say about a new memory; every field but content has a default."""

    content: str
    memory_type: str = MemoryType.EPISODIC
    importance: float = 0.5
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    session_id: int | None = None
    # The user the memory is about; None: its session's user, if it has a session.
    user: str | None = None
    # Who said it; None: read from a leading "Name: text"; "": none.
    speaker: str | None = None
    ttl_seconds: int | None = None
    expires_at: datetime | None = None
    source_refs: list[str] | None = None
    created_at: datetime | None = None
    # Kept by an import so that an export/import round trip loses nothing (nor gains: an
    # imported memory without an expiry does not take the agent's default TTL).
    access_count: int = 0
    last_accessed_at: datetime | None = None
    use_default_ttl: bool = True


@dataclass(frozen=True)
class _CleanMemory:
    content: str
    memory_type: str
    importance: float
    tags: list[str]
    metadata: dict[str, Any]
    session: Session | None
    user: str
    speaker: str | None
    ttl_seconds: int | None
    expires_at: datetime | None
    source_refs: list[str]
    created_at: datetime
    access_count: int
    last_accessed_at: datetime | None
    size: Usage


def _clean_expiry(
    ttl_seconds: object, expires_at: datetime | None, now: datetime
) -> tuple[int | None, datetime | None]:
    """``ttl_seconds`` alone sets the deadline from now; with ``expires_at`` too (an import)
    the deadline is kept and the TTL stays as the memory's nominal lifetime. A deadline
    past MAX_EXPIRES_AT is stored as MAX_EXPIRES_AT."""
    if ttl_seconds is not None:
        if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int):
            raise InvalidInput("ttl_seconds", "must be a whole number of seconds")
        if not 1 <= ttl_seconds <= TTL_MAX_SECONDS:
            raise InvalidInput("ttl_seconds", f"must be between 1 and {TTL_MAX_SECONDS}")
    if is_expired(expires_at, now):
        raise InvalidInput("expires_at", "must be in the future")
    if ttl_seconds is not None and expires_at is None:
        expires_at = now + timedelta(seconds=ttl_seconds)
    if expires_at is not None:
        expires_at = min(expires_at, MAX_EXPIRES_AT)
    return ttl_seconds, expires_at


def _session_of(agent: Agent, session_id: object, cache: dict[int, Session]) -> Session | None:
    if session_id is None:
        return None
    if isinstance(session_id, bool) or not isinstance(session_id, int):
        raise InvalidInput("session_id", "must be a session id (an integer)")
    if session_id not in cache:
        session = Session.objects.filter(agent=agent, pk=session_id).first()
        if session is None:
            raise SessionNotFound(f"Session {session_id} not found for this agent")
        cache[session_id] = session
    return cache[session_id]


def _memory_user(user: object, session: Session | None) -> str:
    """Whom a memory is about: the user given with it, else its session's. A user that
    differs from the session's is refused: a conversation is with one user."""
    session_user = session.user_ref if session is not None else ""
    if user is None:
        return session_user
    user = clean_user(user)
    if session_user and user and user != session_user:
        raise InvalidInput(
            "user", f"differs from the user of session {session.pk if session else ''}"
        )
    return user or session_user


def _speaker(speaker: object, content: str) -> str | None:
    """The speaker given (trimmed; "" for none), or the one the text opens with."""
    if speaker is None:
        return speaker_of(content)
    return clean_text(speaker, field="speaker", max_chars=SPEAKER_MAX_CHARS, required=False) or None


def _clean_memory(
    agent: Agent,
    item: MemoryInput,
    now: datetime,
    sessions: dict[int, Session],
    policy: MemoryPolicy,
) -> _CleanMemory:
    content = clean_text(item.content, field="content", max_chars=CONTENT_MAX_CHARS)
    ttl_seconds = item.ttl_seconds
    if ttl_seconds is None and item.expires_at is None and item.use_default_ttl:
        ttl_seconds = policy.default_ttl_seconds.get(str(item.memory_type))
    ttl_seconds, expires_at = _clean_expiry(ttl_seconds, item.expires_at, now)
    created_at = item.created_at or now
    if created_at > now + timedelta(minutes=5):
        raise InvalidInput("created_at", "must not be in the future")
    if isinstance(item.access_count, bool) or not isinstance(item.access_count, int):
        raise InvalidInput("access_count", "must be a whole number")
    if item.access_count < 0:
        raise InvalidInput("access_count", "must not be negative")
    session = _session_of(agent, item.session_id, sessions)
    tags = clean_tags(item.tags)
    metadata = clean_metadata(item.metadata)
    user = _memory_user(item.user, session)
    speaker = _speaker(item.speaker, content)
    source_refs = clean_refs(item.source_refs)
    return _CleanMemory(
        content=content,
        memory_type=clean_choice(item.memory_type, field="memory_type", choices=MemoryType.values),
        importance=clean_unit_interval(item.importance, field="importance"),
        tags=tags,
        metadata=metadata,
        session=session,
        user=user,
        speaker=speaker,
        ttl_seconds=ttl_seconds,
        expires_at=expires_at,
        source_refs=source_refs,
        created_at=created_at,
        access_count=item.access_count,
        last_accessed_at=item.last_accessed_at,
        size=memory_size(
            content=content,
            metadata=metadata,
            tags=tags,
            source_refs=source_refs,
            user=user,
            speaker=speaker,
        ),
    )


def _embedding_texts(agent: Agent, cleaned: list[_CleanMemory]) -> list[str]:
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
    cleaned = []
    for index, item in enumerate(items):
        try:
            cleaned.append(_clean_memory(agent, item, now, sessions, policy))
        except DeweeError as exc:
            raise (exc.for_item(index) if len(items) > 1 else exc) from None
    embedder = embedder or get_embedder()
    vectors = embedder.embed(_embedding_texts(agent, cleaned))
    # Read before the transaction: a vector cache must never hold rows that may roll back.
    graph = graph_build()
    inline = graph == GraphBuild.INLINE
    nearest = (
        nearest_stored(agent=agent, vectors=vectors, now=now, users=[c.user for c in cleaned])
        if inline
        else []
    )
    found = [allowed_entities(c.content, policy) for c in cleaned]

    with transaction.atomic():
        # First, so that the quota rows' lock is the first lock this transaction takes.
        warnings = check_quotas(
            agent=agent, adding=sum((c.size for c in cleaned), Usage()), enforce=enforce_quotas
        )
        claim_embedding_model(agent, embedder)
        memories = Memory.objects.bulk_create(
            [
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
        )
        MemoryTag.objects.bulk_create(
            [
                row
                for m, c, entities in zip(memories, cleaned, found, strict=True)
                for row in _tag_rows(m, c.tags, entities)
            ]
        )
        if inline:
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
        bump_memory_version(agent)
        record_session_activity(session_ids=sessions, now=now)
    if quota_warnings is not None:
        quota_warnings.extend(warnings)
    if learning is None:
        learning = Learning.ASYNC if policy.extract_facts else Learning.OFF
    memories_stored.send(sender=Agent, agent=agent, memories=memories, learning=learning)
    return memories


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


_UNSET: Any = object()


def update_memory(
    *,
    memory: Memory,
    content: str = _UNSET,
    memory_type: str = _UNSET,
    importance: float = _UNSET,
    tags: list[str] = _UNSET,
    metadata: dict[str, Any] = _UNSET,
    embedder: Embedder | None = None,
    quota_warnings: list[QuotaWarning] | None = None,
    actor: str | None = None,
) -> Memory:
    """Change what is given, leave the rest; all or nothing. Everything is validated, and
    new content embedded, before anything is written; then the memory's row is locked and
    the memory, its tags (new content is re-tagged; the keyword index follows by trigger or
    generated column), the vector cache's version and its session's activity are written
    in one transaction. An edit is activity of the memory's session. An edit that grows the
    memory is checked against the quotas by how much it grows it (QuotaExceeded over a hard
    one; soft warnings are appended to ``quota_warnings``); one that shrinks it never is.
    A memory deleted (or merged away) meanwhile is MemoryNotFound. With an ``actor`` (a
    person or an API key), the edit is audited in the same transaction (``memory.update``:
    the fields given, importance before and after, how many tags came and went; never the
    content or the tags themselves, which the memory's own erasure must not leave behind).
    Returns the memory as stored."""
    now = timezone.now()
    changes: dict[str, Any] = {}
    if memory_type is not _UNSET:
        changes["memory_type"] = clean_choice(
            memory_type, field="memory_type", choices=MemoryType.values
        )
    if importance is not _UNSET:
        value = clean_unit_interval(importance, field="importance")
        # An explicit importance restarts decay from the new value.
        changes.update(importance=value, decay_base=value, decay_from=now)
    if metadata is not _UNSET:
        changes["metadata"] = clean_metadata(metadata)
    new_tags = clean_tags(tags) if tags is not _UNSET else None
    model: Embedder | None = None
    if content is not _UNSET:
        text = clean_text(content, field="content", max_chars=CONTENT_MAX_CHARS)
        model = embedder or get_embedder()
        changes.update(
            content=text, embedding=model.embed_one(text), embedding_model=model.model_id
        )

    with transaction.atomic():
        # Locked, so that two edits of one memory do not interleave their tag rewrites.
        stored = Memory.objects.select_for_update().filter(pk=memory.pk).first()
        if stored is None:
            raise MemoryNotFound(f"Memory {memory.pk} not found for this agent")
        stored.agent = memory.agent
        resized = "content" in changes or "metadata" in changes or new_tags is not None
        old_tags = user_tags(stored) if resized else []
        before = memory_size_of(stored, old_tags)  # measured anew: older rows have no sizes
        before_importance = stored.importance
        for name, value in changes.items():
            setattr(stored, name, value)
        fields = [*changes, "updated_at"]
        if resized:
            size = memory_size_of(stored, new_tags if new_tags is not None else old_tags)
            warnings = check_quotas(
                agent=stored.agent, adding=size - before, existing=True, memory_id=stored.pk
            )
            if quota_warnings is not None:
                quota_warnings.extend(warnings)
            stored.stored_bytes = size.storage_bytes
            stored.metadata_bytes = size.metadata_bytes
            fields += ["stored_bytes", "metadata_bytes"]
        if model is not None:
            claim_embedding_model(stored.agent, model)
        stored.updated_at = now
        stored.save(update_fields=fields)
        if new_tags is not None or "content" in changes:
            keep = new_tags if new_tags is not None else old_tags
            policy = get_memory_policy(stored.agent)
            entities = allowed_entities(stored.content, policy)
            MemoryTag.objects.filter(memory=stored).delete()
            MemoryTag.objects.bulk_create(_tag_rows(stored, keep, entities))
            if "content" in changes:
                _remention(stored, entities, policy)
        if "content" in changes:
            bump_memory_version(stored.agent)
        if stored.session_id is not None:
            record_session_activity(session_ids=[stored.session_id], now=now)
        if actor is not None:
            derived = {"decay_base", "decay_from", "embedding", "embedding_model"}
            given = sorted({*changes} - derived) + (["tags"] if new_tags is not None else [])
            details: dict[str, Any] = {"fields": given}
            if "importance" in changes:
                details["importance"] = {"from": before_importance, "to": stored.importance}
            if new_tags is not None:
                details["tags"] = {
                    "added": len(set(new_tags) - set(old_tags)),
                    "removed": len(set(old_tags) - set(new_tags)),
                }
            record_event(
                workspace_id=stored.agent.workspace_id,
                agent=stored.agent,
                actor=actor,
                action=AuditAction.MEMORY_UPDATE,
                target_type="memory",
                target_id=str(stored.pk),
                details=details,
            )
    return stored


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


def _remention(memory: Memory, entities: list[Entity], policy: MemoryPolicy) -> None:
    """New text, new mentions: the old ones leave their entities' counts; edges stay."""
    release_mentions(agent=memory.agent, memory_ids=[memory.pk])
    mentions = memory_mentions(found=entities, speaker=memory.speaker, policy=policy)
    if graph_on_store():
        add_mentions(agent=memory.agent, found=[(memory, mentions)])


def _tag_rows(memory: Memory, tags: Iterable[str], entities: list[Entity]) -> list[MemoryTag]:
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
