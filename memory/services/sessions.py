"""Writes of sessions: start, activity, end, and the pass that ends idle sessions."""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from dewee.errors import Conflict, InvalidInput
from memory.models import Memory, MemoryType, Session, SessionState
from memory.services.passes import PassResult
from tenancy.models import Agent
from tenancy.validation import CONTENT_MAX_CHARS, SOURCE_REFS_MAX, clean_metadata, clean_text

logger = logging.getLogger("dewee.sessions")

SUMMARY_MAX_CHARS = 16_000
IDLE_TIMEOUT_MAX_SECS = 365 * 24 * 3600


class SessionEnded(Conflict):
    code = "session_ended"


def _clean_timeout(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput("idle_timeout_secs", "must be a whole number of seconds")
    if not 0 <= value <= IDLE_TIMEOUT_MAX_SECS:
        raise InvalidInput("idle_timeout_secs", f"must be between 0 and {IDLE_TIMEOUT_MAX_SECS}")
    return value


def start_session(
    *,
    agent: Agent,
    user: str = "",
    metadata: dict[str, Any] | None = None,
    idle_timeout_secs: int | None = None,
) -> Session:
    """``idle_timeout_secs``: None for the server default, 0 for never."""
    return Session.objects.create(
        agent=agent,
        user_ref=clean_text(user, field="user", max_chars=255, required=False),
        metadata=clean_metadata(metadata),
        idle_timeout_secs=_clean_timeout(idle_timeout_secs),
    )


def restore_session(
    *,
    agent: Agent,
    user: str = "",
    metadata: dict[str, Any] | None = None,
    idle_timeout_secs: int | None = None,
    state: str = SessionState.ACTIVE,
    started_at: datetime | None = None,
    last_activity_at: datetime | None = None,
    ended_at: datetime | None = None,
    ended_reason: str = "",
    summary: str = "",
) -> Session:
    """A session as an export recorded it (``dewee memory import``): started as
    start_session starts one, with the state, times, end and summary of the export, each
    checked as the session's own writes check it. Times left out are now."""
    if state not in SessionState.values:
        raise InvalidInput("state", f"must be {' or '.join(SessionState.values)}")
    summary = clean_text(summary, field="summary", max_chars=SUMMARY_MAX_CHARS, required=False)
    if state == SessionState.ENDED:
        if ended_reason not in get_args(EndReason):
            raise InvalidInput("ended_reason", f"must be {' or '.join(get_args(EndReason))}")
    elif ended_at is not None or ended_reason or summary:
        raise InvalidInput("state", "an active session has no end, end reason or summary")
    session = start_session(
        agent=agent, user=user, metadata=metadata, idle_timeout_secs=idle_timeout_secs
    )
    session.state = state
    session.started_at = started_at or session.started_at
    session.last_activity_at = last_activity_at or session.last_activity_at
    session.ended_at = ended_at if state == SessionState.ACTIVE else ended_at or timezone.now()
    session.ended_reason = ended_reason
    session.summary = summary
    session.save(
        update_fields=[
            "state",
            "started_at",
            "last_activity_at",
            "ended_at",
            "ended_reason",
            "summary",
        ]
    )
    return session


def restore_last_activity(*, session: Session) -> None:
    """Put back the last activity ``session`` had when restored (restore_session): storing
    an import's memories into it counted as activity, which the export's was not."""
    Session.objects.filter(pk=session.pk).update(last_activity_at=session.last_activity_at)


def record_session_activity(*, session_ids: Iterable[int], now: datetime | None = None) -> int:
    """The one place where a session's activity is recorded, which postpones its idle end.
    Activity is: storing a memory into it (store_memories), editing one of its memories
    (update_memory), a recall filtered by it (recall), listing or searching its memories
    through the API, building a turn's context for it (build_context), and ``touch``.
    Reading it in the dashboard is not: an operator looking must not keep a conversation
    open.

    Ended sessions are left alone, so the idle pass (which locks the row and then ends it)
    and a late request never fight: the request's update matches nothing. Returns how many
    sessions were marked."""
    ids = set(session_ids)
    if not ids:
        return 0
    return Session.objects.filter(pk__in=ids, state=SessionState.ACTIVE).update(
        last_activity_at=now or timezone.now()
    )


def touch_session(*, session: Session) -> Session:
    """Activity keeps a session from ending idle; touching an ended session is harmless."""
    now = timezone.now()
    if record_session_activity(session_ids=[session.pk], now=now):
        session.last_activity_at = now
    return session


SUMMARY_TAG = "session-summary"
# A session of this many memories or fewer ends without a summary memory: the turns
# themselves are as short as a summary would be.
SUMMARY_MIN_MEMORIES = 3
# Who wrote a summary memory (its ``metadata["generated_by"]``).
IDLE_ACTOR = "system:idle-sessions"
END_ACTOR = "system:session-end"
CLIENT_AUTHOR = "client"

EndReason = Literal["client", "idle"]


@dataclass(frozen=True)
class _Ending:
    """How a session ends: its summary ("" for none), the memories of the session (oldest
    first, at most as many as a summary memory can cite) and who wrote the summary."""

    summary: str
    memory_ids: list[int]
    written_by: str

    @property
    def stores_summary_memory(self) -> bool:
        return bool(self.summary) and len(self.memory_ids) > SUMMARY_MIN_MEMORIES


def _plan_ending(session: Session, *, summary: str, reason: EndReason) -> _Ending:
    """The one rule for how a session ends, whoever ends it. Its summary is the client's own
    when it sent one, else one made by DEWEE_SESSION_SUMMARISER for a session of more than
    SUMMARY_MIN_MEMORIES memories (else none). A session of more than SUMMARY_MIN_MEMORIES
    memories also gets that summary as a summary memory. Runs before the session's row is
    locked: the summariser may be slow (an HTTP call)."""
    given = clean_text(summary, field="summary", max_chars=SUMMARY_MAX_CHARS, required=False)
    if given:
        memory_ids = Memory.objects.filter(session=session).order_by("id")
        return _Ending(
            summary=given,
            memory_ids=list(memory_ids.values_list("pk", flat=True)[: SOURCE_REFS_MAX - 1]),
            written_by=CLIENT_AUTHOR,
        )
    generated, all_ids = _summarise(session)
    return _Ending(
        summary=generated,
        memory_ids=all_ids[: SOURCE_REFS_MAX - 1],
        written_by=IDLE_ACTOR if reason == "idle" else END_ACTOR,
    )


def _close(session: Session, ending: _Ending, *, reason: EndReason) -> bool:
    """Write the end of ``session`` (locked by the caller and still active) and its summary
    memory when ``ending`` has one, in the caller's transaction; whether it stored one."""
    from memory.services.memories import MemoryInput, store_memories

    session.summary = ending.summary
    session.state = SessionState.ENDED
    session.ended_at = timezone.now()
    session.ended_reason = reason
    session.save(update_fields=["summary", "state", "ended_at", "ended_reason"])
    if not ending.stores_summary_memory:
        return False
    # One reference to the session, then as many of its memories as fit.
    refs = [f"session:{session.pk}", *(f"memory:{pk}" for pk in ending.memory_ids)]
    # Stored after the end, so it does not count as activity (ended sessions take none).
    store_memories(
        agent=session.agent,
        items=[
            MemoryInput(
                content=ending.summary[:CONTENT_MAX_CHARS],
                memory_type=MemoryType.SEMANTIC,
                tags=[SUMMARY_TAG],
                session_id=session.pk,
                source_refs=refs,
                metadata={"generated_by": ending.written_by},
            )
        ],
    )
    return True


def end_session(*, session: Session, summary: str = "", reason: EndReason = "client") -> Session:
    """End the session once: the client's end (``reason`` "client") and the idle pass's
    ("idle") follow the same rule (_plan_ending), so a session of more than
    SUMMARY_MIN_MEMORIES memories always ends with a summary memory tagged SUMMARY_TAG whose
    source_refs cite the session and its memories: the client's ``summary`` if it sent one,
    else a generated one. Raises SessionEnded when it has already ended.

    The summary is made before the row is locked; the end and the summary memory are then
    written in one transaction, so a summary memory that cannot be stored (the agent awaits
    re-embedding, say) leaves the session open rather than ended without it."""
    # Checked before summarising (no summariser call for a session already ended), and
    # again under the lock.
    _refuse_if_ended(Session.objects.get(pk=session.pk))
    ending = _plan_ending(session, summary=summary, reason=reason)
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        _refuse_if_ended(locked)
        _close(locked, ending, reason=reason)
    return locked


def _refuse_if_ended(session: Session) -> None:
    if session.state == SessionState.ENDED:
        raise SessionEnded(f"Session {session.pk} already ended ({session.ended_reason})")


def idle_timeout(session: Session) -> int:
    """Seconds of inactivity after which ``session`` ends by itself; 0 = never."""
    if session.idle_timeout_secs is not None:
        return session.idle_timeout_secs
    return int(settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS)


def _idle_sessions(sessions: QuerySet[Session], now: datetime) -> list[tuple[int, int]]:
    """(id, workspace id) of the active ``sessions`` whose last activity is older than their
    timeout, oldest id first. The server default is one indexed comparison; sessions with
    their own timeout are compared here, because "last activity + this row's seconds" has
    no portable SQL (SQLite cannot multiply a duration), and active sessions are few."""
    active = sessions.filter(state=SessionState.ACTIVE)
    default = int(settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS)
    found: list[tuple[int, int]] = []
    if default > 0:
        found += active.filter(
            idle_timeout_secs__isnull=True, last_activity_at__lt=now - timedelta(seconds=default)
        ).values_list("pk", "agent__workspace_id")
    overridden = active.filter(idle_timeout_secs__gt=0)
    for pk, workspace_id, last_activity_at, timeout in overridden.values_list(
        "pk", "agent__workspace_id", "last_activity_at", "idle_timeout_secs"
    ):
        if last_activity_at + timedelta(seconds=timeout or 0) < now:  # timeout > 0 here
            found.append((pk, workspace_id))
    return sorted(found)


def _summarise(session: Session) -> tuple[str, list[int]]:
    """The summary of a session of more than SUMMARY_MIN_MEMORIES memories (else ""), and
    the ids of the memories it summarises, oldest first."""
    from memory.summaries import extractive_summary, get_summariser

    rows = list(Memory.objects.filter(session=session).order_by("id").values_list("pk", "content"))
    if len(rows) <= SUMMARY_MIN_MEMORIES:
        return "", [pk for pk, _ in rows]
    texts = [content for _, content in rows]
    try:
        summary = get_summariser()(texts)
        if not isinstance(summary, str):
            raise TypeError(f"the summariser returned {type(summary).__name__}, not text")
    except Exception:
        # A broken custom summariser must not keep every session open forever.
        logger.exception("Summariser failed for session %s; using the extractive one", session.pk)
        summary = extractive_summary(texts)
    # NUL is the one character no text column accepts.
    return summary.replace("\x00", "").strip()[:CONTENT_MAX_CHARS], [pk for pk, _ in rows]


def _end_idle_session(session_id: int, now: datetime) -> Literal["skipped", "ended", "summarised"]:
    """End one idle session as end_session would, with its summary memory when it has
    enough memories; "skipped" when it is no longer idle (a client ended it, or used it,
    meanwhile)."""
    session = Session.objects.filter(pk=session_id).first()
    if session is None or session.state != SessionState.ACTIVE:
        return "skipped"
    ending = _plan_ending(session, summary="", reason="idle")
    with transaction.atomic():
        # The summary was made before the lock: re-check that nothing happened meanwhile.
        locked = Session.objects.select_for_update().filter(pk=session_id).first()
        if locked is None or locked.state != SessionState.ACTIVE:
            return "skipped"
        timeout = idle_timeout(locked)
        if timeout == 0 or locked.last_activity_at + timedelta(seconds=timeout) >= now:
            return "skipped"
        return "summarised" if _close(locked, ending, reason="idle") else "ended"


def idle_sessions_pass(
    *,
    agents: QuerySet[Agent] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
) -> PassResult:
    """End every active session idle longer than its timeout (the session's own, else
    DEWEE_SESSION_IDLE_TIMEOUT_SECS; 0 = never) exactly as a client end without a summary
    would (the rule of end_session), with ``ended_reason`` "idle". A session of more than
    SUMMARY_MIN_MEMORIES memories gets a summary (DEWEE_SESSION_SUMMARISER) as its
    ``summary`` and as a semantic memory in it, tagged SUMMARY_TAG, whose source_refs point
    at the session and its memories.

    One transaction per session, so a failure or a kill midway leaves every session either
    ended with its summary or untouched. A session a client ends (or uses) while the pass
    runs is skipped: the client wins; one that fails is counted as ``failed`` and the pass
    goes on. Counts: ``ended``, ``summaries``; ``touched`` is the
    number of summary memories stored. ``dry_run`` counts the sessions it would end."""
    now = now or timezone.now()
    sessions = Session.objects.all()
    if agents is not None:
        sessions = sessions.filter(agent__in=agents)
    result = PassResult()
    for session_id, workspace_id in _idle_sessions(sessions, now):
        if dry_run:
            result.add(workspace_id, ended=1)
            continue
        try:
            outcome = _end_idle_session(session_id, now)
        except Exception:
            # One session that cannot end (its summary refused, say) must not keep every
            # later one open: it is counted, logged and tried again on the next pass.
            logger.exception("Could not end idle session %s", session_id)
            result.add(workspace_id, failed=1)
            continue
        if outcome == "skipped":
            result.add(workspace_id, skipped=1)
        elif outcome == "ended":
            result.add(workspace_id, ended=1)
        else:
            result.add(workspace_id, touched=1, ended=1, summaries=1)
    return result
