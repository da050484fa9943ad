"""Quotas: what an agent and a workspace hold, measured against their limits
(tenancy.models.Quota), and the check every write that adds or grows what they hold makes.

What is measured, the same way on both editions:

- ``memories``: the memories stored (expired ones count until the expiry pass deletes them);
- ``metadata_bytes``: each memory's metadata as JSON in UTF-8 (the measure of
  ``clean_metadata``'s per-memory cap; an empty object is 0), summed;
- ``storage_bytes``: everything of a memory its client controls, summed: content (UTF-8)
  + metadata (as above) + the caller's tags + source refs (as JSON) + user + speaker;
- ``sessions``: the sessions started, active or ended, until deleted;
- ``facts``: the fact rows held, history and soft-deleted ones included (each keeps its
  sources), until erased: a new value of a slot is a new fact, a confirmation is not;
- ``entities``: the entities of the agent's graph.

Derived data (vectors, entity tags, the keyword index) is not counted: its size per memory
is bounded, so a limit on memories bounds it. Each memory keeps its two sizes
(``Memory.stored_bytes`` and ``metadata_bytes``), written with it, so usage is one sum over
an index (memory_agent_usage_idx) and never reads the memories' rows.
"""

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, F, Model, Q, Sum
from django.db.models.functions import Coalesce

from memory.exceptions import QuotaExceeded
from memory.models import Entity, Memory, Session
from tenancy.models import Agent, Quota, QuotaKind, QuotaMode, Workspace
from tenancy.quotas import QuotaLimit
from tenancy.quotas import set_quotas as tenancy_set_quotas


@dataclass(frozen=True)
class Usage:
    memories: int = 0
    storage_bytes: int = 0
    metadata_bytes: int = 0
    sessions: int = 0
    facts: int = 0
    entities: int = 0

    def of(self, kind: str) -> int:
        return int(getattr(self, kind))

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(**{f.name: self.of(f.name) + other.of(f.name) for f in fields(Usage)})

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(**{f.name: self.of(f.name) - other.of(f.name) for f in fields(Usage)})

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


@dataclass(frozen=True)
class _Table:
    """The rows some quota kinds measure: each kind a count of the rows (column None) or
    a sum of a column. The first is the rows' count."""

    model: type[Model]
    measures: tuple[tuple[str, str | None], ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind, _ in self.measures)

    def sql(self) -> str:
        return ", ".join(
            "COUNT(*)" if column is None else f"COALESCE(SUM({column}), 0)"
            for _, column in self.measures
        )

    def aggregates(self) -> dict[str, Any]:
        return {
            kind: Count("id") if column is None else Coalesce(Sum(column), 0)
            for kind, column in self.measures
        }


# The tables memory counts; an app above it adds its own (count_in_quotas).
_TABLES: list[_Table] = [
    _Table(
        Memory,
        (
            (QuotaKind.MEMORIES, None),
            (QuotaKind.STORAGE_BYTES, "stored_bytes"),
            (QuotaKind.METADATA_BYTES, "metadata_bytes"),
        ),
    ),
    _Table(Session, ((QuotaKind.SESSIONS, None),)),
    _Table(Entity, ((QuotaKind.ENTITIES, None),)),
]
_TABLE_OF = {kind: table for table in _TABLES for kind in table.kinds}


def count_in_quotas(model: type[Model], measures: tuple[tuple[str, str | None], ...]) -> None:
    """Count the rows of ``model`` (an app above memory: facts) against the quotas of
    ``measures``' kinds, as memory counts its own: called once, from the app's ready()."""
    if any(table.model is model for table in _TABLES):
        return
    table = _Table(model, measures)
    _TABLES.append(table)
    _TABLE_OF.update(dict.fromkeys(table.kinds, table))


def _usage(scope: Q) -> Usage:
    return sum(
        (
            Usage(**table.model._default_manager.filter(scope).aggregate(**table.aggregates()))
            for table in _TABLES
        ),
        Usage(),
    )


