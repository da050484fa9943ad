"""The inbox: what needs a person now, across the agents a viewer sees. Disputes waiting in
the review queue (counted per agent, the oldest or the newest first), current facts that
need re-confirmation, maintenance runs that failed or were interrupted lately, and quotas
over their limit or near a hard one. Each section is bounded and links to the page that settles it.

Reads only: opening the inbox changes nothing."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from facts.queries import bounded_count
from facts.staleness import stale_facts
from facts.triage import ASSIGNED_TO_ME, SNOOZED_ONLY, ReviewFilters, disputes_matching
from memory.models import MaintenanceJob, MaintenanceRun, RunStatus
from memory.quotas import QuotaReport, quota_overview
from tenancy.access import Access
from tenancy.models import Workspace

# The per-agent dispute rows shown; the queue has them all.
AGENTS_SHOWN = 50
# Facts needing re-confirmation counted up to this many ("50 or more").
RECONFIRM_COUNTED = 50
# Failed runs of the last FAILED_DAYS days, at most FAILED_SHOWN of them.
FAILED_DAYS = 7
FAILED_SHOWN = 10
# Staff see every workspace: the quotas of at most this many are read.
QUOTA_WORKSPACES_MAX = 20


@dataclass
class Inbox:
    disputes: list[dict[str, Any]] = field(default_factory=list)
    disputes_total: int = 0
    # Disputes assigned to the viewer, and those snoozed (not counted above), bounded.
    mine: int = 0
    snoozed: int = 0
    reconfirm: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    quotas: list[QuotaReport] = field(default_factory=list)
    quota_workspaces_capped: bool = False

    @property
    def empty(self) -> bool:
        return not (self.disputes_total or self.reconfirm or self.failed or self.quotas)


def disputes_by_agent(access: Access, *, oldest_first: bool = True) -> list[dict[str, Any]]:
    """Each visible agent with disputes waiting (not snoozed): how many, the oldest and the
    newest; the agents whose oldest dispute is oldest first (or those with the newest first)."""
    rows = list(
        disputes_matching(access, ReviewFilters())
        .values("agent_id")
        .annotate(count=Count("id"), oldest=Min("recorded_at"), newest=Max("recorded_at"))
        .order_by()
    )
    agents = access.agents().select_related("workspace").in_bulk([r["agent_id"] for r in rows])
    items = [
        {
            "agent_id": agents[r["agent_id"]].agent_id,
            "ref": access.agent_ref(agents[r["agent_id"]]),
            "workspace": agents[r["agent_id"]].workspace.slug,
            "count": r["count"],
            "oldest": r["oldest"],
            "newest": r["newest"],
        }
        for r in rows
        if r["agent_id"] in agents
    ]
    if oldest_first:
        items.sort(key=lambda i: (i["oldest"], i["agent_id"]))
    else:
        items.sort(key=lambda i: (i["newest"], i["agent_id"]), reverse=True)
    return items


def failed_runs(access: Access, *, now: datetime) -> list[dict[str, Any]]:
    """The maintenance runs of the last FAILED_DAYS days that failed or were interrupted,
    of the viewer's workspace (or every one, for staff), newest first."""
    runs = MaintenanceRun.objects.filter(
        status__in=[RunStatus.FAILED, RunStatus.INTERRUPTED],
        started_at__gte=now - timedelta(days=FAILED_DAYS),
    )
    if access.workspace is not None:
        runs = runs.filter(Q(workspace__isnull=True) | Q(workspace=access.workspace))
    return [
        {
            "job": run.job,
            "label": MaintenanceJob(run.job).label,
            "status": run.status,
            "started_at": run.started_at,
            "error": run.error.splitlines()[0][:200] if run.error else "",
        }
        for run in runs.order_by("-started_at", "-pk")[:FAILED_SHOWN]
    ]


def quota_alerts(access: Access) -> tuple[list[QuotaReport], bool]:
    """The workspaces and agents over a quota that is enforced or warned of, or near a hard
    one (memory.quotas.NEAR_SHARE of it), and whether
    staff's workspaces were more than QUOTA_WORKSPACES_MAX (the first by slug are read)."""
    if access.workspace is not None:
        workspaces, capped = [access.workspace], False
    else:
        found = list(Workspace.objects.order_by("slug")[: QUOTA_WORKSPACES_MAX + 1])
        workspaces, capped = found[:QUOTA_WORKSPACES_MAX], len(found) > QUOTA_WORKSPACES_MAX
    flagged = []
    for workspace in workspaces:
        total, agents = quota_overview(workspace)
        flagged += [report for report in (total, *agents) if report.flagged or report.near]
    return flagged, capped


def inbox(
    access: Access, *, me: int | None, oldest_first: bool = True, now: datetime | None = None
) -> Inbox:
    """What needs the person ``me`` (a user id) now, as ``access`` sees it."""
    now = now or timezone.now()
    disputes = disputes_by_agent(access, oldest_first=oldest_first)
    mine = disputes_matching(access, ReviewFilters(assigned=ASSIGNED_TO_ME, me=me))
    snoozed = disputes_matching(access, ReviewFilters(snoozed=SNOOZED_ONLY))
    quotas, capped = quota_alerts(access)
    return Inbox(
        disputes=disputes[:AGENTS_SHOWN],
        disputes_total=sum(d["count"] for d in disputes),
        mine=bounded_count(mine),
        snoozed=bounded_count(snoozed),
        reconfirm=len(stale_facts(access, limit=RECONFIRM_COUNTED, now=now)),
        failed=failed_runs(access, now=now),
        quotas=quotas,
        quota_workspaces_capped=capped,
    )
