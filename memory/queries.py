"""Reads of memories, sessions and maintenance runs: the memory list, one session, the
Maintenance page."""

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from dewee.pagination import clean_limit, decode_cursor, encode_cursor, keyset_page
from memory.entities import ENTITY_PREFIX
from memory.exceptions import MemoryNotFound, SessionNotFound
from memory.models import (
    ImportanceSnapshot,
    MaintenanceJob,
    MaintenanceRun,
    Memory,
    RunStatus,
    Session,
)
from memory.services import memory_tags
from tenancy.access import Access
from tenancy.models import Agent, Workspace

if TYPE_CHECKING:
    from memory.recall import RecallFilters

_LAST_USED_RESOLUTION = timedelta(minutes=1)


def get_memory(*, access: Access, memory_id: int, agent: Agent | None = None) -> Memory:
    memories = Memory.objects.select_related("agent__workspace", "session")
    return access.load(
        memories.prefetch_related("tag_rows"),
        memory_id,
        missing=MemoryNotFound,
        label="Memory",
        agent=agent,
    )


def get_session(*, access: Access, session_id: int, agent: Agent | None = None) -> Session:
    sessions = Session.objects.select_related("agent__workspace")
    return access.load(sessions, session_id, missing=SessionNotFound, label="Session", agent=agent)


@dataclass(frozen=True)
class MemoryPage:
    items: list[Memory]
    next_cursor: str | None


def list_memories(
    *,
    agent: Agent,
    filters: "RecallFilters",
    cursor: str | None = None,
    limit: int = 50,
) -> MemoryPage:
    """Newest first with keyset pagination; the same filters as recall."""
    from memory.recall import candidate_memories, clean_importance_range

    limit = clean_limit(limit)
    clean_importance_range(filters)
    memories = candidate_memories(agent, filters, timezone.now())
    items, next_cursor = keyset_page(
        memories.select_related("session").prefetch_related("tag_rows"), cursor=cursor, limit=limit
    )
    for memory in items:
        memory.agent = agent
    return MemoryPage(items=items, next_cursor=next_cursor)


def memories_for_export(*, agent: Agent, filters: "RecallFilters") -> QuerySet[Memory]:
    """Every live memory of ``agent`` that ``filters`` let through, newest first as the list
    shows them, with their tags, unevaluated: the export streams it a chunk at a time."""
    from memory.recall import candidate_memories, clean_importance_range

    clean_importance_range(filters)
    memories = candidate_memories(agent, filters, timezone.now())
    return memories.prefetch_related("tag_rows").order_by("-id")


# The columns of a memories export (dewee.export): memory_to_dict's keys, in its order.
MEMORY_EXPORT_COLUMNS = [
    "id",
    "agent_id",
    "content",
    "memory_type",
    "importance",
    "tags",
    "entities",
    "metadata",
    "source_refs",
    "session_id",
    "user",
    "speaker",
    "ttl_seconds",
    "expires_at",
    "access_count",
    "last_accessed_at",
    "flagged_at",
    "created_at",
    "updated_at",
]


def memory_to_dict(memory: Memory) -> dict[str, Any]:
    tags = memory_tags(memory)
    return {
        "id": memory.pk,
        "agent_id": memory.agent.agent_id,
        "content": memory.content,
        "memory_type": memory.memory_type,
        "importance": memory.importance,
        "tags": [t for t in tags if not t.startswith(ENTITY_PREFIX)],
        "entities": [t for t in tags if t.startswith(ENTITY_PREFIX)],
        "metadata": memory.metadata,
        "source_refs": memory.source_refs,
        "session_id": memory.session_id,
        "user": memory.user_ref or None,
        "speaker": memory.speaker or None,
        "ttl_seconds": memory.ttl_seconds,
        "expires_at": memory.expires_at,
        "access_count": memory.access_count,
        "last_accessed_at": memory.last_accessed_at,
        "flagged_at": memory.flagged_at,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
    }


def session_to_dict(session: Session, *, memory_count: int | None = None) -> dict[str, Any]:
    return {
        "id": session.pk,
        "agent_id": session.agent.agent_id,
        "user": session.user_ref or None,
        "state": session.state,
        "metadata": session.metadata,
        "started_at": session.started_at,
        "last_activity_at": session.last_activity_at,
        "ended_at": session.ended_at,
        "ended_reason": session.ended_reason or None,
        "summary": session.summary or None,
        "idle_timeout_secs": session.idle_timeout_secs,
        "memory_count": memory_count if memory_count is not None else session.memories.count(),
    }


