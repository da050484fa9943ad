"""What a caller may say about a new memory (MemoryInput) and how it is checked: each item
of a store is cleaned into a CleanMemory (content, expiry, session, user, speaker, tags,
metadata, and its size as quotas count it) before anything is embedded or written.
InvalidInput names the field; SessionNotFound a session that is not the agent's.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dewee.errors import InvalidInput
from language.entities import SPEAKER_MAX_CHARS, speaker_of
from memory.exceptions import SessionNotFound
from memory.models import MemoryType, Session, is_expired
from memory.quotas import Usage, memory_size
from memory.services.policy import MemoryPolicy
from tenancy.models import Agent
from tenancy.validation import (
    CONTENT_MAX_CHARS,
    MAX_EXPIRES_AT,
    TTL_MAX_SECONDS,
    clean_choice,
    clean_metadata,
    clean_refs,
    clean_tags,
    clean_text,
    clean_unit_interval,
    clean_user,
)


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
class CleanMemory:
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


def clean_memory(
    agent: Agent,
    item: MemoryInput,
    now: datetime,
    sessions: dict[int, Session],
    policy: MemoryPolicy,
) -> CleanMemory:
    """``item`` checked and completed: the policy's default TTL, its session's user, the
    speaker its text opens with, and its size. ``sessions`` keeps the agent's sessions met
    so far, so that a batch looks each up once."""
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
    return CleanMemory(
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
