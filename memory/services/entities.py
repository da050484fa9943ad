"""An agent's entities and their mentions, kept as its memories are stored, edited, merged
and deleted. Everything here runs in the caller's transaction.

Rules:

- A mention of type ``name`` (a capitalised name the rules could not type) joins an entity
  of the agent with the same key whatever its type, the most mentioned first; only when
  there is none is a ``name`` entity made. A typed mention (person, place...) joins the
  entity of its type, or else promotes the agent's ``name`` entity of that key to its type.
  So "Caroline: hi" (a person, the speaker) and a later "met Caroline" are one entity.
- ``mention_count`` is the number of memories that mention the entity. An entity whose last
  mention goes (its memories deleted, expired, merged away or edited) is deleted with it.
- The speaker of a memory is a person entity mentioned by it (``as_speaker``).
- A hard ``entities`` quota (memory.quotas) never fails the store, edit or graph build
  that names a new entity: entities are made while it has room, the rest are not made,
  nor their mentions written (logged, and counted in ``dewee_entities_skipped_total``).
  Entities already held keep gaining mentions. A soft quota makes them all.
"""

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import F

from dewee.metrics import count_entities_skipped
from language.entities import Entity as FoundEntity
from language.entities import entity_key, extract_entities, is_role
from memory.models import Entity, EntityMention, EntityType, Memory
from memory.quotas import hard_quota_room, release_quota_usage
from memory.services.policy import MemoryPolicy
from tenancy.models import Agent, QuotaKind

logger = logging.getLogger(__name__)

ALIASES_MAX = 20


@dataclass(frozen=True)
class Mention:
    """An entity a memory mentions, before it is resolved to a row."""

    type: str
    key: str
    text: str
    count: int = 1
    start: int | None = None
    end: int | None = None
    as_speaker: bool = False


def allowed_entities(content: str, policy: MemoryPolicy) -> list[FoundEntity]:
    """The entities of a memory's text that the agent's policy keeps (``extract_entities``
    off: none; ``entity_types``: only those): its entity tags and its mentions."""
    if not policy.extract_entities:
        return []
    allowed = policy.entity_types
    return [e for e in extract_entities(content) if allowed is None or e.type in allowed]


def memory_mentions(
    *, found: Sequence[FoundEntity], speaker: str | None, policy: MemoryPolicy
) -> list[Mention]:
    """The mentions of a memory: its text's entities (``found``, already as the policy keeps
    them) and its speaker, a person, when the policy keeps people."""
    mentions = [
        Mention(e.type, entity_key(e.value), e.text or e.value, e.count, e.start, e.end)
        for e in found
    ]
    allowed = policy.entity_types
    if not speaker or is_role(speaker) or not policy.extract_entities:
        # A role ("User:", "Assistant:") is who spoke, not a person the graph can name.
        return mentions
    if allowed is not None and EntityType.PERSON not in allowed:
        return mentions
    key = entity_key(speaker)
    same = [m for m in mentions if m.key == key and m.type in (EntityType.PERSON, "name")]
    mentions = [m for m in mentions if m not in same]
    start = same[0].start if same else None
    end = same[0].end if same else None
    count = sum(m.count for m in same) or 1
    mentions.append(Mention(EntityType.PERSON, key, speaker, count, start, end, True))
    return mentions


def _search_keys(key: str, aliases: Iterable[str]) -> str:
    keys = dict.fromkeys([key, *(entity_key(a) for a in aliases)])
    return "\n" + "\n".join(keys) + "\n"


def _create(agent: Agent, wanted: list[tuple[str, str]], names: dict, when: datetime) -> None:
    room = hard_quota_room(agent=agent, kind=QuotaKind.ENTITIES)
    if room is not None and len(wanted) > room:
        logger.info(
            "entities quota full: %d new entities of agent %s not made",
            len(wanted) - room,
            agent.pk,
        )
        count_entities_skipped(len(wanted) - room)
        wanted = wanted[:room]
    if not wanted:
        return
    Entity.objects.bulk_create(
        [
            Entity(
                agent=agent,
                type=kind,
                key=key,
                name=names[(kind, key)][:200],
                search_keys=_search_keys(key, []),
                first_seen=when,
                last_seen=when,
            )
            for kind, key in wanted
        ],
        # Another store of the agent may create one first (PostgreSQL); it is read below.
        ignore_conflicts=True,
    )


