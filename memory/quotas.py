"""Quotas: what an agent and a workspace store, measured against their limits
(tenancy.models.Quota), and the check every write that adds or grows memories makes.

What is measured, the same way on both editions:

- ``memories``: the memories stored (expired ones count until the expiry pass deletes them);
- ``metadata_bytes``: each memory's metadata as JSON in UTF-8 (the measure of
  ``clean_metadata``'s per-memory cap; an empty object is 0), summed;
- ``storage_bytes``: everything of a memory its client controls, summed: content (UTF-8)
  + metadata (as above) + the caller's tags + source refs (as JSON) + user + speaker.

Derived data (vectors, entity tags, the keyword index, facts) is not counted: its size per
memory is bounded, so a limit on memories bounds it. Each memory keeps its two sizes
(``Memory.stored_bytes`` and ``metadata_bytes``), written with it, so usage is one sum over
an index (memory_agent_usage_idx) and never reads the memories' rows.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from memory.exceptions import QuotaExceeded
from memory.models import Memory
from tenancy.models import Agent, Quota, QuotaKind, QuotaMode, Workspace


@dataclass(frozen=True)
class Usage:
    memories: int = 0
    storage_bytes: int = 0
    metadata_bytes: int = 0

    def of(self, kind: str) -> int:
        return int(getattr(self, kind))

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            memories=self.memories + other.memories,
            storage_bytes=self.storage_bytes + other.storage_bytes,
            metadata_bytes=self.metadata_bytes + other.metadata_bytes,
        )

    def __sub__(self, other: "Usage") -> "Usage":
        return self + Usage(-other.memories, -other.storage_bytes, -other.metadata_bytes)

    def as_dict(self) -> dict[str, int]:
        return {kind: self.of(kind) for kind in QuotaKind.values}


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value).encode("utf-8")) if value else 0


def memory_size(
    *,
    content: str,
    metadata: dict[str, Any] | None,
    tags: Iterable[str],
    source_refs: list[str] | None,
    user: str | None,
    speaker: str | None,
) -> Usage:
    """One memory as quotas count it (see the module's docstring); ``tags`` are the
    caller's, not the entity tags derived from the text."""
    metadata_bytes = _json_bytes(metadata)
    stored = (
        len(content.encode("utf-8"))
        + metadata_bytes
        + sum(len(tag.encode("utf-8")) for tag in tags)
        + _json_bytes(source_refs)
        + len((user or "").encode("utf-8"))
        + len((speaker or "").encode("utf-8"))
    )
    return Usage(memories=1, storage_bytes=stored, metadata_bytes=metadata_bytes)


def _usage(memories: QuerySet[Memory]) -> Usage:
    totals = memories.aggregate(
        memories=Count("id"),
        storage_bytes=Coalesce(Sum("stored_bytes"), 0),
        metadata_bytes=Coalesce(Sum("metadata_bytes"), 0),
    )
    return Usage(**totals)


def agent_usage(agent: Agent) -> Usage:
    return _usage(Memory.objects.filter(agent=agent))


def workspace_usage(workspace: Workspace) -> Usage:
    return _usage(Memory.objects.filter(agent__workspace=workspace))


def usage_by_agent(workspace: Workspace) -> dict[int, Usage]:
    """Every agent of ``workspace`` that has memories, by agent pk: one grouped sum."""
    rows = (
        Memory.objects.filter(agent__workspace=workspace)
        .values("agent_id")
        .annotate(
            memories=Count("id"),
            storage_bytes=Coalesce(Sum("stored_bytes"), 0),
            metadata_bytes=Coalesce(Sum("metadata_bytes"), 0),
        )
        .order_by()
    )
    return {
        row["agent_id"]: Usage(row["memories"], row["storage_bytes"], row["metadata_bytes"])
        for row in rows
    }


@dataclass(frozen=True)
class QuotaWarning:
    """A write that took usage over a soft limit (or over a hard one, for a write exempt
    from refusal: see check_quotas)."""

    kind: str
    scope: str  # "agent" or "workspace"
    workspace: str
    agent_id: str | None
    limit: int
    usage: int
    mode: str

    @property
    def message(self) -> str:
        whose = f"agent {self.agent_id!r}" if self.scope == "agent" else "the workspace"
        return f"{whose} is over its {self.kind} quota: {self.usage} of {self.limit}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": "quota_warning",
            "message": self.message,
            "quota": self.kind,
            "scope": self.scope,
            "workspace": self.workspace,
            "agent_id": self.agent_id,
            "limit": self.limit,
            "usage": self.usage,
            "mode": self.mode,
        }


