"""Reads of an entity's page: the entity (through the access helper), the memories that
mention it and the entities that appear with it (the facts about it: knowledge.entities).
Nothing here writes.

Bounded whatever the size of the agent: memories come a page at a time (the mention index
(entity, -memory)); related entities are counted over the entity's latest
CO_OCCURRENCE_SCAN memories.
"""

from typing import Any

from django.db.models import Count
from django.utils import timezone

from dewee.pagination import clean_limit, keyset_page
from memory.exceptions import EntityNotFound
from memory.models import Entity, EntityMention, Memory
from tenancy.access import Access

CO_OCCURRENCE_SCAN = 2_000
RELATED_TOP = 12


def get_visible_entity(*, access: Access, entity_id: int) -> Entity:
    """One entity of an agent ``access`` sees; another workspace's is EntityNotFound, as a
    missing one."""
    entities = Entity.objects.select_related("agent__workspace")
    return access.load(entities, entity_id, missing=EntityNotFound, label="Entity")


def entity_memories(
    *, entity: Entity, cursor: str | None, limit: int
) -> tuple[list[Memory], str | None]:
    """The live memories that mention ``entity``, newest first, a page at a time."""
    limit = clean_limit(limit)
    memories = (
        Memory.objects.filter(agent_id=entity.agent_id, entity_mentions__entity=entity)
        .live(timezone.now())
        .only("id", "content", "memory_type", "speaker", "created_at", "session_id")
    )
    return keyset_page(memories, cursor=cursor, limit=limit)


def related_entities(*, entity: Entity, top: int = RELATED_TOP) -> list[dict[str, Any]]:
    """The entities mentioned in the same memories as ``entity`` most often (among its
    latest CO_OCCURRENCE_SCAN memories): each entity's id, type, name and the number of
    memories they share; ties by name."""
    latest = (
        EntityMention.objects.filter(entity=entity)
        .order_by("-memory_id")
        .values("memory_id")[:CO_OCCURRENCE_SCAN]
    )
    counts = (
        EntityMention.objects.filter(agent_id=entity.agent_id, memory_id__in=latest)
        .exclude(entity=entity)
        .values("entity_id")
        .annotate(shared=Count("memory_id"))
        .order_by("-shared", "entity_id")[: top * 4]
    )
    shared = {row["entity_id"]: row["shared"] for row in counts}
    rows = Entity.objects.filter(agent_id=entity.agent_id, pk__in=shared).values(
        "id", "type", "name"
    )
    related = [{**row, "shared": shared[row["id"]]} for row in rows]
    return sorted(related, key=lambda r: (-r["shared"], r["name"].casefold(), r["id"]))[:top]