def _resolve(
    agent: Agent, wanted: set[tuple[str, str]], names: dict[tuple[str, str], str], when: datetime
) -> dict[tuple[str, str], Entity]:
    """The entity row of each ``(type, key)``, found, promoted or created by the rules of
    the module docstring: typed ones first, so that an untyped name of the same batch joins
    them. Locked for the count updates that follow. Those a full hard entities quota kept
    from being made are left out."""
    keys = {key for _, key in wanted}

    def load() -> dict[tuple[str, str], Entity]:
        rows = Entity.objects.select_for_update().filter(agent=agent, key__in=keys)
        return {(e.type, e.key): e for e in rows.order_by("id")}

    rows = load()
    typed = sorted(w for w in wanted if w[0] != EntityType.NAME)
    promoted = []
    for kind, key in typed:
        if (kind, key) not in rows and (EntityType.NAME, key) in rows:
            entity = rows.pop((EntityType.NAME, key))
            entity.type = kind
            rows[(kind, key)] = entity
            promoted.append(entity)
    if promoted:
        Entity.objects.bulk_update(promoted, ["type"])
    _create(agent, [w for w in typed if w not in rows], names, when)
    rows = load()
    untyped = sorted(w for w in wanted if w[0] == EntityType.NAME)
    best: dict[str, Entity] = {}
    for (kind, key), entity in sorted(rows.items(), key=lambda r: (-r[1].mention_count, r[1].pk)):
        if kind != EntityType.NAME:
            best.setdefault(key, entity)
    missing = [w for w in untyped if w[1] not in best and w not in rows]
    if missing:
        _create(agent, missing, names, when)
        rows = load()
    # A wanted entity a full entities quota kept from being made has no row: no mention.
    resolved = {w: rows[w] for w in typed if w in rows}
    for w in untyped:
        found = best.get(w[1]) or rows.get(w)
        if found is not None:
            resolved[w] = found
    return resolved


def add_mentions(*, agent: Agent, found: Sequence[tuple[Memory, list[Mention]]]) -> int:
    """Write the mentions of newly stored memories (or of an edited one, whose old mentions
    are gone): resolve their entities, one mention row per entity and memory, and the
    entities' counts, names seen and last_seen. Returns the number of mentions written."""
    wanted: set[tuple[str, str]] = set()
    names: dict[tuple[str, str], str] = {}
    for _, mentions in found:
        for m in mentions:
            wanted.add((m.type, m.key))
            names.setdefault((m.type, m.key), m.text)
    if not wanted:
        return 0
    resolved = _resolve(agent, wanted, names, min(memory.created_at for memory, _ in found))
    rows: dict[tuple[int, int], EntityMention] = {}
    seen_names: dict[int, list[str]] = defaultdict(list)
    touched: dict[int, Entity] = {}
    for memory, mentions in found:
        for m in mentions:
            entity = resolved.get((m.type, m.key))
            if entity is None:
                continue
            if entity.pk not in touched and entity.mention_count == 0:
                # Just made (or left at none): seen first and last by what mentions it now.
                entity.first_seen = entity.last_seen = memory.created_at
            touched[entity.pk] = entity
            seen_names[entity.pk].append(m.text)
            row = rows.get((entity.pk, memory.pk))
            if row is None:
                rows[(entity.pk, memory.pk)] = EntityMention(
                    entity=entity,
                    memory=memory,
                    agent=agent,
                    count=m.count,
                    start=m.start,
                    end=m.end,
                    as_speaker=m.as_speaker,
                )
            else:  # A name typed two ways in one text that resolved to one entity.
                row.count += m.count
                row.as_speaker = row.as_speaker or m.as_speaker
            if memory.created_at > entity.last_seen:
                entity.last_seen = memory.created_at
            if memory.created_at < entity.first_seen:
                entity.first_seen = memory.created_at
    EntityMention.objects.bulk_create(rows.values())
    per_entity: dict[int, int] = defaultdict(int)
    for entity_id, _ in rows:
        per_entity[entity_id] += 1
    for entity in touched.values():
        entity.mention_count += per_entity[entity.pk]
        for text in seen_names[entity.pk]:
            new = text != entity.name and text not in entity.aliases
            if new and len(entity.aliases) < ALIASES_MAX:
                entity.aliases = [*entity.aliases, text[:200]]
        entity.search_keys = _search_keys(entity.key, entity.aliases)
    Entity.objects.bulk_update(
        list(touched.values()),
        ["mention_count", "first_seen", "last_seen", "aliases", "search_keys"],
    )
    return len(rows)


def release_mentions(*, agent: Agent, memory_ids: Sequence[int]) -> None:
    """Before these memories of ``agent`` (or their old text) go: take their mentions off
    their entities' counts and delete the mentions; entities left with none are deleted,
    and leave the running counts of entities quotas (memory.quotas.release_quota_usage,
    whose lock every caller holds already: it took the quotas' lock first)."""
    mentions = EntityMention.objects.filter(memory_id__in=list(memory_ids))
    lost: dict[int, int] = defaultdict(int)
    for entity_id in mentions.values_list("entity_id", flat=True):
        lost[entity_id] += 1
    if not lost:
        return
    mentions.delete()
    if connection.vendor == "postgresql":
        # The entities' rows locked in id order first: two erasures of memories naming the
        # same entities would otherwise update them in whatever order each finds them, and
        # deadlock (seen with eight clients deleting one agent's memories at once).
        entities = Entity.objects.filter(pk__in=list(lost)).order_by("pk")
        list(entities.select_for_update(no_key=True).values_list("pk", flat=True))
    by_loss: dict[int, list[int]] = defaultdict(list)
    for entity_id, n in lost.items():
        by_loss[n].append(entity_id)
    for n, entity_ids in by_loss.items():
        Entity.objects.filter(pk__in=entity_ids).update(mention_count=F("mention_count") - n)
    gone = list(
        Entity.objects.filter(pk__in=list(lost), mention_count=0).values_list("pk", flat=True)
    )
    if gone:
        release_quota_usage(agent=agent, model=Entity, ids=gone)
        Entity.objects.filter(pk__in=gone).delete()
