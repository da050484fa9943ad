"""What a workspace holds about one person, found the same way for their export and their
erasure (memory.services.people), so that what is exported is what would be erased.

A person is a user id, as clients name them (``user`` of facts, memories and sessions),
within one workspace, across every agent of it. What is about them:

- facts whose user is them, or whose subject is their id (a fact of another user "about"
  them), in every status, with their sources;
- sessions whose user is them, with their summary and metadata;
- memories whose user is them; every memory of their sessions; memories that mention them:
  an entity mention or an entity tag (``entity:<type>:<value>``) whose value is their id,
  or their id written in the content as a whole word (any case); and what was derived from
  those: summaries and merged memories whose ``source_refs`` cite one of them or one of
  their sessions (followed until nothing new is found);
- of those memories: entity tags, feedback, graph edges, entities mentioned by nothing else
  and facts learned only from them;
- audit events about their facts, their memories or their sessions, and any whose details
  quote their id; the Django admin's log entries about those facts, memories and sessions
  (an entry names its object as the object prints itself: a memory by its content);
- other people's sessions are kept, but one whose summary was made from their memories loses
  that summary, and one whose metadata quotes their id loses its metadata ("scrubbed").

Nothing here writes: a preview and an export change nothing.
"""

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, TextField
from django.db.models.functions import Cast

from facts.models import KEY_MAX_CHARS, USER_SUBJECT, Fact, FactSource
from memory.entities.extract import ENTITY_PREFIX, entity_key
from memory.models import (
    Entity,
    EntityMention,
    Memory,
    MemoryEdge,
    MemoryFeedback,
    MemoryTag,
    Session,
)
from tenancy.models import Agent, AuditEvent, Workspace
from tenancy.validation import clean_text

# What a person's erasure counts, in the order previews and receipts show them.
COUNT_KINDS = (
    "facts",
    "fact_sources",
    "facts_learned_from_memories",
    "memories",
    "entity_tags",
    "entities",
    "feedback",
    "graph_edges",
    "sessions",
    "sessions_scrubbed",
    "audit_events",
    "admin_log_entries",
)
# Counted for the workspace as a whole, not per agent.
WORKSPACE_KINDS = ("audit_events", "admin_log_entries")
# Ids per query: SQLite binds at most 32,766 parameters, and long IN lists plan badly.
CHUNK = 500


def clean_person(user: object) -> str:
    """A person's id as every interface takes it: required text, trimmed."""
    return clean_text(user, field="user", max_chars=KEY_MAX_CHARS)


def mentions(text: str, user: str) -> bool:
    """Whether ``text`` names ``user`` as a whole word, in any case: "u1" is not in "u12"."""
    return re.search(rf"(?<!\w){re.escape(user)}(?!\w)", text, re.IGNORECASE) is not None


def quotes(value: Any, user: str) -> bool:
    """Whether any text of a JSON ``value`` (keys included) names ``user``."""
    if isinstance(value, str):
        return mentions(value, user)
    if isinstance(value, dict):
        return any(quotes(k, user) or quotes(v, user) for k, v in value.items())
    if isinstance(value, list):
        return any(quotes(v, user) for v in value)
    return False


def _json_quoting[M: (AuditEvent, Session)](
    rows: QuerySet[M], column: str, user: str
) -> QuerySet[M]:
    """Rows whose JSON ``column`` may quote ``user``: a text match on the JSON, then checked
    by :func:`quotes`. SQLite stores JSON with non-ASCII escaped, so both forms are tried."""
    escaped = json.dumps(user)[1:-1]
    return rows.annotate(_text=Cast(column, output_field=TextField())).filter(
        Q(_text__icontains=user) | Q(_text__icontains=escaped)
    )


