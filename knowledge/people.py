"""What a workspace holds about one person, found the same way for their export and their
erasure (knowledge.services), so that what is exported is what would be erased.

A person is a user id, as clients name them (``user`` of facts, memories and sessions),
within one workspace, across every agent of it. What is about them:

- facts whose user is them, or whose subject is their id (a fact of another user "about"
  them), in every status, with their sources;
- sessions whose user is them, with their summary and metadata;
- memories whose user is them; every memory of their sessions; memories that name them
  otherwise: a metadata value equal to their id under one of PERSON_METADATA_KEYS (top
  level: ``{"user": "ana"}``, ``{"user_id": "ana"}``), a tag that is their id or
  ``user:<id>``, a source reference that is their id or ``user:<id>``, an entity mention
  or an entity tag (``entity:<type>:<value>``) whose value is their id, or their id
  written in the content as a whole word (any case); and what was derived from those:
  summaries and merged memories whose ``source_refs`` cite one of them or one of their
  sessions (followed until nothing new is found);
- of those memories: entity tags, feedback, graph edges, entities mentioned by nothing else
  and facts learned only from them;
- audit events about their facts, their memories or their sessions, and any whose details
  quote their id; the Django admin's log entries about those facts, memories and sessions
  (an entry names its object as the object prints itself: a memory by its content);
- other people's sessions are kept, but one whose summary was made from their memories loses
  that summary, and one whose metadata quotes their id loses its metadata ("scrubbed").

A user id is matched in its NFC form (every interface stores it so) and in its NFD form
(what an id stored before user ids were normalised may be): tenancy.validation.user_forms.

Nothing here writes: a preview and an export change nothing.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, TextField
from django.db.models.functions import Cast

from facts.models import KEY_MAX_CHARS, USER_SUBJECT, Fact, FactSource
from language.entities.extract import ENTITY_PREFIX, entity_key
from memory.derived import CHUNK, chunks, derived_memories
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
from tenancy.validation import clean_text, nfc_user, user_forms

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
# Metadata keys whose value names the memory's person: {"user": "ana"} is a memory of
# "ana" as much as one whose user is "ana". Top-level keys only, the value equal to the id.
PERSON_METADATA_KEYS = ("user", "user_id", "user_ref", "person", "person_id")
# The prefix of a tag or source reference naming a person: "user:ana" (the plain id too).
PERSON_REF_PREFIX = "user:"


def clean_person(user: object) -> str:
    """A person's id as every interface takes it: required text, trimmed, in NFC."""
    return nfc_user(clean_text(user, field="user", max_chars=KEY_MAX_CHARS))


def person_refs(user: str) -> list[str]:
    """The tags and source references that name ``user``: their id, ``user:<id>``, in
    each stored form of the id."""
    forms = user_forms(user)
    return forms + [f"{PERSON_REF_PREFIX}{form}" for form in forms]


def mentions(text: str, user: str) -> bool:
    """Whether ``text`` names ``user`` as a whole word, in any case: "u1" is not in "u12";
    both in NFC, so that either form of an accented id is found."""
    text, user = nfc_user(text), nfc_user(user)
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
    by :func:`quotes`. SQLite stores JSON with non-ASCII escaped, so both forms are tried,
    for each stored form of the id."""
    match = Q()
    for form in user_forms(user):
        match |= Q(_text__icontains=form) | Q(_text__icontains=json.dumps(form)[1:-1])
    return rows.annotate(_text=Cast(column, output_field=TextField())).filter(match)


def person_facts(agent: Agent, user: str) -> QuerySet[Fact]:
    forms = user_forms(user)
    about = Q(user_ref__in=forms)
    if user != USER_SUBJECT:  # "user" is the placeholder subject of every user's own facts
        about |= Q(subject__in=forms)
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
    part.session_ids = set(
        sessions.filter(user_ref__in=user_forms(user)).values_list("pk", flat=True)
    )
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
    forms = user_forms(user)
    memories = Memory.objects.filter(agent=agent)
    ids = set(memories.filter(user_ref__in=forms).values_list("pk", flat=True))
    # JSON key lookups (json_extract on SQLite, -> on PostgreSQL): a value equal to the id.
    in_metadata = Q()
    for key in PERSON_METADATA_KEYS:
        for form in forms:
            in_metadata |= Q(**{f"metadata__{key}": form})
    ids |= set(memories.filter(in_metadata).values_list("pk", flat=True))
    # Through the (agent, name) index of tags.
    ids |= set(
        MemoryTag.objects.filter(agent=agent, name__in=person_refs(user)).values_list(
            "memory_id", flat=True
        )
    )
    ids |= _citing(memories, user)
    for chunk in chunks(session_ids):
        ids |= set(memories.filter(session_id__in=chunk).values_list("pk", flat=True))
    key = entity_key(user)
    ids |= set(
        EntityMention.objects.filter(
            agent=agent, entity__search_keys__contains=f"\n{key}\n"
        ).values_list("memory_id", flat=True)
    )
    ends = Q()
    named = Q()
    for form in forms:
        ends |= Q(name__iendswith=f":{form}")
        named |= Q(content__icontains=form)
    tags = MemoryTag.objects.filter(agent=agent, name__startswith=ENTITY_PREFIX).filter(ends)
    ids |= {pk for pk, name in tags.values_list("memory_id", "name") if _tag_names(name, key)}
    for pk, content in memories.filter(named).values_list("pk", "content"):
        if mentions(content, user):
            ids.add(pk)
    return ids


def _citing(memories: QuerySet[Memory], user: str) -> set[int]:
    """Memories whose ``source_refs`` hold the person's id or ``user:<id>``: a text match on
    the JSON list (both escapings, as in :func:`_json_quoting`), then checked exactly."""
    refs = person_refs(user)
    match = Q()
    for ref in refs:
        match |= Q(_refs__contains=json.dumps(ref)) | Q(
            _refs__contains=json.dumps(ref, ensure_ascii=False)
        )
    rows = memories.annotate(_refs=Cast("source_refs", output_field=TextField())).filter(match)
    wanted = set(refs)
    return {
        pk
        for pk, source_refs in rows.values_list("pk", "source_refs")
        if isinstance(source_refs, list) and wanted.intersection(source_refs)
    }


def _tag_names(tag: str, key: str) -> bool:
    """Whether the entity tag ``entity:<type>:<value>`` has the person's id as its value."""
    parts = tag.split(":", 2)
    return len(parts) == 3 and entity_key(parts[2]) == key


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
    fact_keys = Q()
    for form in user_forms(user):
        fact_keys |= Q(details__user=form)
        if user != USER_SUBJECT:
            fact_keys |= Q(details__subject=form)
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
