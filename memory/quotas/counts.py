"""The running counts of quotas (Quota.counted, up to Quota.counted_to_id) and the lock
they are read and written under: locking a scope's quotas, reading a quota's usage as its
count plus the rows stored since, keeping the counts exact as rows are deleted or memories
change, and counting a quota when it is set. How check_quotas uses them: memory.quotas.checks.
"""

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from django.db import connection, transaction
from django.db.models import F, Model, Q

from memory.exceptions import QuotaBelowUsage
from memory.quotas.usage import (
    MEASURED_TABLES,
    TABLE_OF_KIND,
    MeasuredTable,
    Usage,
    agent_usage,
    workspace_usage,
)
from tenancy.models import Agent, Quota, QuotaMode, Workspace
from tenancy.quotas import QuotaLimit
from tenancy.quotas import set_quotas as tenancy_set_quotas

# Rows stored on top of a quota's last count before it is counted anew.
RECOUNT_AFTER = 1000


# The usage of the rows of one agent, or of every agent of a workspace, past an id: raw SQL,
# the same on both engines, as the ORM's building of it cost more than running it.
_SCOPE_USAGE_SQL = """
    SELECT {measures}, COALESCE(MAX(id), 0) FROM {table} WHERE {scope} AND id > %s
"""
_AGENT_SCOPE = "agent_id = %s"
_WORKSPACE_SCOPE = "agent_id IN (SELECT id FROM {agents} WHERE workspace_id = %s)"


def _scope_usage(table: MeasuredTable, quota: Quota, after_id: int) -> tuple[Usage, int, int]:
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
    table = next(t for t in MEASURED_TABLES if t.model is model)
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


class QuotaCounter:
    """The usage of quotas, read in their lock: the running count plus the rows since, or
    else a full count, kept (check_quotas). Each scope's queries of a table are made once,
    whichever of its quotas asks first."""

    def __init__(self) -> None:
        self.since: dict[tuple[MeasuredTable, int | None, int], tuple[Usage, int, int]] = {}
        self.full: dict[tuple[MeasuredTable, int | None], tuple[Usage, int, int]] = {}
        self.last: dict[int, int] = {}

    def used(self, quota: Quota) -> int:
        table = TABLE_OF_KIND[quota.kind]
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


def count_change(agent: Agent, quotas: list[Quota], change: Usage, memory_id: int | None) -> None:
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


def hard_limits_below_usage(
    *, workspace: Workspace, agent: Agent | None, limits: Mapping[str, QuotaLimit | None]
) -> list[dict[str, Any]]:
    """The hard limits of ``limits`` under what the scope holds now: each kind, its limit
    and its usage (none when no hard limit is set)."""
    hard = {k: v for k, v in limits.items() if v is not None and v.mode == QuotaMode.HARD}
    if not hard:
        return []
    usage = agent_usage(agent) if agent is not None else workspace_usage(workspace)
    return [
        {"kind": kind, "limit": value.limit, "usage": usage.of(kind)}
        for kind, value in hard.items()
        if value.limit < usage.of(kind)
    ]


def set_quotas(
    *,
    workspace: Workspace,
    agent: Agent | None = None,
    limits: Mapping[str, QuotaLimit | None],
    actor: str,
    confirm_below_usage: bool = False,
) -> dict[str, QuotaLimit]:
    """tenancy.quotas.set_quotas (its rules, its audit event), then, in the same
    transaction, the scope's usage of each kind set counted and kept with its quota: so
    that even the first writes checked against it, refused ones included (whose
    transactions keep nothing), read only the rows stored since. Here rather than in
    tenancy, which does not know the tables counted. What the API, the dashboard and the
    CLI call.

    A hard limit below the scope's usage would refuse every write that adds to it: it is
    set only with ``confirm_below_usage`` (else QuotaBelowUsage, and nothing is written)."""
    if not confirm_below_usage:
        below = hard_limits_below_usage(workspace=workspace, agent=agent, limits=limits)
        if below:
            held = "; ".join(
                f"{b['kind']}: limit {b['limit']:,}, {b['usage']:,} held" for b in below
            )
            raise QuotaBelowUsage(
                f"A hard quota below what is already held refuses every new write ({held}). "
                "Choose soft, or confirm to set it anyway (the API's confirm_below_usage, "
                "the CLI's --below-usage).",
                details={"below": below},
            )
    with transaction.atomic():
        after = tenancy_set_quotas(workspace=workspace, agent=agent, limits=limits, actor=actor)
        set_kinds = [kind for kind, value in limits.items() if value is not None]
        quotas = Quota.objects.select_for_update().filter(
            workspace=workspace, agent=agent, kind__in=set_kinds
        )
        counter = QuotaCounter()
        for quota in quotas.order_by("pk"):
            if quota.mode != QuotaMode.NONE:
                counter.used(quota)
    return after
