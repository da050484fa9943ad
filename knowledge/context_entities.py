"""The semantic tier of a turn's context: the entities the turn names, each with the
current facts about it.

Reads only: the agent's Entity rows are matched, never created or counted, and the facts
are read through facts.queries. Bounded: at most ENTITIES_MAX entities, FACTS_PER_ENTITY
facts each, two queries (entities, facts). Entities of the recalled memories are left out:
the memories' text is in the context already, and a weak hit's entities would come into
every turn.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count

from facts.models import Fact
from facts.queries import current_facts_naming
from language.entities import entity_key, extract_entities, query_names
from memory.graph.entities import entity_to_dict, named_entities
from memory.models import Entity, EntityMention, Memory
from memory.recall.filters import Audience, audience_of
from tenancy.models import Agent

ENTITIES_MAX = 8
FACTS_PER_ENTITY = 10


@dataclass
class NamedEntity:
    entity: Entity
    facts: list[Fact] = field(default_factory=list)


def query_entity_keys(query: str) -> list[str]:
    """The entity keys a query names, in order: its names, then its structured entities
    (emails, URLs, dates...), as language.entities extracts them from stored text."""
    keys = [entity_key(name) for name in query_names(query)]
    keys += [entity_key(e.value) for e in extract_entities(query)]
    return [key for key in dict.fromkeys(keys) if key]


def name_forms(entity: Entity) -> set[str]:
    """How a fact may write the entity: its name and aliases as seen, lower-cased and
    capitalised (facts' subjects and values are compared as written, on their indexes)."""
    forms = set()
    for form in (entity.name, *entity.aliases):
        forms |= {form, form.lower(), form.title()}
    return {form for form in forms if form.strip()}


def _named_in_query(agent: Agent, query: str, audience: Audience) -> list[Entity]:
    keys = query_entity_keys(query)
    if not keys:
        return []
    # As recall reads a query's names (entity_queries.named_entities): a name or alias, or
    # its first or last word ("Maria" or "Lopez" for "Maria Lopez").
    named = named_entities(agent, keys)
    # Only entities the turn's user may know of: named in their memories or the shared
    # ones, counted there (another user's mentions are neither shown nor counted).
    seen = Memory.objects.filter(agent=agent).filter(audience.q())
    visible = EntityMention.objects.filter(agent=agent, entity_id__in=list(named), memory__in=seen)
    counts = dict(visible.values("entity_id").annotate(n=Count("id")).values_list("entity_id", "n"))
    found = list(Entity.objects.filter(agent=agent, pk__in=list(counts)))
    for entity in found:
        entity.mention_count = counts[entity.pk]
    # In the order the query names them; of one name, the most mentioned first.
    position = {key: index for index, key in enumerate(keys)}

    def order(entity: Entity) -> tuple[int, int, int]:
        first = min(position.get(key, len(keys)) for key in named[entity.pk])
        return (first, -entity.mention_count, -entity.pk)

    return sorted(found, key=order)[:ENTITIES_MAX]


def entities_of_turn(*, agent: Agent, query: str, user: str, now: datetime) -> list[NamedEntity]:
    """The agent's entities the query names (any type, by name or alias, case-insensitively)
    in memories of ``user`` or shared ones, in the order the query names them, each with
    its current facts (facts.queries.current_facts_naming: those for ``user`` and those
    about no user)."""
    named = [NamedEntity(e) for e in _named_in_query(agent, query, audience_of(user=user))]
    forms = {n.entity.pk: name_forms(n.entity) for n in named}
    facts = current_facts_naming(
        agent=agent,
        names=set().union(*forms.values()),
        user=user,
        now=now,
        limit=len(named) * FACTS_PER_ENTITY,
    )
    for item in named:
        mine = forms[item.entity.pk]
        item.facts = [f for f in facts if f.subject in mine or f.value in mine][:FACTS_PER_ENTITY]
    return named


def entity_line(entity: Entity) -> str:
    mentions = "memory" if entity.mention_count == 1 else "memories"
    return f"- {entity.name} ({entity.type}, in {entity.mention_count} {mentions})"


def named_entity_to_dict(item: NamedEntity, facts: list[dict[str, Any]]) -> dict[str, Any]:
    return {**entity_to_dict(item.entity), "facts": facts}