def chunks(ids: Iterable[int], size: int = CHUNK) -> Iterator[list[int]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def person_facts(agent: Agent, user: str) -> QuerySet[Fact]:
    about = Q(user_ref=user)
    if user != USER_SUBJECT:  # "user" is the placeholder subject of every user's own facts
        about |= Q(subject=user)
    return Fact.objects.filter(agent=agent).filter(about)


@dataclass
class AgentPart:
    """What one agent holds about the person."""

    agent: Agent
    session_ids: set[int] = field(default_factory=set)
    memory_ids: set[int] = field(default_factory=set)
    # Other people's sessions: summarised from the person's memories / metadata quoting them.
    summary_session_ids: set[int] = field(default_factory=set)
    metadata_session_ids: set[int] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not any(self.counts.values())


@dataclass
class PersonData:
    """Everything a workspace holds about ``user``: per agent, and the audit events."""

    workspace: Workspace
    user: str
    parts: list[AgentPart]
    event_ids: set[int]
    admin_log_ids: set[int]

    def totals(self) -> dict[str, int]:
        totals = {kind: sum(part.counts[kind] for part in self.parts) for kind in COUNT_KINDS}
        totals["audit_events"] = len(self.event_ids)
        totals["admin_log_entries"] = len(self.admin_log_ids)
        return totals

    def by_agent(self) -> dict[str, dict[str, int]]:
        """Counts per agent that holds anything about the person (the workspace's logs
        apart)."""
        return {
            part.agent.agent_id: {k: v for k, v in part.counts.items() if k not in WORKSPACE_KINDS}
            for part in self.parts
            if not part.is_empty()
        }


def find_person(*, workspace: Workspace, user: str) -> PersonData:
    """What ``workspace`` holds about ``user`` (see the module's docstring). Reads only."""
    user = clean_person(user)
    parts = [
        _agent_part(agent, user) for agent in Agent.objects.in_workspace(workspace).order_by("pk")
    ]
    return PersonData(
        workspace=workspace,
        user=user,
        parts=parts,
        event_ids=_events(workspace, user, parts),
        admin_log_ids=_admin_log(user, parts),
    )


def _agent_part(agent: Agent, user: str) -> AgentPart:
    part = AgentPart(agent=agent)
    sessions = Session.objects.filter(agent=agent)
    part.session_ids = set(sessions.filter(user_ref=user).values_list("pk", flat=True))
    part.memory_ids = derived_memories(
        agent, _named(agent, user, part.session_ids), part.session_ids
    )
    held = set()
    for ids in chunks(part.memory_ids):
        held |= set(
            Memory.objects.filter(pk__in=ids, session__isnull=False).values_list(
                "session_id", flat=True
            )
        )
    others = sessions.exclude(pk__in=part.session_ids)
    part.summary_session_ids = set(
        others.filter(pk__in=held).exclude(summary="").values_list("pk", flat=True)
    )
    part.metadata_session_ids = {
        pk
        for pk, metadata in _json_quoting(others, "metadata", user).values_list("pk", "metadata")
        if quotes(metadata, user)
    }
    part.counts = _count(part, user)
    return part


def _named(agent: Agent, user: str, session_ids: set[int]) -> set[int]:
    """The agent's memories of the person, in their sessions, or naming them."""
    memories = Memory.objects.filter(agent=agent)
    ids = set(memories.filter(user_ref=user).values_list("pk", flat=True))
    for chunk in chunks(session_ids):
        ids |= set(memories.filter(session_id__in=chunk).values_list("pk", flat=True))
    key = entity_key(user)
    ids |= set(
        EntityMention.objects.filter(
            agent=agent, entity__search_keys__contains=f"\n{key}\n"
        ).values_list("memory_id", flat=True)
    )
    tags = MemoryTag.objects.filter(
        agent=agent, name__startswith=ENTITY_PREFIX, name__iendswith=f":{user}"
    )
    ids |= {pk for pk, name in tags.values_list("memory_id", "name") if _tag_names(name, key)}
    for pk, content in memories.filter(content__icontains=user).values_list("pk", "content"):
        if mentions(content, user):
            ids.add(pk)
    return ids


def _tag_names(tag: str, key: str) -> bool:
    """Whether the entity tag ``entity:<type>:<value>`` has the person's id as its value."""
    parts = tag.split(":", 2)
    return len(parts) == 3 and entity_key(parts[2]) == key


def derived_memories(agent: Agent, ids: set[int], session_ids: set[int]) -> set[int]:
    """``ids`` and every memory made from them (summaries, merges), transitively."""
    cited = (
        Memory.objects.filter(agent=agent)
        .annotate(refs=Cast("source_refs", output_field=TextField()))
        .filter(Q(refs__contains='"memory:') | Q(refs__contains='"session:'))
    )
    refs = dict(cited.values_list("pk", "source_refs"))
    found = set(ids)
    wanted = {f"memory:{pk}" for pk in found} | {f"session:{pk}" for pk in session_ids}
    while True:
        new = {
            pk
            for pk, source_refs in refs.items()
            if pk not in found
            and isinstance(source_refs, list)
            and wanted.intersection(source_refs)
        }
        if not new:
            return found
        found |= new
        wanted |= {f"memory:{pk}" for pk in new}


def _count(part: AgentPart, user: str) -> dict[str, int]:
    facts = person_facts(part.agent, user)
    counts = dict.fromkeys(COUNT_KINDS, 0)
    counts["facts"] = facts.count()
    counts["fact_sources"] = FactSource.objects.filter(fact__in=facts).count()
    counts["memories"] = len(part.memory_ids)
    counts["sessions"] = len(part.session_ids)
    counts["sessions_scrubbed"] = len(part.summary_session_ids | part.metadata_session_ids)
    lost: dict[int, int] = {}
    learned: set[int] = set()
    for ids in chunks(part.memory_ids):
        counts["entity_tags"] += MemoryTag.objects.filter(
            memory_id__in=ids, name__startswith=ENTITY_PREFIX
        ).count()
        counts["feedback"] += MemoryFeedback.objects.filter(memory_id__in=ids).count()
        counts["graph_edges"] += MemoryEdge.objects.filter(
            Q(source_id__in=ids) | Q(target_id__in=ids)
        ).count()
        by_entity = (
            EntityMention.objects.filter(memory_id__in=ids)
            .values_list("entity_id")
            .annotate(n=Count("id"))
            .order_by()
        )
        for entity_id, n in by_entity:
            lost[entity_id] = lost.get(entity_id, 0) + n
        learned |= set(Fact.objects.filter(sources__memory_id__in=ids).values_list("pk", flat=True))
    counts["entities"] = sum(
        1
        for pk, mention_count in Entity.objects.filter(pk__in=list(lost)).values_list(
            "pk", "mention_count"
        )
        if mention_count <= lost[pk]
    )
    # Learned only from these memories, and not the person's own facts (counted above).
    other_evidence = FactSource.objects.filter(fact_id=OuterRef("pk")).exclude(
        memory_id__in=list(part.memory_ids)
    )
    counts["facts_learned_from_memories"] = (
        Fact.objects.filter(pk__in=list(learned))
        .exclude(Exists(other_evidence))
        .exclude(pk__in=facts.values("pk"))
        .count()
    )
    return counts


def _events(workspace: Workspace, user: str, parts: list[AgentPart]) -> set[int]:
    """The audit events about the person: about their facts (the events' forget keys),
    their memories or their sessions, or quoting their id anywhere in their details."""
    events = AuditEvent.objects.filter(workspace=workspace)
    found = {
        pk
        for pk, details in _json_quoting(events, "details", user).values_list("pk", "details")
        if quotes(details, user)
    }
    fact_keys = Q(details__user=user)
    if user != USER_SUBJECT:
        fact_keys |= Q(details__subject=user)
    found |= set(events.filter(target_type="fact").filter(fact_keys).values_list("pk", flat=True))
    for part in parts:
        fact_ids = [str(pk) for pk in person_facts(part.agent, user).values_list("pk", flat=True)]
        for kind, ids in (
            ("fact", fact_ids),
            ("memory", [str(pk) for pk in part.memory_ids]),
            ("session", [str(pk) for pk in part.session_ids]),
        ):
            for start in range(0, len(ids), CHUNK):
                found |= set(
                    events.filter(
                        target_type=kind, target_id__in=ids[start : start + CHUNK]
                    ).values_list("pk", flat=True)
                )
    return found


def _admin_log(user: str, parts: list[AgentPart]) -> set[int]:
    """The admin's log entries about the person's facts, memories and sessions."""
    found: set[int] = set()
    for part in parts:
        fact_ids = list(person_facts(part.agent, user).values_list("pk", flat=True))
        for model, ids in (
            (Fact, fact_ids),
            (Memory, sorted(part.memory_ids)),
            (Session, sorted(part.session_ids)),
        ):
            content_type = ContentType.objects.get_for_model(model)
            for start in range(0, len(ids), CHUNK):
                chunk = [str(pk) for pk in ids[start : start + CHUNK]]
                found |= set(
                    LogEntry.objects.filter(
                        content_type=content_type, object_id__in=chunk
                    ).values_list("pk", flat=True)
                )
    return found
