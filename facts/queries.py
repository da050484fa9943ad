"""Reads of facts: filtered lists with keyset pagination, one fact with its provenance."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Prefetch
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit, decode_cursor, encode_cursor
from facts.exceptions import FactNotFound
from facts.models import Fact, FactQuerySet, FactSource, Status
from facts.rules import freshness, freshness_label
from memory.access import Access
from memory.models import Agent, AuditEvent


@dataclass(frozen=True)
class FactPage:
    items: list[Fact]
    next_cursor: str | None


@dataclass(frozen=True)
class FactFilters:
    user: str | None = None
    subject: str | None = None
    predicate: str | None = None
    statuses: list[str] = field(default_factory=list)
    as_of: datetime | None = None
    search: str | None = None


def parse_statuses(raw: str | list[str] | None) -> list[str]:
    """``"current,disputed"`` or a list; each must be a known status."""
    if not raw:
        return []
    items = raw.split(",") if isinstance(raw, str) else raw
    statuses = [item.strip() for item in items if item.strip()]
    unknown = [s for s in statuses if s not in Status.values]
    if unknown:
        raise InvalidInput(
            "status", f"unknown status {unknown[0]!r}; use {', '.join(Status.values)}"
        )
    return statuses


def filter_facts(agent: Agent, filters: FactFilters) -> FactQuerySet:
    facts = Fact.objects.filter(agent=agent)
    if filters.user is not None:
        facts = facts.filter(user_ref=filters.user)
    if filters.subject:
        facts = facts.filter(subject=filters.subject)
    if filters.predicate:
        facts = facts.filter(predicate=filters.predicate)
    if filters.statuses:
        facts = facts.filter(status__in=filters.statuses)
    if filters.as_of is not None:
        facts = facts.believed_at(filters.as_of)
    if filters.search:
        facts = facts.filter(value__icontains=filters.search)
    return facts


def list_facts(
    *,
    agent: Agent,
    filters: FactFilters,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> FactPage:
    """Newest first, ``limit`` per page; ``next_cursor`` continues after the last item."""
    limit = clean_limit(limit)
    facts = filter_facts(agent, filters)
    if cursor:
        facts = facts.filter(id__lt=decode_cursor(cursor))
    # No join to the agent: every row has the same one, and the join leads SQLite's
    # planner away from walking the primary key in order.
    items = list(facts.order_by("-id")[: limit + 1])
    for fact in items:
        fact.agent = agent
    next_cursor = encode_cursor(items[limit - 1].pk) if len(items) > limit else None
    return FactPage(items=items[:limit], next_cursor=next_cursor)


def get_fact(*, access: Access, fact_id: int, agent: Agent | None = None) -> Fact:
    facts = Fact.objects.select_related("agent__workspace")
    return access.load(facts, fact_id, missing=FactNotFound, label="Fact", agent=agent)


def fact_to_dict(fact: Fact, *, now: datetime | None = None) -> dict[str, Any]:
    score = freshness(fact.category, fact.last_confirmed_at, now or timezone.now())
    return {
        "id": fact.pk,
        "agent_id": fact.agent.agent_id,
        "user": fact.user_ref or None,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "qualifier": fact.qualifier or None,
        "value": fact.value,
        "status": fact.status,
        "verification": fact.verification,
        "confidence": fact.confidence,
        "category": fact.category,
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "recorded_at": fact.recorded_at,
        "last_confirmed_at": fact.last_confirmed_at,
        "believed_from": fact.believed_from,
        "believed_until": fact.believed_until,
        "freshness": round(score, 4),
        "freshness_label": freshness_label(score),
        "status_changed_by": fact.status_changed_by or None,
        "status_reason": fact.status_reason or None,
    }


def source_to_dict(source: FactSource) -> dict[str, Any]:
    return {
        "kind": source.kind,
        "reference": source.reference or None,
        "excerpt": source.excerpt or None,
        "operator": source.operator or None,
        "verification": source.verification,
        "confidence": source.confidence,
        "recorded_at": source.recorded_at,
    }


def event_to_dict(event: AuditEvent) -> dict[str, Any]:
    return {
        "action": event.action,
        "actor": event.actor,
        "details": event.details,
        "created_at": event.created_at,
    }


def fact_detail(fact: Fact) -> dict[str, Any]:
    """The fact, its sources, every fact of its slot in order (the history chain), and the
    audit events about it."""
    slot = (
        Fact.objects.in_slot(fact)
        .select_related("agent")
        .prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))
        .order_by("recorded_at", "id")
    )
    events = AuditEvent.objects.filter(target_type="fact", target_id=str(fact.pk)).order_by(
        "created_at", "id"
    )
    now = timezone.now()
    chain = list(slot)
    this = next(f for f in chain if f.pk == fact.pk)
    return {
        **fact_to_dict(this, now=now),
        "sources": [source_to_dict(s) for s in this.sources.all()],
        "history": [fact_to_dict(f, now=now) for f in chain],
        "events": [event_to_dict(e) for e in events],
    }
