"""Reads of the semantic tier: an agent's entities (listed, searched), a memory's entities,
and what extraction would find in a text. Nothing here writes."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from dewee.pagination import clean_limit, keyset_page, sorted_page
from dewee.sorting import Sort
from language.entities import entity_key, extract_entities, speaker_of
from memory.exceptions import EntityNotFound
from memory.models import Entity, EntityMention, EntityType, Memory
from memory.orders import ENTITY_SORTING
from tenancy.models import Agent
from tenancy.validation import CONTENT_MAX_CHARS, clean_choice, clean_text

ENTITY_QUERY_MAX_CHARS = 200


def answers_to(form: str, key: str) -> bool:
    """Whether an entity known as ``form`` answers to the query's name ``key``: the same name,
    or its first or last word ("Dmitri" or "Ivanov" for "Dmitri Ivanov")."""
    return form == key or form.startswith(f"{key} ") or form.endswith(f" {key}")


def named_entities(agent: Agent, names: Iterable[str]) -> dict[int, frozenset[str]]:
    """The agent's entities the query's names stand for, each with the names it answers to
    (``answers_to``: its name or an alias, or their first or last word)."""
    keys = {entity_key(name) for name in names} - {""}
    if not keys:
        return {}  # an empty condition would match every entity of the agent
    condition = Q()
    for key in keys:
        condition |= (
            Q(search_keys__contains=f"\n{key}\n")
            | Q(search_keys__contains=f"\n{key} ")
            | Q(search_keys__contains=f" {key}\n")
        )
    found: dict[int, frozenset[str]] = {}
    for entity_id, search_keys in Entity.objects.filter(condition, agent=agent).values_list(
        "id", "search_keys"
    ):
        forms = search_keys.strip("\n").split("\n")
        answered = frozenset(k for k in keys if any(answers_to(form, k) for form in forms))
        if answered:
            found[entity_id] = answered
    return found


def entity_to_dict(entity: Entity) -> dict[str, Any]:
    return {
        "id": entity.pk,
        "type": entity.type,
        "name": entity.name,
        "key": entity.key,
        "aliases": list(entity.aliases),
        "mention_count": entity.mention_count,
        "first_seen": entity.first_seen,
        "last_seen": entity.last_seen,
    }


def _entities_of(agent: Agent, q: str | None, type: str | None) -> QuerySet[Entity]:
    rows = Entity.objects.filter(agent=agent)
    if type:
        rows = rows.filter(type=clean_choice(type, field="type", choices=EntityType.values))
    if q is not None:
        prefix = clean_text(q, field="q", max_chars=ENTITY_QUERY_MAX_CHARS, required=False)
        if entity_key(prefix):
            rows = rows.with_prefix(prefix)
    return rows


def list_entities(
    *, agent: Agent, q: str | None, type: str | None, cursor: str | None, limit: int
) -> tuple[list[Entity], str | None]:
    """The agent's entities, newest first; ``q``: whose name or an alias starts with it
    (case-insensitive); ``type``: of that type."""
    limit = clean_limit(limit)
    return keyset_page(_entities_of(agent, q, type), cursor=cursor, limit=limit)


@dataclass(frozen=True)
class EntityPage:
    items: list[Entity]
    next_cursor: str | None
    # The order shown: the one asked for, or the default when it was refused.
    sort: Sort


def sorted_entities(
    *, agent: Agent, q: str | None, type: str | None, cursor: str | None, limit: int, sort: Sort
) -> EntityPage:
    """list_entities() in ``sort``, one of ENTITY_SORTING's (memory.orders); a sort refused
    gives the default order from its first page."""
    items, next_cursor, shown = sorted_page(
        _entities_of(agent, q, type),
        sorting=ENTITY_SORTING,
        sort=sort,
        cursor=cursor,
        limit=clean_limit(limit),
        one_agent=True,
    )
    return EntityPage(items=items, next_cursor=next_cursor, sort=shown)


def get_entity(*, agent: Agent, entity_id: int) -> Entity:
    """One entity of ``agent``; another agent's is EntityNotFound, as a missing one."""
    entity = Entity.objects.filter(agent=agent, pk=entity_id).first()
    if entity is None:
        raise EntityNotFound(f"Entity {entity_id} not found for this agent")
    return entity


def memory_entities(memory: Memory) -> list[dict[str, Any]]:
    """The entities a memory mentions, in order of first appearance (the speaker first)."""
    mentions = (
        EntityMention.objects.filter(memory=memory, agent_id=memory.agent_id)
        .select_related("entity")
        .order_by("-as_speaker", "start", "id")
    )
    return [
        {
            **entity_to_dict(m.entity),
            "count": m.count,
            "start": m.start,
            "end": m.end,
            "as_speaker": m.as_speaker,
        }
        for m in mentions
    ]


def preview_extraction(text: object) -> dict[str, Any]:
    """What storing ``text`` would derive, storing nothing: its speaker and its entities
    (all types, before any agent's policy)."""
    content = clean_text(text, field="text", max_chars=CONTENT_MAX_CHARS)
    return {
        "speaker": speaker_of(content),
        "entities": [
            {
                "type": e.type,
                "value": e.value,
                "text": e.text,
                "start": e.start,
                "end": e.end,
                "count": e.count,
                "tag": e.tag,
            }
            for e in extract_entities(content)
        ],
    }