# New memories counted on top of a quota's last count before it is counted anew.
RECOUNT_AFTER = 1000


# The usage of the memories of one agent, or of every agent of a workspace, past an id: raw
# SQL, the same on both engines, as the ORM's building of it cost more than running it.
_SCOPE_USAGE_SQL = """
    SELECT COUNT(*), COALESCE(SUM(stored_bytes), 0), COALESCE(SUM(metadata_bytes), 0),
           COALESCE(MAX(id), 0)
    FROM {memories} WHERE {scope} AND id > %s
"""
_AGENT_SCOPE = "agent_id = %s"
_WORKSPACE_SCOPE = "agent_id IN (SELECT id FROM {agents} WHERE workspace_id = %s)"


def _scope_usage(agent: Agent, quota: Quota, after_id: int) -> tuple[Usage, int]:
    """The usage of ``quota``'s scope in memories of ids past ``after_id``, and the
    highest id among them (``after_id`` when there are none)."""
    if quota.agent_id is None:
        scope, owner = _WORKSPACE_SCOPE.format(agents=Agent._meta.db_table), agent.workspace_id
    else:
        scope, owner = _AGENT_SCOPE, agent.pk
    sql = _SCOPE_USAGE_SQL.format(memories=Memory._meta.db_table, scope=scope)
    with connection.cursor() as cursor:
        cursor.execute(sql, [owner, after_id])
        memories, storage, metadata, last = cursor.fetchone()
    return Usage(int(memories), int(storage), int(metadata)), max(int(last), after_id)


def lock_quotas(agent: Agent) -> list[Quota]:
    """The quotas of ``agent`` and its workspace, locked until the transaction ends (see
    check_quotas). A writer that takes other locks before it checks its quotas (a merge)
    takes these first, as a store does, so that the two never wait for each other in
    opposite orders."""
    return list(
        Quota.objects.select_for_update()
        .filter(workspace_id=agent.workspace_id)
        .filter(Q(agent__isnull=True) | Q(agent=agent))
        .order_by("pk")
    )


def check_quotas(
    *, agent: Agent, adding: Usage, enforce: bool = True, existing: bool = False
) -> list[QuotaWarning]:
    """Run in the writer's transaction, before it writes: whether ``adding`` more to
    ``agent`` (new memories; ``existing``: growth of stored ones) fits the agent's and its
    workspace's quotas. A hard quota it would go over is QuotaExceeded (the caller's
    transaction writes nothing); a soft one, a warning. ``enforce`` False (the server's own
    writes: merges, idle-session summaries) never refuses: over a hard quota it warns too,
    so a worker's pass is never cut short. Shrinking is never refused, even over a limit.

    Without a quota of the agent or its workspace this is one indexed lookup. With one,
    the quota rows are locked (PostgreSQL: SELECT ... FOR UPDATE; SQLite's IMMEDIATE
    transactions already hold the database's write lock) so that writers of one scope take
    turns and each counts the rows the one before it committed: N parallel writers
    against a limit of N leave exactly N. Every memory is stored under that lock, so ids
    stored later are higher than a count's last id.

    Usage is read as the quota's last count plus the memories stored since (an index
    range over ids past it): an upper bound, as deletions since only lower the usage and
    growth of stored memories is added to the count. Only when that bound does not fit
    (or RECOUNT_AFTER memories came since) are the scope's memories counted in full, and
    the count kept with the write. So a write far from its limits reads a few index
    entries; one near or over a limit (refused, or warned of) counts the scope's memories,
    an index-only scan."""
    quotas = lock_quotas(agent)
    growing = [q for q in quotas if q.mode != QuotaMode.NONE and adding.of(q.kind) > 0]
    warnings: list[QuotaWarning] = []
    # Each scope's queries are made once, whichever of its quotas asks first.
    since: dict[tuple[int | None, int], Usage] = {}
    full: dict[int | None, tuple[Usage, int]] = {}
    for quota in growing:
        wanted = adding.of(quota.kind)
        if quota.counted is not None:
            key = (quota.agent_id, quota.counted_to_id)
            if key not in since:
                since[key], _ = _scope_usage(agent, quota, quota.counted_to_id)
            bound = quota.counted + since[key].of(quota.kind)
            if since[key].memories <= RECOUNT_AFTER and bound + wanted <= quota.limit:
                continue
        if quota.agent_id not in full:
            full[quota.agent_id] = _scope_usage(agent, quota, 0)
        usage, last = full[quota.agent_id]
        used = usage.of(quota.kind)
        quota.counted, quota.counted_to_id = used, last
        quota.save(update_fields=["counted", "counted_to_id"])
        if used + wanted <= quota.limit:
            continue
        scope = "workspace" if quota.agent_id is None else "agent"
        agent_id = agent.agent_id if scope == "agent" else None
        if quota.mode == QuotaMode.HARD and enforce:
            whose = f"agent {agent_id!r}" if agent_id else f"workspace {agent.workspace.slug!r}"
            raise QuotaExceeded(
                f"The {quota.kind} quota of {whose} would be exceeded: "
                f"{used} used + {wanted} > limit {quota.limit}",
                details={
                    "quota": quota.kind,
                    "scope": scope,
                    "workspace": agent.workspace.slug,
                    "agent_id": agent_id,
                    "limit": quota.limit,
                    "usage": used,
                    "requested": wanted,
                },
            )
        warnings.append(
            QuotaWarning(
                kind=quota.kind,
                scope=scope,
                workspace=agent.workspace.slug,
                agent_id=agent_id,
                limit=quota.limit,
                usage=used + wanted,
                mode=quota.mode,
            )
        )
    if existing:
        # Stored memories grow: their ids are not past any count, so the counts take it.
        for quota in growing:
            if quota.counted is not None:
                Quota.objects.filter(pk=quota.pk).update(
                    counted=F("counted") + adding.of(quota.kind)
                )
    return warnings


