"""A person's export: everything a workspace holds about one user id (what knowledge.people
finds, so exactly what their erasure would erase), as one JSON document.

The document is streamed: it is written section by section and memories are read CHUNK at a
time, so a person with a great many memories costs a steady amount of server memory, and the
client reads one document (no pages to follow). Reading it changes nothing: no access is
recorded, no session is touched, no audit event is written.

Shape::

    {"user", "workspace", "exported_at",
     "facts": [fact with "sources" (every status, so the history of each slot)],
     "memories": [memory as GET /v1/memories/{id} gives it],
     "sessions": [session with "summary", "metadata" and "turns" (its memory ids)],
     "entity_tags": [the entity tags of those memories, each once],
     "feedback": [votes and flags on those memories],
     "audit_events": [events about the person's facts, memories and sessions or quoting them]}
"""

import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Prefetch
from django.utils import timezone

from facts.models import FactSource
from facts.queries import fact_to_dict, source_to_dict
from knowledge.people import PersonData, find_person, person_facts
from language.entities import ENTITY_PREFIX
from memory.derived import chunks
from memory.models import Memory, MemoryFeedback, MemoryTag, Session
from memory.queries import memory_to_dict, session_to_dict
from tenancy.models import AuditEvent, Workspace


def _dumps(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def export_person(*, workspace: Workspace, user: str) -> Iterator[str]:
    """The export of ``user`` in ``workspace`` as pieces of one JSON document, in order.
    The person is looked up before the first piece, so a bad id raises at once."""
    data = find_person(workspace=workspace, user=user)
    return _document(data)


def _document(data: PersonData) -> Iterator[str]:
    head = {
        "user": data.user,
        "workspace": data.workspace.slug,
        "exported_at": timezone.now(),
    }
    yield _dumps(head)[:-1]
    sections = (
        ("facts", _facts(data)),
        ("memories", _memories(data)),
        ("sessions", _sessions(data)),
        ("entity_tags", _entity_tags(data)),
        ("feedback", _feedback(data)),
        ("audit_events", _events(data)),
    )
    for name, items in sections:
        yield f", {_dumps(name)}: ["
        for index, item in enumerate(items):
            yield ("" if index == 0 else ", ") + _dumps(item)
        yield "]"
    yield "}\n"


def _facts(data: PersonData) -> Iterator[dict[str, Any]]:
    now = timezone.now()
    for part in data.parts:
        facts = (
            person_facts(part.agent, data.user)
            .select_related("agent")
            .prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))
            .order_by("subject", "predicate", "qualifier", "recorded_at", "id")
        )
        for fact in facts:
            sources = [source_to_dict(s) for s in fact.sources.all()]
            yield {**fact_to_dict(fact, now=now), "sources": sources}


def _memory_chunks(data: PersonData) -> Iterator[list[Memory]]:
    for part in data.parts:
        for ids in chunks(part.memory_ids):
            memories = Memory.objects.filter(pk__in=ids).select_related("agent")
            yield list(memories.prefetch_related("tag_rows").order_by("id"))


def _memories(data: PersonData) -> Iterator[dict[str, Any]]:
    for memories in _memory_chunks(data):
        yield from (memory_to_dict(m) for m in memories)


def _sessions(data: PersonData) -> Iterator[dict[str, Any]]:
    for part in data.parts:
        for ids in chunks(part.session_ids):
            for session in Session.objects.filter(pk__in=ids).select_related("agent"):
                turns = list(
                    Memory.objects.filter(session=session)
                    .order_by("id")
                    .values_list("pk", flat=True)
                )
                yield {**session_to_dict(session, memory_count=len(turns)), "turns": turns}


def _entity_tags(data: PersonData) -> Iterable[str]:
    tags: set[str] = set()
    for part in data.parts:
        for ids in chunks(part.memory_ids):
            tags |= set(
                MemoryTag.objects.filter(
                    memory_id__in=ids, name__startswith=ENTITY_PREFIX
                ).values_list("name", flat=True)
            )
    return sorted(tags)


def _feedback(data: PersonData) -> Iterator[dict[str, Any]]:
    for part in data.parts:
        for ids in chunks(part.memory_ids):
            for row in MemoryFeedback.objects.filter(memory_id__in=ids).order_by("id"):
                yield {
                    "memory_id": row.memory_id,
                    "kind": row.kind,
                    "actor": row.actor,
                    "note": row.note or None,
                    "importance_before": row.importance_before,
                    "importance_after": row.importance_after,
                    "created_at": row.created_at,
                }


def _events(data: PersonData) -> Iterator[dict[str, Any]]:
    for ids in chunks(data.event_ids):
        for event in AuditEvent.objects.filter(pk__in=ids).select_related("agent").order_by("id"):
            yield {
                "action": event.action,
                "actor": event.actor,
                "agent_id": event.agent.agent_id if event.agent else None,
                "target_type": event.target_type,
                "target_id": event.target_id or None,
                "details": event.details,
                "created_at": event.created_at,
            }
