"""The graph of an agent's memories: traversal, shortest path, export (streamed) and the
cross-agent network of shared entities."""

from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Query, Router, Schema

from dewee.api_auth import READ
from memory.graph.export import export_graph
from memory.graph.network import NETWORK_TOP, agent_network, network_workspace
from memory.graph.paths import PATH_DEPTH, shortest_path
from memory.graph.queries import TRAVERSE_LIMIT, clean_memory_id, traverse_graph
from memory.queries import get_memory
from memory.schemas.graph import NetworkOut, PathOut, TraverseOut
from tenancy.access import request_access

router = Router()


class TraverseParams(Schema):
    depth: int = 1
    types: str | None = None
    limit: int = TRAVERSE_LIMIT
    direction: str = "both"
    # Only this user's memories and shared ones (memory.graph.queries).
    user: str | None = None


class PathParams(Schema):
    types: str | None = None
    max_depth: int = PATH_DEPTH
    user: str | None = None


class ExportParams(Schema):
    format: str = "json"
    types: str | None = None
    entities: bool = False


class NetworkParams(Schema):
    workspace: str | None = None
    top: int = NETWORK_TOP


# Ids are taken as text and checked, so that a malformed one is a 400 that says so rather
# than a route that does not exist.
@router.get(
    "/memories/{memory_id}/graph",
    response=TraverseOut,
    tags=["graph"],
    summary="The memories reached from a memory along its edges, breadth-first",
    auth=READ,
)
def traverse(request: HttpRequest, memory_id: str, params: Query[TraverseParams]) -> dict[str, Any]:
    memory = get_memory(access=request_access(request), memory_id=clean_memory_id(memory_id))
    return traverse_graph(
        memory=memory,
        depth=params.depth,
        types=params.types,
        limit=params.limit,
        direction=params.direction,
        user=params.user,
    )


@router.get(
    "/memories/{memory_id}/path/{target_id}",
    response=PathOut,
    tags=["graph"],
    summary="The shortest path between two memories of one agent",
    auth=READ,
)
def path(
    request: HttpRequest, memory_id: str, target_id: str, params: Query[PathParams]
) -> dict[str, Any]:
    access = request_access(request)
    source = get_memory(access=access, memory_id=clean_memory_id(memory_id))
    target_pk = clean_memory_id(target_id, field="target_id")
    target = get_memory(access=access, memory_id=target_pk, agent=source.agent)
    return shortest_path(
        source=source,
        target=target,
        types=params.types,
        max_depth=params.max_depth,
        user=params.user,
    )


@router.get(
    "/agents/{path:agent_id}/graph",
    tags=["graph"],
    summary="An agent's whole graph as JSON or GraphML, streamed",
    auth=READ,
)
def export(
    request: HttpRequest, agent_id: str, params: Query[ExportParams]
) -> StreamingHttpResponse:
    agent = request_access(request).agent(agent_id)
    found = export_graph(
        agent=agent, format=params.format, types=params.types, entities=params.entities
    )
    response = StreamingHttpResponse(found.chunks, content_type=found.content_type)
    response["Content-Disposition"] = f'attachment; filename="{found.filename}"'
    return response


@router.get(
    "/graph/network",
    response=NetworkOut,
    tags=["graph"],
    summary="The entities each pair of a workspace's agents share",
    auth=READ,
)
def network(request: HttpRequest, params: Query[NetworkParams]) -> dict[str, Any]:
    access = request_access(request)
    workspace = network_workspace(access=access, slug=params.workspace)
    among = access.agents() if access.agent_ids is not None else None
    return agent_network(workspace=workspace, top=params.top, among=among)
