"""Setting quotas: the one write of tenancy.models.Quota, shared by the API, the dashboard
and the CLI. How usage is measured and enforced: memory.quotas."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from dewee.errors import InvalidInput
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, Quota, QuotaKind, QuotaMode, Workspace

# Far above any real database, and within every engine's 64-bit integer.
QUOTA_LIMIT_MAX = 2**53


@dataclass(frozen=True)
class QuotaLimit:
    limit: int
    mode: str = QuotaMode.HARD

    def as_dict(self) -> dict[str, Any]:
        return {"limit": self.limit, "mode": self.mode}


def clean_quota_limit(kind: str, value: QuotaLimit) -> QuotaLimit:
    limit, mode = value.limit, value.mode
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidInput(f"{kind}.limit", "must be a whole number")
    if not 0 <= limit <= QUOTA_LIMIT_MAX:
        raise InvalidInput(f"{kind}.limit", f"must be between 0 and {QUOTA_LIMIT_MAX}")
    if mode not in QuotaMode.values:
        raise InvalidInput(
            f"{kind}.mode", f"must be one of {', '.join(QuotaMode.values)}; got {mode!r}"
        )
    return QuotaLimit(limit=limit, mode=str(mode))


def quota_limits(*, workspace: Workspace, agent: Agent | None = None) -> dict[str, QuotaLimit]:
    """The limits set on the workspace itself (``agent`` None) or on one of its agents."""
    rows = Quota.objects.filter(workspace=workspace, agent=agent)
    return {row.kind: QuotaLimit(limit=row.limit, mode=row.mode) for row in rows}


def set_quotas(
    *,
    workspace: Workspace,
    agent: Agent | None = None,
    limits: Mapping[str, QuotaLimit | None],
    actor: str,
) -> dict[str, QuotaLimit]:
    """Set (a QuotaLimit) or remove (None) the quotas of the kinds in ``limits`` for the
    workspace (``agent`` None: all its agents together) or one agent of it; kinds not
    named keep theirs. All checked before any is written; one audit event with the limits
    before and after. Returns the scope's limits now. A limit below the current usage is
    allowed: writes that grow usage are then refused (hard) or warned of (soft)."""
    if agent is not None and agent.workspace_id != workspace.pk:
        raise ValueError("the agent is not of this workspace")
    cleaned: dict[str, QuotaLimit | None] = {}
    for kind, value in limits.items():
        if kind not in QuotaKind.values:
            raise InvalidInput(kind, f"is not a quota; quotas are {', '.join(QuotaKind.values)}")
        cleaned[kind] = None if value is None else clean_quota_limit(kind, value)
    with transaction.atomic():
        before = quota_limits(workspace=workspace, agent=agent)
        for kind, value in cleaned.items():
            if value is None:
                Quota.objects.filter(workspace=workspace, agent=agent, kind=kind).delete()
            else:
                Quota.objects.update_or_create(
                    workspace=workspace,
                    agent=agent,
                    kind=kind,
                    # Counted anew: a count kept while the mode was none missed growth.
                    defaults={
                        "limit": value.limit,
                        "mode": value.mode,
                        "updated_by": actor,
                        "counted": None,
                        "counted_to_id": 0,
                    },
                )
        after = quota_limits(workspace=workspace, agent=agent)
        record_event(
            workspace_id=workspace.pk,
            agent=agent,
            actor=actor,
            action=AuditAction.QUOTA_SET,
            target_type="agent" if agent is not None else "workspace",
            target_id=agent.agent_id[:64] if agent is not None else workspace.slug,
            details={
                "before": {kind: v.as_dict() for kind, v in before.items()},
                "after": {kind: v.as_dict() for kind, v in after.items()},
            },
        )
    return after