def agent_usage(agent: Agent) -> Usage:
    return _usage(Q(agent=agent))


def workspace_usage(workspace: Workspace) -> Usage:
    return _usage(Q(agent__workspace=workspace))


def usage_by_agent(workspace: Workspace) -> dict[int, Usage]:
    """Every agent of ``workspace`` that holds anything, by agent pk: one grouped sum per
    table measured."""
    usage: dict[int, Usage] = {}
    for table in _TABLES:
        rows = (
            table.model._default_manager.filter(agent__workspace=workspace)
            .values("agent_id")
            .annotate(**table.aggregates())
            .order_by()
        )
        for row in rows:
            agent_id = row.pop("agent_id")
            usage[agent_id] = usage.get(agent_id, Usage()) + Usage(**row)
    return usage


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


# Rows stored on top of a quota's last count before it is counted anew.
RECOUNT_AFTER = 1000


# The usage of the rows of one agent, or of every agent of a workspace, past an id: raw SQL,
# the same on both engines, as the ORM's building of it cost more than running it.
_SCOPE_USAGE_SQL = """
    SELECT {measures}, COALESCE(MAX(id), 0) FROM {table} WHERE {scope} AND id > %s
"""
_AGENT_SCOPE = "agent_id = %s"
_WORKSPACE_SCOPE = "agent_id IN (SELECT id FROM {agents} WHERE workspace_id = %s)"


def _scope_usage(table: _Table, quota: Quota, after_id: int) -> tuple[Usage, int, int]:
    """The usage of ``quota``'s scope in ``table``'s rows of ids past ``after_id``, their
    number, and the highest id among them (``after_id`` when there are none)."""
    if quota.agent_id is None:
        scope, owner = _WORKSPACE_SCOPE.format(agents=Agent._meta.db_table), quota.workspace_id
    else:
        scope, owner = _AGENT_SCOPE, quota.agent_id
    sql = _SCOPE_USAGE_SQL.format(
        measures=table.sql(), table=table.model._meta.db_table, scope=scope
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [owner, after_id])
        *measured, last = cursor.fetchone()
    usage = Usage(**{kind: int(value) for kind, value in zip(table.kinds, measured, strict=True)})
    return usage, int(measured[0]), max(int(last), after_id)


def _scope_quotas(agent: Agent) -> Any:
    return Quota.objects.filter(workspace_id=agent.workspace_id).filter(
        Q(agent__isnull=True) | Q(agent=agent)
    )


def lock_quotas(agent: Agent) -> list[Quota]:
    """The quotas of ``agent`` and its workspace, locked until the transaction ends (see
    check_quotas). A writer that takes other locks before it checks its quotas (a merge, a
    fact's slot, a graph build) or that deletes what they count (release_quota_usage)
    takes these first, as a store does, so that the two never wait for each other in
    opposite orders."""
    return list(_scope_quotas(agent).select_for_update().order_by("pk"))


def forget_quota_counts(*, agent: Agent, kinds: Iterable[str] | None = None) -> None:
    """In the transaction of a write that deletes or shrinks what ``agent`` holds of
    ``kinds`` (None: of every kind) in a way release_quota_usage cannot follow (an edit
    that shrinks a memory, a rebuild of the graph): the running counts of the agent's and
    its workspace's quotas of those kinds are dropped, so that the next check counts them
    anew. Takes the quotas' lock (lock_quotas) first, like a store."""
    lock_quotas(agent)
    quotas = _scope_quotas(agent).exclude(counted=None)
    if kinds is not None:
        quotas = quotas.filter(kind__in=list(kinds))
    quotas.update(counted=None)