@dataclass(frozen=True)
class QuotaStatus:
    kind: str
    usage: int
    limit: int | None = None
    mode: str | None = None

    @property
    def over(self) -> bool:
        return self.limit is not None and self.usage > self.limit

    @property
    def flagged(self) -> bool:
        """Over a limit that is enforced or warned of (``none`` only shows usage)."""
        return self.over and self.mode != QuotaMode.NONE

    @property
    def percent(self) -> int | None:
        if self.limit is None:
            return None
        return 100 if self.limit == 0 else min(100, round(100 * self.usage / self.limit))

    def as_dict(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            "mode": self.mode,
            "usage": self.usage,
            "over": self.over,
        }


@dataclass(frozen=True)
class QuotaReport:
    """The usage of a workspace (``agent_id`` None) or an agent against its quotas."""

    workspace: str
    agent_id: str | None
    quotas: list[QuotaStatus]

    @property
    def scope(self) -> str:
        return "workspace" if self.agent_id is None else "agent"

    @property
    def flagged(self) -> bool:
        return any(q.flagged for q in self.quotas)

    @property
    def has_limits(self) -> bool:
        return any(q.limit is not None for q in self.quotas)

    def status(self, kind: str) -> QuotaStatus:
        return next(q for q in self.quotas if q.kind == kind)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "workspace": self.workspace,
            "agent_id": self.agent_id,
            "flagged": self.flagged,
            "usage": {q.kind: q.usage for q in self.quotas},
            "quotas": {q.kind: q.as_dict() if q.limit is not None else None for q in self.quotas},
        }


def _report(
    workspace: Workspace, agent: Agent | None, usage: Usage, quotas: Iterable[Quota]
) -> QuotaReport:
    limits = {q.kind: q for q in quotas}
    return QuotaReport(
        workspace=workspace.slug,
        agent_id=agent.agent_id if agent is not None else None,
        quotas=[
            QuotaStatus(
                kind=kind,
                usage=usage.of(kind),
                limit=limits[kind].limit if kind in limits else None,
                mode=limits[kind].mode if kind in limits else None,
            )
            for kind in QuotaKind.values
        ],
    )


def quota_report(*, workspace: Workspace, agent: Agent | None = None) -> QuotaReport:
    """The usage and quotas of ``workspace`` as a whole, or of its ``agent``."""
    quotas = Quota.objects.filter(workspace=workspace, agent=agent)
    usage = agent_usage(agent) if agent is not None else workspace_usage(workspace)
    return _report(workspace, agent, usage, quotas)


def quota_overview(workspace: Workspace) -> tuple[QuotaReport, list[QuotaReport]]:
    """The workspace's report and every agent's (flagged first, then by storage): three
    queries whatever the number of agents."""
    quotas = list(Quota.objects.filter(workspace=workspace))
    by_agent = usage_by_agent(workspace)
    total = sum(by_agent.values(), Usage())
    reports = [
        _report(
            workspace,
            agent,
            by_agent.get(agent.pk, Usage()),
            [q for q in quotas if q.agent_id == agent.pk],
        )
        for agent in Agent.objects.filter(workspace=workspace)
    ]
    reports.sort(key=lambda r: (not r.flagged, -r.status(QuotaKind.STORAGE_BYTES).usage))
    workspace_quotas = [q for q in quotas if q.agent_id is None]
    return _report(workspace, None, total, workspace_quotas), reports