@dataclass(frozen=True)
class SessionPage:
    items: list[dict[str, Any]]
    next_cursor: str | None


def list_sessions(
    *,
    agent: Agent,
    user: str | None = None,
    state: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> SessionPage:
    """Newest first with keyset pagination, as dicts with their ``memory_count`` (counted
    in the page's one query, however many sessions it holds); only ``user``'s sessions
    (their id as stored) and only those in ``state`` when given."""
    limit = clean_limit(limit)
    sessions = Session.objects.filter(agent=agent)
    if user is not None:
        sessions = sessions.filter(user_ref=user)
    if state is not None:
        sessions = sessions.filter(state=state)
    items, next_cursor = keyset_page(
        sessions.annotate(memory_count=Count("memories")), cursor=cursor, limit=limit
    )
    for session in items:
        session.agent = agent
    rows = [session_to_dict(s, memory_count=s.memory_count) for s in items]
    return SessionPage(items=rows, next_cursor=next_cursor)


def session_turns(*, session: Session, cursor: str | None = None, limit: int = 50) -> MemoryPage:
    """The session's live memories in the order they were stored (oldest first), a page at
    a time: ``next_cursor`` continues after the page's last memory. Without their tags
    (a turn is shown by its text): one query a page."""
    limit = clean_limit(limit)
    turns = Memory.objects.filter(session=session).live(timezone.now())
    if cursor:
        turns = turns.filter(id__gt=decode_cursor(cursor))
    items = list(turns.order_by("id")[: limit + 1])
    next_cursor = encode_cursor(items[limit - 1].pk) if len(items) > limit else None
    return MemoryPage(items=items[:limit], next_cursor=next_cursor)


RECENT_RUNS = 5
SNAPSHOT_POINTS = 48


def run_to_dict(run: MaintenanceRun, *, workspace: Workspace | None = None) -> dict[str, Any]:
    """A run as its viewer may see it: a workspace sees its own share of a run over every
    workspace, never the others' counts."""
    counts, touched = run.counts, run.touched
    status = run.status
    if run.is_stale(timezone.now()):
        # Its worker died; the next heartbeat pass records it, but no reader should wait.
        status = RunStatus.INTERRUPTED
    if workspace is not None and run.workspace_id is None:
        share = dict(run.by_workspace.get(str(workspace.pk), {}))
        touched = share.pop("touched", 0)
        counts = share
    return {
        "id": run.pk,
        "job": run.job,
        "trigger": run.trigger,
        "status": status,
        "dry_run": run.dry_run,
        "agent_id": run.agent.agent_id if run.agent else None,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "duration_ms": run.duration_ms,
        "touched": touched,
        "counts": counts,
        "error": run.error,
    }


def maintenance_status(*, access: Access, recent: int = RECENT_RUNS) -> list[dict[str, Any]]:
    """Each background job: whether it is on, how often, when it runs next, and its last
    runs (newest first) with what they did."""
    from django_q.models import Schedule

    from memory.services.maintenance import JOBS

    schedules = {
        s.name: s
        for s in Schedule.objects.filter(name__in=[j.schedule_name for j in JOBS.values()])
    }
    runs = MaintenanceRun.objects.select_related("agent")
    if access.workspace is not None:
        runs = runs.filter(Q(workspace__isnull=True) | Q(workspace=access.workspace))
    if access.agent_ids is not None:  # a key limited to some agents sees only theirs
        runs = runs.filter(Q(agent__isnull=True) | Q(agent__in=access.agents()))
    status = []
    for spec in JOBS.values():
        schedule = schedules.get(spec.schedule_name)
        last = [
            run_to_dict(run, workspace=access.workspace)
            for run in runs.filter(job=spec.job)[:recent]
        ]
        status.append(
            {
                "job": spec.job,
                "label": MaintenanceJob(spec.job).label,
                "autopilot": spec.autopilot,
                "enabled": spec.enabled,
                # What the worker follows: the schedule (the settings of the process that
                # last started the worker), else the settings.
                "interval_secs": (schedule.minutes or 0) * 60 if schedule else spec.interval_secs,
                "scheduled": schedule is not None,
                "next_run": schedule.next_run if schedule else None,
                "last_runs": last,
            }
        )
    return status


def importance_history(*, agent: Agent, points: int = SNAPSHOT_POINTS) -> list[ImportanceSnapshot]:
    """The agent's last importance distributions, oldest first, for the decay chart."""
    snapshots = list(ImportanceSnapshot.objects.filter(agent=agent)[:points])
    snapshots.reverse()
    return snapshots
