"""Quotas: the usage of the workspace and its agents against their limits, and setting them.

A quota body names each kind; a kind given null (or left out) has no limit: PUT replaces
the scope's quotas as a whole."""

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field, StrictBool

from dewee.api_auth import ADMIN, READ
from dewee.schemas import StrictSchema
from memory.quotas import quota_overview, quota_report, set_quotas
from tenancy.access import request_access
from tenancy.models import QuotaKind
from tenancy.quotas import QUOTA_LIMIT_MAX, QuotaLimit

router = Router()

Mode = Literal["hard", "soft", "none"]


class QuotaLimitIn(StrictSchema):
    limit: int = Field(ge=0, le=QUOTA_LIMIT_MAX)
    mode: Mode = Field("hard", description="hard: refuse; soft: write and warn; none: show only")


class QuotasIn(StrictSchema):
    memories: QuotaLimitIn | None = None
    storage_bytes: QuotaLimitIn | None = None
    metadata_bytes: QuotaLimitIn | None = None
    sessions: QuotaLimitIn | None = None
    facts: QuotaLimitIn | None = None
    entities: QuotaLimitIn | None = None
    confirm_below_usage: StrictBool = Field(
        False,
        description="Set a hard limit below the usage it limits (every write that adds to it "
        "is then refused); without it such a request is refused with confirmation_required "
        "and details.below, and nothing is set.",
    )


class QuotaOut(Schema):
    limit: int
    mode: Mode
    usage: int
    over: bool


class QuotaReportOut(Schema):
    scope: Literal["workspace", "agent"]
    workspace: str
    agent_id: str | None
    flagged: bool = Field(description="Over a hard or soft limit.")
    usage: dict[str, int]
    quotas: dict[str, QuotaOut | None]


class QuotaOverviewOut(Schema):
    workspace: QuotaReportOut
    agents: list[QuotaReportOut]


def _limits(payload: QuotasIn) -> dict[str, QuotaLimit | None]:
    values: dict[str, QuotaLimitIn | None] = {
        kind: getattr(payload, kind) for kind in QuotaKind.values
    }
    return {
        kind: QuotaLimit(limit=value.limit, mode=value.mode) if value is not None else None
        for kind, value in values.items()
    }


@router.get(
    "/quotas",
    response=QuotaOverviewOut,
    tags=["quotas"],
    summary="Usage and quotas of the workspace and each of its agents",
    auth=READ,
)
def list_quotas(request: HttpRequest) -> dict[str, Any]:
    access = request_access(request)
    assert access.workspace is not None
    access.require_every_agent("read the workspace's usage")
    workspace, agents = quota_overview(access.workspace)
    return {"workspace": workspace.as_dict(), "agents": [a.as_dict() for a in agents]}


@router.get(
    "/workspace/quota",
    response=QuotaReportOut,
    tags=["quotas"],
    summary="The workspace's usage (all its agents) and quotas",
    auth=READ,
)
def get_workspace_quota(request: HttpRequest) -> dict[str, Any]:
    access = request_access(request)
    assert access.workspace is not None
    access.require_every_agent("read the workspace's usage")
    return quota_report(workspace=access.workspace).as_dict()


@router.put(
    "/workspace/quota",
    response=QuotaReportOut,
    tags=["quotas"],
    summary="Replace the workspace's quotas (all its agents together)",
    auth=ADMIN,
)
def put_workspace_quota(request: HttpRequest, payload: QuotasIn) -> dict[str, Any]:
    access = request_access(request)
    assert access.workspace is not None
    access.require_every_agent("set the workspace's quotas")
    set_quotas(
        workspace=access.workspace,
        limits=_limits(payload),
        actor=access.actor,
        confirm_below_usage=payload.confirm_below_usage,
    )
    return quota_report(workspace=access.workspace).as_dict()


@router.get(
    "/agents/{path:agent_id}/quota",
    response=QuotaReportOut,
    tags=["quotas"],
    summary="An agent's usage and quotas",
    auth=READ,
)
def get_agent_quota(request: HttpRequest, agent_id: str) -> dict[str, Any]:
    agent = request_access(request).agent(agent_id)
    return quota_report(workspace=agent.workspace, agent=agent).as_dict()


@router.put(
    "/agents/{path:agent_id}/quota",
    response=QuotaReportOut,
    tags=["quotas"],
    summary="Replace an agent's quotas",
    auth=ADMIN,
)
def put_agent_quota(request: HttpRequest, agent_id: str, payload: QuotasIn) -> dict[str, Any]:
    access = request_access(request)
    agent = access.agent(agent_id)
    set_quotas(
        workspace=agent.workspace,
        agent=agent,
        limits=_limits(payload),
        actor=access.actor,
        confirm_below_usage=payload.confirm_below_usage,
    )
    return quota_report(workspace=agent.workspace, agent=agent).as_dict()
