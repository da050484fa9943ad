"""Background maintenance (AutoPilot status and Run now): adapters over
memory.services.maintenance and memory.queries. A key sees its own workspace's share."""

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import Field, StrictStr

from dewee.api_auth import ADMIN, READ
from dewee.errors import InvalidInput
from dewee.schemas import StrictSchema
from memory.queries import maintenance_status
from memory.services.maintenance import describe_queued, queue_maintenance
from tenancy.access import request_access

router = Router(tags=["maintenance"])


class RunOut(Schema):
    id: int
    job: str
    trigger: str
    status: str
    dry_run: bool
    agent_id: str | None
    started_at: datetime
    finished_at: datetime | None
    duration_ms: int | None
    touched: int
    counts: dict[str, int]
    error: str


class JobStatusOut(Schema):
    job: str
    label: str
    autopilot: bool
    enabled: bool
    interval_secs: int
    scheduled: bool
    next_run: datetime | None
    last_runs: list[RunOut]


class AutopilotStatusOut(Schema):
    jobs: list[JobStatusOut]


class TriggerIn(StrictSchema):
    jobs: list[StrictStr] | None = Field(
        None,
        description="Jobs to run now: decay, expiry, idle_sessions, dedup, consolidate. "
        "Default: the AutoPilot jobs (dedup and consolidate).",
    )
    agent_id: StrictStr | None = Field(None, description="Only this agent; default: all.")


class QueuedOut(Schema):
    job: str
    task_id: str
    queued_at: datetime
    coalesced: bool = Field(
        description="The job was already waiting for this scope: this trigger joined it."
    )


class TriggerOut(Schema):
    queued: list[QueuedOut]
    message: str


@router.get(
    "/admin/autopilot/status",
    response=AutopilotStatusOut,
    summary="Background jobs: schedule, next run, last runs and what they did",
    auth=READ,
)
def autopilot_status(request: HttpRequest) -> dict[str, Any]:
    return {"jobs": maintenance_status(access=request_access(request))}


@router.post(
    "/admin/autopilot/trigger",
    response={202: TriggerOut},
    summary="Run background jobs now, for this workspace's agents (or one agent)",
    auth=ADMIN,
    description="A job already waiting for the same agent (or the workspace) is not queued "
    "twice: the trigger joins it (`coalesced`). A workspace has at most "
    "DEWEE_MAX_QUEUED_JOBS jobs waiting: past that, 429 `too_many_jobs` with Retry-After.",
)
def autopilot_trigger(request: HttpRequest, payload: TriggerIn) -> Status:
    access = request_access(request)
    if payload.agent_id is None and access.agent_ids is not None:
        # The whole workspace would reach agents this key may not use.
        raise InvalidInput("agent_id", "is required: this key may use only some agents")
    agent = access.agent(payload.agent_id) if payload.agent_id is not None else None
    queued = queue_maintenance(
        jobs=payload.jobs, agent=agent, workspace=None if agent else access.workspace
    )
    return Status(202, {"queued": queued, "message": describe_queued(queued)})
