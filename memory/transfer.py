"""Export and import of an agent's memories and sessions as JSON Lines.

One record a line: first the sessions (``"kind": "session"``), then the memories
(``"kind": "memory"``), each memory naming its session by the exported session's id. Vectors
are not exported: they are derived, and an import makes them with the configured model.
An export followed by an import into an empty agent gives the same memories, tags,
metadata, sources, sessions, access counts and times.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import DeweeError, InvalidInput
from dewee.timeparse import parse_time
from memory.exceptions import QuotaExceeded
from memory.models import Memory, Session, SessionState, is_expired
from memory.quotas import QuotaWarning
from memory.services.memory_input import MemoryInput
from memory.services.sessions import restore_last_activity, restore_session
from memory.services.storing import store_memories, user_tags
from memory.signals import Learning
from tenancy.models import Agent

FORMAT_VERSION = 1
IMPORT_BATCH = 500


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def export_records(agent: Agent) -> Iterator[dict[str, Any]]:
    yield {"kind": "dewee-export", "version": FORMAT_VERSION, "agent_id": agent.agent_id}
    for session in Session.objects.filter(agent=agent).order_by("id").iterator():
        yield {
            "kind": "session",
            "id": session.pk,
            "user": session.user_ref,
            "metadata": session.metadata,
            "state": session.state,
            "started_at": _iso(session.started_at),
            "last_activity_at": _iso(session.last_activity_at),
            "ended_at": _iso(session.ended_at),
            "ended_reason": session.ended_reason,
            "summary": session.summary,
            "idle_timeout_secs": session.idle_timeout_secs,
        }
    memories = Memory.objects.filter(agent=agent).order_by("id").prefetch_related("tag_rows")
    for memory in memories.iterator(chunk_size=1000):
        yield {
            "kind": "memory",
            "id": memory.pk,
            "content": memory.content,
            "memory_type": memory.memory_type,
            "importance": memory.importance,
            "tags": user_tags(memory),
            "metadata": memory.metadata,
            "source_refs": memory.source_refs,
            "session": memory.session_id,
            "user": memory.user_ref,
            # "" rather than null for none, so that an import does not read one from the text.
            "speaker": memory.speaker or "",
            "ttl_seconds": memory.ttl_seconds,
            "expires_at": _iso(memory.expires_at),
            "access_count": memory.access_count,
            "last_accessed_at": _iso(memory.last_accessed_at),
            "created_at": _iso(memory.created_at),
        }


@dataclass
class ImportResult:
    sessions: int = 0
    memories: int = 0
    skipped_expired: int = 0
    # Soft quotas the import went over (a hard one refuses the whole file).
    warnings: list[QuotaWarning] = field(default_factory=list)


def _session_from(agent: Agent, record: dict[str, Any]) -> Session:
    return restore_session(
        agent=agent,
        user=record.get("user") or "",
        metadata=record.get("metadata") or {},
        idle_timeout_secs=record.get("idle_timeout_secs"),
        state=record.get("state") or SessionState.ACTIVE,
        started_at=parse_time(record.get("started_at"), field="started_at"),
        last_activity_at=parse_time(record.get("last_activity_at"), field="last_activity_at"),
        ended_at=parse_time(record.get("ended_at"), field="ended_at"),
        ended_reason=record.get("ended_reason") or "",
        summary=record.get("summary") or "",
    )


def _memory_input(record: dict[str, Any], sessions: dict[Any, Session]) -> MemoryInput:
    session_ref = record.get("session")
    if session_ref is not None and session_ref not in sessions:
        raise InvalidInput("session", f"names session {session_ref}, which is not in the file")
    expires_at = parse_time(record.get("expires_at"), field="expires_at")
    return MemoryInput(
        content=record.get("content"),  # type: ignore[arg-type]
        memory_type=record.get("memory_type", "episodic"),
        importance=record.get("importance", 0.5),
        tags=record.get("tags"),
        metadata=record.get("metadata"),
        session_id=sessions[session_ref].pk if session_ref is not None else None,
        user=record.get("user"),
        speaker=record.get("speaker"),
        ttl_seconds=record.get("ttl_seconds"),
        expires_at=expires_at,
        source_refs=record.get("source_refs"),
        created_at=parse_time(record.get("created_at"), field="created_at"),
        access_count=record.get("access_count", 0),
        last_accessed_at=parse_time(record.get("last_accessed_at"), field="last_accessed_at"),
        use_default_ttl=False,
    )


@transaction.atomic
def import_records(agent: Agent, records: Iterable[tuple[int, dict[str, Any]]]) -> ImportResult:
    """Import ``(line_number, record)`` pairs into ``agent``, all or nothing: an error names
    its line and nothing of the file is kept. Memories already expired are skipped."""
    result = ImportResult()
    sessions: dict[Any, Session] = {}
    pending: list[tuple[int, MemoryInput]] = []
    now = timezone.now()

    def flush() -> None:
        if not pending:
            return
        try:
            # An import restores memories; facts are not learned from them again.
            store_memories(
                agent=agent,
                items=[item for _, item in pending],
                learning=Learning.OFF,
                quota_warnings=result.warnings,
            )
        except QuotaExceeded:
            raise  # the file as a whole is over the quota, not one of its lines
        except DeweeError as exc:
            index = exc.details.get("index", 0) if isinstance(exc.details, dict) else 0
            raise InvalidInput(f"line {pending[index][0]}", exc.message) from None
        result.memories += len(pending)
        pending.clear()

    for line, record in records:
        try:
            if not isinstance(record, dict):
                raise InvalidInput("record", "must be a JSON object")
            kind = record.get("kind")
            if kind == "dewee-export":
                continue
            if kind == "session":
                session = _session_from(agent, record)
                sessions[record.get("id")] = session
                result.sessions += 1
            elif kind == "memory":
                item = _memory_input(record, sessions)
                if is_expired(item.expires_at, now):
                    result.skipped_expired += 1
                    continue
                pending.append((line, item))
                if len(pending) >= IMPORT_BATCH:
                    flush()
            else:
                raise InvalidInput("kind", "must be session or memory")
        except InvalidInput as exc:
            if exc.field.startswith("line "):
                raise
            raise InvalidInput(f"line {line}", exc.message) from None
    flush()
    # Storing the memories counted as session activity; keep the times of the export.
    for session in sessions.values():
        restore_last_activity(session=session)
    return result