def release_quota_usage(*, agent: Agent, model: type[Model], ids: Collection[int]) -> None:
    """In the transaction that deletes these rows of ``model`` (memories, sessions, facts
    or entities of ``agent``), before it does: their usage leaves the running counts of
    the agent's and its workspace's quotas that counted them (ids up to the count's last;
    those past it are read anew by every check), so the counts stay exact without a count
    of the scope. One sum over the rows by id per count. Takes the quotas' lock first, as
    a store does: a deleting writer calls lock_quotas before its other locks."""
    table = next(t for t in _TABLES if t.model is model)
    counted = [q for q in lock_quotas(agent) if q.kind in table.kinds and q.counted is not None]
    ids = list(ids)
    if not counted or not ids:
        return
    gone: dict[int, Usage] = {}
    for quota in counted:
        upto = quota.counted_to_id
        if upto not in gone:
            rows = model._default_manager.filter(pk__in=ids, pk__lte=upto)
            gone[upto] = Usage(**rows.aggregate(**table.aggregates()))
        if gone[upto].of(quota.kind):
            Quota.objects.filter(pk=quota.pk).update(
                counted=F("counted") - gone[upto].of(quota.kind)
            )


class _Counter:
    """The usage of quotas, read in their lock: the running count plus the rows since, or
    else a full count, kept (check_quotas). Each scope's queries of a table are made once,
    whichever of its quotas asks first."""

    def __init__(self) -> None:
        self.since: dict[tuple[_Table, int | None, int], tuple[Usage, int, int]] = {}
        self.full: dict[tuple[_Table, int | None], tuple[Usage, int, int]] = {}
        self.last: dict[int, int] = {}

    def used(self, quota: Quota) -> int:
        table = _TABLE_OF[quota.kind]
        if quota.counted is not None:
            key = (table, quota.agent_id, quota.counted_to_id)
            if key not in self.since:
                self.since[key] = _scope_usage(table, quota, quota.counted_to_id)
            usage, rows, last = self.since[key]
            if rows <= RECOUNT_AFTER:
                self.last[quota.pk] = last
                return quota.counted + usage.of(quota.kind)
        if (table, quota.agent_id) not in self.full:
            self.full[(table, quota.agent_id)] = _scope_usage(table, quota, 0)
        usage, _, last = self.full[(table, quota.agent_id)]
        quota.counted, quota.counted_to_id = usage.of(quota.kind), last
        quota.save(update_fields=["counted", "counted_to_id"])
        return quota.counted

    def keep(self, quota: Quota, used: int) -> None:
        """Keep ``used`` (read by ``used``) as the quota's count, up to the rows read."""
        last = self.last.get(quota.pk, quota.counted_to_id)
        if last != quota.counted_to_id:
            quota.counted, quota.counted_to_id = used, last
            quota.save(update_fields=["counted", "counted_to_id"])


def set_quotas(
    *,
    workspace: Workspace,
    agent: Agent | None = None,
    limits: Mapping[str, QuotaLimit | None],
    actor: str,
) -> dict[str, QuotaLimit]:
    """tenancy.quotas.set_quotas (its rules, its audit event), then, in the same
    transaction, the scope's usage of each kind set counted and kept with its quota: so
    that even the first writes checked against it, refused ones included (whose
    transactions keep nothing), read only the rows stored since. Here rather than in
    tenancy, which does not know the tables counted. What the API, the dashboard and the
    CLI call."""
    with transaction.atomic():
        after = tenancy_set_quotas(workspace=workspace, agent=agent, limits=limits, actor=actor)
        set_kinds = [kind for kind, value in limits.items() if value is not None]
        quotas = Quota.objects.select_for_update().filter(
            workspace=workspace, agent=agent, kind__in=set_kinds
        )
        counter = _Counter()
        for quota in quotas.order_by("pk"):
            if quota.mode != QuotaMode.NONE:
                counter.used(quota)
    return after


