"""Agents: create, list, read; their memories, memory policy and feedback summary."""

from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import Field

from dewee.api_auth import ADMIN, READ, WRITE
from dewee.schemas import DbId, ErrorOut
from memory import services
from memory.api.common import list_filters, memory_page, refuse_unknown_params
from memory.feedback_reports import (
    agent_feedback_summary,
)
from memory.queries import list_memories
from memory.schemas import (
    AgentIn,
    AgentOut,
    FeedbackSummaryOut,
    MemoryPageOut,
    MemoryPolicyIn,
    MemoryPolicyOut,
)
from tenancy import services as tenancy_services
from tenancy.access import request_access
from tenancy.queries import agent_to_dict
from tenancy.validation import TAG_MAX_CHARS, TAGS_MAX

router = Router()


class MemoryListParams(Schema):
    session_id: DbId | None = None
    # The limits of a memory's own tags: each tag filter is one more subquery, and SQLite
    # refuses a query nested too deep.
    tags: list[Annotated[str, Field(max_length=TAG_MAX_CHARS)]] = Field(
        default_factory=list, max_length=TAGS_MAX
    )
    memory_type: str | None = None
    min_importance: float | None = None
    max_importance: float | None = None
    since: str | None = None
    until: str | None = None
    user: str | None = Field(None, description="Only this user's own memories (exact id).")
    shared: bool = Field(False, description="Only the agent's shared memories (no user).")
    cursor: str | None = None
    limit: int = 50


@router.post(
    "/agents",
    response={201: AgentOut, 409: ErrorOut},
    tags=["agents"],
    summary="Create an agent",
    auth=WRITE,
)
def create_agent(request: HttpRequest, payload: AgentIn) -> Status:
    access = request_access(request)
    agent = tenancy_services.create_agent(
        workspace=access.workspace_for_agent(payload.agent_id),
        agent_id=payload.agent_id,
        name=payload.name,
        metadata=payload.metadata,
    )
    return Status(201, agent_to_dict(agent))


@router.get(
    "/agents",
    response=list[AgentOut],
    tags=["agents"],
    summary="Agents of this workspace",
    auth=READ,
)
def list_agents(request: HttpRequest) -> list[dict]:
    return [agent_to_dict(a) for a in request_access(request).agents()]


@router.get(
    "/agents/{path:agent_id}/memories",
    response=MemoryPageOut,
    tags=["memories"],
    summary="An agent's memories, newest first",
    auth=READ,
)
def agent_memories(
    request: HttpRequest, agent_id: str, params: Query[MemoryListParams]
) -> dict[str, Any]:
    refuse_unknown_params(request, MemoryListParams)
    agent = request_access(request).agent(agent_id)
    return memory_page(
        list_memories(
            agent=agent, filters=list_filters(params), cursor=params.cursor, limit=params.limit
        )
    )


@router.get(
    "/agents/{path:agent_id}/feedback/summary",
    response=FeedbackSummaryOut,
    tags=["feedback"],
    summary="An agent's feedback: counts, most voted and flagged memories",
    auth=READ,
)
def agent_feedback(request: HttpRequest, agent_id: str) -> dict[str, Any]:
    return agent_feedback_summary(agent=request_access(request).agent(agent_id))


@router.get(
    "/agents/{path:agent_id}/memory_policy",
    response=MemoryPolicyOut,
    tags=["agents"],
    summary="How an agent's memories age (server defaults filled in)",
    auth=READ,
)
def get_memory_policy(request: HttpRequest, agent_id: str) -> dict[str, Any]:
    return services.get_memory_policy(request_access(request).agent(agent_id)).as_dict()


@router.put(
    "/agents/{path:agent_id}/memory_policy",
    response=MemoryPolicyOut,
    tags=["agents"],
    summary="Replace an agent's memory policy; returns the effective policy",
    auth=ADMIN,
)
def put_memory_policy(
    request: HttpRequest, agent_id: str, payload: MemoryPolicyIn
) -> dict[str, Any]:
    access = request_access(request)
    policy = {**payload.model_dump(exclude_unset=True), **(payload.model_extra or {})}
    return services.set_memory_policy(
        agent=access.agent(agent_id), policy=policy, actor=access.actor
    ).as_dict()


@router.get(
    "/agents/{path:agent_id}", response=AgentOut, tags=["agents"], summary="One agent", auth=READ
)
def get_agent(request: HttpRequest, agent_id: str) -> dict:
    return agent_to_dict(request_access(request).agent(agent_id))
