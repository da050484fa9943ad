"""Entities and links: what extraction finds in a text, a memory's entities, an agent's
entities, and manual links between two memories of one agent."""

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status

from dewee.api_auth import READ, WRITE
from dewee.schemas import ErrorOut
from memory import services
from memory.graph.entities import (
    entity_to_dict,
    get_entity,
    list_entities,
    memory_entities,
    preview_extraction,
)
from memory.queries import get_memory
from memory.schemas.entities import (
    EntityOut,
    EntityPageOut,
    ExtractIn,
    ExtractOut,
    LinkIn,
    LinkOut,
    MentionOut,
)
from tenancy.access import request_access

router = Router()


class EntityListParams(Schema):
    q: str | None = None
    type: str | None = None
    cursor: str | None = None
    limit: int = 50


@router.post(
    "/memories/extract",
    response=ExtractOut,
    tags=["entities"],
    summary="The entities and speaker storing a text would find; stores nothing",
    auth=READ,
)
def extract(request: HttpRequest, payload: ExtractIn) -> dict[str, Any]:
    request_access(request)
    return preview_extraction(payload.text)


@router.get(
    "/memories/{int:memory_id}/entities",
    response=list[MentionOut],
    tags=["entities"],
    summary="The entities a memory mentions",
    auth=READ,
)
def entities_of_memory(request: HttpRequest, memory_id: int) -> list[dict[str, Any]]:
    return memory_entities(get_memory(access=request_access(request), memory_id=memory_id))


@router.post(
    "/memories/{int:memory_id}/links",
    response={201: LinkOut, 409: ErrorOut},
    tags=["entities"],
    summary="Link a memory to another memory of its agent (a linked_by edge)",
    auth=WRITE,
)
def link(request: HttpRequest, memory_id: int, payload: LinkIn) -> Status:
    access = request_access(request)
    source = get_memory(access=access, memory_id=memory_id)
    target = get_memory(access=access, memory_id=payload.target_id, agent=source.agent)
    edge = services.link_memories(
        agent=source.agent, source=source, target=target, actor=access.actor
    )
    return Status(201, _link(edge.source_id, edge.target_id, edge))


@router.delete(
    "/memories/{int:memory_id}/links/{int:target_id}",
    response={204: None},
    tags=["entities"],
    summary="Remove a manual link",
    auth=WRITE,
)
def unlink(request: HttpRequest, memory_id: int, target_id: int) -> Status:
    access = request_access(request)
    source = get_memory(access=access, memory_id=memory_id)
    target = get_memory(access=access, memory_id=target_id, agent=source.agent)
    services.unlink_memories(agent=source.agent, source=source, target=target, actor=access.actor)
    return Status(204, None)


@router.get(
    "/agents/{path:agent_id}/entities/{int:entity_id}",
    response=EntityOut,
    tags=["entities"],
    summary="One entity of an agent",
    auth=READ,
)
def agent_entity(request: HttpRequest, agent_id: str, entity_id: int) -> dict[str, Any]:
    agent = request_access(request).agent(agent_id)
    return entity_to_dict(get_entity(agent=agent, entity_id=entity_id))


@router.get(
    "/agents/{path:agent_id}/entities",
    response=EntityPageOut,
    tags=["entities"],
    summary="An agent's entities with their mention counts, newest first",
    auth=READ,
)
def agent_entities(
    request: HttpRequest, agent_id: str, params: Query[EntityListParams]
) -> dict[str, Any]:
    agent = request_access(request).agent(agent_id)
    items, next_cursor = list_entities(
        agent=agent, q=params.q, type=params.type, cursor=params.cursor, limit=params.limit
    )
    return {"items": [entity_to_dict(e) for e in items], "next_cursor": next_cursor}


def _link(source_id: int, target_id: int, edge: Any) -> dict[str, Any]:
    return {
        "source_id": source_id,
        "target_id": target_id,
        "type": edge.type,
        "created_by": edge.created_by,
        "created_at": edge.created_at,
    }