def check_quotas(
    *,
    agent: Agent,
    adding: Usage,
    enforce: bool = True,
    existing: bool = False,
    memory_id: int | None = None,
) -> list[QuotaWarning]:
    """Run in the writer's transaction, before it writes: whether ``adding`` more to
    ``agent`` (new rows; ``existing``: growth, or shrinking, of stored memories, of the one
    ``memory_id`` when it is one) fits the
    agent's and its workspace's quotas. A hard quota it would go over is QuotaExceeded (the
    caller's transaction writes nothing); a soft one, a warning. ``enforce`` False (the
    server's own writes: merges, idle-session summaries) never refuses: over a hard quota
    it warns too, so a worker's pass is never cut short. Shrinking is never refused, even
    over a limit.

    Without a quota of the agent or its workspace this is one indexed lookup. With one,
    the quota rows are locked (PostgreSQL: SELECT ... FOR UPDATE; SQLite's IMMEDIATE
    transactions already hold the database's write lock) so that writers of one scope take
    turns and each counts the rows the one before it committed: N parallel writers
    against a limit of N leave exactly N. Every counted row is written under that lock, so
    ids stored later are higher than a count's last id.

    Usage is the quota's running count plus the rows stored since (an index range over ids
    past it), kept exact: set_quotas (here) counts a quota when it is set, growth of stored
    memories is added to the count (_count_change), deleted rows are taken off it
    (release_quota_usage), and the rare writes it cannot follow (a merge that shrinks its
    memories, a graph rebuild) drop it (forget_quota_counts). Only a quota without a count, or with
    RECOUNT_AFTER rows since, counts its scope's rows in full and keeps the count. The
    write that fills a quota keeps its count too, as refused writes keep nothing (their
    transaction rolls back). So a write refused, or warned of, at a full quota costs what
    one below it costs: a few index entries past the count, not a count of the scope.
    A count dropped at a full quota is counted again by each refused write until one
    commits."""
    quotas = lock_quotas(agent)
    growing = [q for q in quotas if q.mode != QuotaMode.NONE and adding.of(q.kind) > 0]
    warnings: list[QuotaWarning] = []
    counter = _Counter()
    for quota in growing:
        wanted = adding.of(quota.kind)
        used = counter.used(quota)
        if used + 2 * wanted > quota.limit:
            # At the limit (the next such write will not fit): the count is kept now, by
            # a write that commits, so that those refused after it (whose transactions
            # keep nothing) read only the rows stored since this one.
            counter.keep(quota, used)
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
        _count_change(agent, quotas, adding, memory_id)
    return warnings


def _count_change(agent: Agent, quotas: list[Quota], change: Usage, memory_id: int | None) -> None:
    """Stored memories change by ``change``: the counts that hold them take it. The one
    memory ``memory_id`` is in a count when its id is not past the count's last (a memory
    past it is read as it is now by every check). Without it (a merge: several memories),
    growth is added (an upper bound) and shrinking drops the counts (forget_quota_counts)."""
    shrunk: list[str] = []
    for quota in quotas:
        delta = change.of(quota.kind)
        if quota.mode == QuotaMode.NONE or not delta or quota.counted is None:
            continue
        if memory_id is not None and memory_id > quota.counted_to_id:
            continue
        if memory_id is None and delta < 0:
            shrunk.append(quota.kind)
            continue
        Quota.objects.filter(pk=quota.pk).update(counted=F("counted") + delta)
    if shrunk:
        forget_quota_counts(agent=agent, kinds=shrunk)


def hard_quota_room(*, agent: Agent, kind: str) -> int | None:
    """How many more of ``kind`` fit the hard quotas of ``agent`` and its workspace (None:
    no hard quota of that kind), read as check_quotas reads usage and in its lock: for the
    server's own writes that make what fits and skip the rest rather than fail."""
    hard = [q for q in lock_quotas(agent) if q.kind == kind and q.mode == QuotaMode.HARD]
    counter = _Counter()
    return min((max(0, q.limit - counter.used(q)) for q in hard), default=None)


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
