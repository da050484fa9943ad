"""The pass that ends idle sessions: every active session idle longer than its timeout ends
as its client would have ended it (memory.services.session_end)."""

import logging
from datetime import datetime, timedelta
from typing import Literal

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from memory.models import Session, SessionState
from memory.services.passes import PassResult
from memory.services.session_end import plan_ending, write_ending
from tenancy.models import Agent

logger = logging.getLogger("dewee.sessions")


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


def _end_idle_session(session_id: int, now: datetime) -> Literal["skipped", "ended", "summarised"]:
    """End one idle session as end_session would, with its summary memory when it has
    enough memories; "skipped" when it is no longer idle (a client ended it, or used it,
    meanwhile)."""
    session = Session.objects.filter(pk=session_id).first()
    if session is None or session.state != SessionState.ACTIVE:
        return "skipped"
    ending = plan_ending(session, summary="", reason="idle")
    with transaction.atomic():
        # The summary was made before the lock: re-check that nothing happened meanwhile.
        locked = Session.objects.select_for_update().filter(pk=session_id).first()
        if locked is None or locked.state != SessionState.ACTIVE:
            return "skipped"
        timeout = idle_timeout(locked)
        if timeout == 0 or locked.last_activity_at + timedelta(seconds=timeout) >= now:
            return "skipped"
        return "summarised" if write_ending(locked, ending, reason="idle") else "ended"


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
