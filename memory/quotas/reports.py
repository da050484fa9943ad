"""Usage against limits, for people: a workspace's or an agent's report (QuotaReport, one
QuotaStatus per kind), as the API, the dashboard's Quotas page and the CLI show it. Read
without the quotas' lock."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from memory.quotas.usage import Usage, agent_usage, usage_by_agent, workspace_usage
from tenancy.models import Agent, Quota, QuotaKind, QuotaMode, Workspace

# A hard quota used to this share of its limit is near it.
NEAR_SHARE = 0.9


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
    def near(self) -> bool:
        """A hard limit not yet reached but within NEAR_SHARE of it: writes will soon be
        refused (the inbox warns of it)."""
        return (
            self.limit is not None
            and self.mode == QuotaMode.HARD
            and not self.over
            and self.usage >= NEAR_SHARE * self.limit
        )

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
    def near(self) -> bool:
        return any(q.near for q in self.quotas)

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
