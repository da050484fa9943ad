"""REST endpoints for agents."""

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import ConfigDict, Field, StrictStr

from memory import services
from memory.access import request_access
from memory.queries import agent_to_dict

router = Router(tags=["agents"])


class AgentIn(Schema):
    model_config = ConfigDict(extra="forbid")
    agent_id: StrictStr = Field(description="Unique in the deployment; at most 241 bytes.")
    name: StrictStr = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class AgentOut(Schema):
    agent_id: str
    workspace: str
    name: str | None
    metadata: dict[str, Any]
    created_at: datetime


@router.post("/agents", response={201: AgentOut}, summary="Create an agent")
def create_agent(request: HttpRequest, payload: AgentIn) -> Status:
    access = request_access(request)
    assert access.workspace is not None
    agent = services.create_agent(
        workspace=access.workspace,
        agent_id=payload.agent_id,
        name=payload.name,
        metadata=payload.metadata,
    )
    return Status(201, agent_to_dict(agent))


@router.get("/agents", response=list[AgentOut], summary="Agents of this workspace")
def list_agents(request: HttpRequest) -> list[dict]:
    return [agent_to_dict(a) for a in request_access(request).agents()]


@router.get("/agents/{path:agent_id}", response=AgentOut, summary="One agent")
def get_agent(request: HttpRequest, agent_id: str) -> dict:
    return agent_to_dict(request_access(request).agent(agent_id))
