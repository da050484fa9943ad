"""Writes of sessions: start (or restore one from an export), record activity, touch.
How a session ends is memory.services.session_end; the pass that ends idle ones,
memory.services.idle_sessions."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal, get_args

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.models import Session, SessionState
from memory.quotas import QuotaWarning, Usage, check_quotas
from tenancy.models import Agent, Workspace
from tenancy.services import ensure_agent
from tenancy.validation import clean_agent_id, clean_metadata, clean_text, clean_user

SUMMARY_MAX_CHARS = 16_000
IDLE_TIMEOUT_MAX_SECS = 365 * 24 * 3600

# Who ended a session: its client (end_session) or the idle pass.
EndReason = Literal["client", "idle"]


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
    quota_warnings: list[QuotaWarning] | None = None,
) -> Session:
    """``idle_timeout_secs``: None for the server default, 0 for never. Checked against the
    ``sessions`` quotas of the agent and its workspace first (memory.quotas.check_quotas):
    over a hard one it is QuotaExceeded and nothing is written; over a soft one the
    warnings go into ``quota_warnings``."""
    user_ref = clean_user(user)
    metadata = clean_metadata(metadata)
    timeout = _clean_timeout(idle_timeout_secs)
    with transaction.atomic():
        warnings = check_quotas(agent=agent, adding=Usage(sessions=1))
        if quota_warnings is not None:
            quota_warnings.extend(warnings)
        return Session.objects.create(
            agent=agent, user_ref=user_ref, metadata=metadata, idle_timeout_secs=timeout
        )


def start_session_as(
    *,
    workspace: Workspace,
    agent_id: str,
    user: str = "",
    metadata: dict[str, Any] | None = None,
    idle_timeout_secs: int | None = None,
    quota_warnings: list[QuotaWarning] | None = None,
) -> Session:
    """Start a session of the agent ``agent_id`` of ``workspace``, which it creates when
    new, as a first stored memory does: in one transaction, so a refused start (bad user,
    metadata or timeout, a full hard quota) leaves no agent behind."""
    agent = Agent.objects.in_workspace(workspace).with_id(clean_agent_id(agent_id))
    with transaction.atomic():
        if agent is None:
            agent = ensure_agent(workspace=workspace, agent_id=agent_id)
        return start_session(
            agent=agent,
            user=user,
            metadata=metadata,
            idle_timeout_secs=idle_timeout_secs,
            quota_warnings=quota_warnings,
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
