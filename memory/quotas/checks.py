"""The check a write makes against the quotas of its agent and workspace before it writes
(check_quotas): refused over a hard limit, warned of over a soft one (QuotaWarning); and
how much of a kind still fits the hard limits, for the server's own writes that make what
fits (hard_quota_room)."""

from dataclasses import dataclass
from typing import Any

from memory.exceptions import QuotaExceeded
from memory.quotas.counts import QuotaCounter, count_change, lock_quotas
from memory.quotas.usage import Usage
from tenancy.models import Agent, Quota, QuotaMode


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
    past it), kept exact: set_quotas (memory.quotas.counts) counts a quota when it is set,
    growth of stored memories is added to the count (count_change), deleted rows are taken
    off it (release_quota_usage), and the rare writes it cannot follow (a merge that shrinks
    its memories, a graph rebuild) drop it (forget_quota_counts). Only a quota without a
    count, or with RECOUNT_AFTER rows since, counts its scope's rows in full and keeps the
    count. The write that fills a quota keeps its count too, as refused writes keep nothing
    (their transaction rolls back). So a write refused, or warned of, at a full quota costs
    what one below it costs: a few index entries past the count, not a count of the scope.
    A count dropped at a full quota is counted again by each refused write until one
    commits."""
    quotas = lock_quotas(agent)
    growing = [q for q in quotas if q.mode != QuotaMode.NONE and adding.of(q.kind) > 0]
    warnings: list[QuotaWarning] = []
    counter = QuotaCounter()
    for quota in growing:
        wanted = adding.of(quota.kind)
        used = counter.used(quota)
        if used + 2 * wanted > quota.limit:
            # At the limit (the next such write will not fit): the count is kept now, by
            # a write that commits, so that those refused after it (whose transactions
            # keep nothing) read only the rows stored since this one.
            counter.keep(quota, used)
        if used + wanted > quota.limit:
            warnings.append(_over_limit(agent, quota, used, wanted, enforce=enforce))
    if existing:
        count_change(agent, quotas, adding, memory_id)
    return warnings


def _over_limit(
    agent: Agent, quota: Quota, used: int, wanted: int, *, enforce: bool
) -> QuotaWarning:
    """A write of ``wanted`` more over ``quota`` (``used`` already): QuotaExceeded when the
    quota is hard and enforced, else the warning to give."""
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
    return QuotaWarning(
        kind=quota.kind,
        scope=scope,
        workspace=agent.workspace.slug,
        agent_id=agent_id,
        limit=quota.limit,
        usage=used + wanted,
        mode=quota.mode,
    )


def hard_quota_room(*, agent: Agent, kind: str) -> int | None:
    """How many more of ``kind`` fit the hard quotas of ``agent`` and its workspace (None:
    no hard quota of that kind), read as check_quotas reads usage and in its lock: for the
    server's own writes that make what fits and skip the rest rather than fail."""
    hard = [q for q in lock_quotas(agent) if q.kind == kind and q.mode == QuotaMode.HARD]
    counter = QuotaCounter()
    return min((max(0, q.limit - counter.used(q)) for q in hard), default=None)
