"""Writes of sessions: start, touch, end."""

from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import Conflict, InvalidInput
from memory.models import Agent, Session, SessionState
from memory.validation import clean_metadata, clean_text

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


def touch_session(*, session: Session) -> Session:
    """Activity keeps a session from ending idle; touching an ended session is harmless."""
    session.last_activity_at = timezone.now()
    session.save(update_fields=["last_activity_at"])
    return session


@transaction.atomic
def end_session(*, session: Session, summary: str = "", reason: str = "client") -> Session:
    """End the session once; ``reason`` is "client" or "idle" (the idle pass ends sessions
    through this same function)."""
    session = Session.objects.select_for_update().get(pk=session.pk)
    if session.state == SessionState.ENDED:
        raise SessionEnded(f"Session {session.pk} already ended ({session.ended_reason})")
    session.summary = clean_text(
        summary, field="summary", max_chars=SUMMARY_MAX_CHARS, required=False
    )
    session.state = SessionState.ENDED
    session.ended_at = timezone.now()
    session.ended_reason = reason
    session.save(update_fields=["summary", "state", "ended_at", "ended_reason"])
    return session
