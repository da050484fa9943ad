"""Reads of memories, sessions and maintenance runs: the memory list, one session, the
Maintenance page."""

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from dewee.pagination import clean_limit, decode_cursor, encode_cursor, sorted_page
from dewee.sorting import Sort
from language.entities import ENTITY_PREFIX
from memory.exceptions import MemoryNotFound, SessionNotFound
from memory.models import (
    SUMMARY_TAG,
    ImportanceSnapshot,
    MaintenanceJob,
    MaintenanceRun,
    Memory,
    MemoryTag,
    QueuedJob,
    RunStatus,
    Session,
)
from memory.orders import MEMORY_SORTING, SESSION_SORTING
from memory.services import memory_tags
from tenancy.access import Access
from tenancy.models import Agent, Workspace
from tenancy.validation import user_forms

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
    # The order of the page: the one asked for, or the default when it was refused.
    sort: Sort | None = None


def list_memories(
    *,
    agent: Agent | Access,
    filters: "RecallFilters",
    cursor: str | None = None,
    limit: int = 50,
    sort: Sort | None = None,
) -> MemoryPage:
    """Newest first (or in ``sort``, one of MEMORY_SORTING's) with keyset pagination; the
    same filters as recall. ``agent`` is one agent, or an Access for every agent it sees
    (the dashboard's "all agents"). A sort refused (memory.orders) gives the default order
    from its first page."""
    from memory.recall import candidate_memories, clean_importance_range
    from memory.recall.filters import narrow_memories

    limit = clean_limit(limit)
    clean_importance_range(filters)
    now = timezone.now()
    if isinstance(agent, Agent):
        memories = candidate_memories(agent, filters, now)
    else:
        mine, tags = visible_of(agent, Memory.objects.all()), MemoryTag.objects.all()
        memories = narrow_memories(mine, filters, now, tags=visible_of(agent, tags))
        # Each row's own agent, in one more query (a join would lead SQLite's planner away
        # from the id index's order).
        memories = memories.prefetch_related(
            Prefetch("agent", queryset=Agent.objects.select_related("workspace"))
        )
    items, next_cursor, sort = sorted_page(
        memories.select_related("session").prefetch_related("tag_rows"),
        sorting=MEMORY_SORTING,
        sort=sort or MEMORY_SORTING.default_sort,
        cursor=cursor,
        limit=limit,
        one_agent=isinstance(agent, Agent),
    )
    if isinstance(agent, Agent):
        for memory in items:
            memory.agent = agent
    return MemoryPage(items=items, next_cursor=next_cursor, sort=sort)


def visible_of[R: QuerySet[Any]](access: Access, rows: R) -> R:
    """The rows (of a model with an ``agent``) of every agent ``access`` sees; for staff,
    all of them, with no join to narrow them."""
    if access.workspace is None and access.agent_ids is None:
        return rows
    return rows.filter(agent__in=access.agents().values("id"))


def memories_for_export(*, agent: "Agent | Access", filters: "RecallFilters") -> QuerySet[Memory]:
    """Every live memory of ``agent`` (one agent, or every agent an Access sees) that
    ``filters`` let through, newest first as the list shows them, with their tags (and
    their agents, for several), unevaluated: the export streams it a chunk at a time."""
    from memory.recall import candidate_memories, clean_importance_range
    from memory.recall.filters import narrow_memories

    clean_importance_range(filters)
    now = timezone.now()
    if isinstance(agent, Agent):
        return candidate_memories(agent, filters, now).prefetch_related("tag_rows").order_by("-id")
    tags = visible_of(agent, MemoryTag.objects.all())
    memories = narrow_memories(visible_of(agent, Memory.objects.all()), filters, now, tags=tags)
    agents = Agent.objects.select_related("workspace")
    return memories.prefetch_related("tag_rows", Prefetch("agent", queryset=agents)).order_by("-id")


