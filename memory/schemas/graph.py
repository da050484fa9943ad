"""The REST shapes of the memory graph: traversal, path and the cross-agent network (the
export streams its own JSON or GraphML)."""

from datetime import datetime

from ninja import Schema
from pydantic import Field


class GraphNodeOut(Schema):
    id: int
    preview: str = Field(description="The first 200 characters of the content.")
    speaker: str | None
    memory_type: str
    created_at: datetime
    depth: int = Field(description="Edges from the start memory (0: the start).")


class PathNodeOut(Schema):
    id: int
    preview: str
    speaker: str | None
    memory_type: str
    created_at: datetime


class GraphEdgeOut(Schema):
    source: int
    target: int
    type: str
    weight: float


class TraverseOut(Schema):
    start: GraphNodeOut
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]


class PathOut(Schema):
    length: int = Field(description="Edges on the path.")
    memories: list[PathNodeOut] = Field(description="From the first memory to the second.")
    edges: list[GraphEdgeOut] = Field(description="In order; each keeps its own direction.")


class NetworkAgentOut(Schema):
    agent_id: str
    name: str
    entity_count: int


class SharedEntityOut(Schema):
    type: str
    key: str
    name: str
    mentions: dict[str, int] = Field(description="Memories of each agent that mention it.")


class AgentPairOut(Schema):
    agents: list[str]
    shared_count: int
    entities: list[SharedEntityOut]


class NetworkOut(Schema):
    workspace: str
    agents: list[NetworkAgentOut]
    pairs: list[AgentPairOut]
    truncated: bool = Field(description="Whether shared entities were left out (bounded).")