# The columns of a memories export (dewee.export): memory_to_dict's keys, in its order.
MEMORY_EXPORT_COLUMNS = [
    "id",
    "workspace",
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
    sort: Sort | None = None


def list_sessions(
    *,
    agent: Agent | Access,
    user: str | None = None,
    state: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
    owner: str | None = None,
    sort: Sort | None = None,
) -> SessionPage:
    """Newest first (or in ``sort``, one of SESSION_SORTING's) with keyset pagination, as
    dicts with their ``memory_count`` (counted in the page's one query, however many
    sessions it holds); only the sessions of users whose id starts with ``user`` (any
    case), only those of exactly the user ``owner`` ("": of no user), and only those in
    ``state``, when given. ``agent`` is one agent, or an Access for every agent it sees."""
    limit = clean_limit(limit)
    if isinstance(agent, Agent):
        sessions = Session.objects.filter(agent=agent)
    else:
        sessions = visible_of(agent, Session.objects.all()).prefetch_related(
            Prefetch("agent", queryset=Agent.objects.select_related("workspace"))
        )
    if user is not None:
        # Either stored form of an accented id (tenancy.validation.user_forms).
        starts = Q()
        for form in user_forms(user):
            starts |= Q(user_ref__istartswith=form)
        sessions = sessions.filter(starts)
    if owner is not None:
        sessions = sessions.filter(user_ref=owner)
    if state is not None:
        sessions = sessions.filter(state=state)
    items, next_cursor, sort = sorted_page(
        sessions.annotate(memory_count=Count("memories")),
        sorting=SESSION_SORTING,
        sort=sort or SESSION_SORTING.default_sort,
        cursor=cursor,
        limit=limit,
        counted=sessions,
    )
    if isinstance(agent, Agent):
        for session in items:
            session.agent = agent
    rows = [session_to_dict(s, memory_count=s.memory_count) for s in items]
    if not isinstance(agent, Agent):
        for row, session in zip(rows, items, strict=True):
            row["agent_ref"] = agent.agent_ref(session.agent)
    return SessionPage(items=rows, next_cursor=next_cursor, sort=sort)


@dataclass(frozen=True)
class TurnPage(MemoryPage):
    # The number of the page's first turn in the session (1 for the first).
    first_number: int = 1


def session_turns(*, session: Session, cursor: str | None = None, limit: int = 50) -> TurnPage:
    """The session's live turns in the order they were stored (oldest first), a page at a
    time: ``next_cursor`` continues after the page's last turn. Its summary memory (written
    when it ends, tagged SUMMARY_TAG) is not a turn: the page shows it as the summary.
    Without their tags (a turn is shown by its text): one query a page, and one count for a
    later page's first number."""
    limit = clean_limit(limit)
    turns = (
        Memory.objects.filter(session=session)
        .live(timezone.now())
        .exclude(tag_rows__name=SUMMARY_TAG)
    )
    first_number = 1
    if cursor:
        after = decode_cursor(cursor)
        first_number = turns.filter(id__lte=after).count() + 1
        turns = turns.filter(id__gt=after)
    items = list(turns.order_by("id")[: limit + 1])
    next_cursor = encode_cursor(items[limit - 1].pk) if len(items) > limit else None
    return TurnPage(items=items[:limit], next_cursor=next_cursor, first_number=first_number)


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


def maintenance_status(
    *, access: Access, recent: int = RECENT_RUNS, only: str | None = None
) -> list[dict[str, Any]]:
    """Each background job (or ``only`` that one): whether it is on, how often, when it runs
    next, and its last runs (newest first) with what they did."""
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
        if only is not None and spec.job != only:
            continue
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


def queued_jobs(*, access: Access) -> dict[str, Any]:
    """The jobs handed to the worker on request that have not started yet, with when each
    was queued (the earliest, where several scopes wait): those the viewer may see."""
    waiting = QueuedJob.objects.waiting(timezone.now())
    if access.workspace is not None:
        waiting = waiting.filter(Q(workspace__isnull=True) | Q(workspace=access.workspace))
    queued: dict[str, Any] = {}
    for job, queued_at in waiting.order_by("-queued_at").values_list("job", "queued_at"):
        queued[job] = queued_at
    return queued


def importance_history(*, agent: Agent, points: int = SNAPSHOT_POINTS) -> list[ImportanceSnapshot]:
    """The agent's last importance distributions, oldest first, for the decay chart."""
    snapshots = list(ImportanceSnapshot.objects.filter(agent=agent)[:points])
    snapshots.reverse()
    return snapshots
