"""Reads of the review queue: disputed facts filtered and grouped by slot, each group under
its slot's current value as it is now; and a person's own recent decisions."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from dewee.pagination import keyset_page
from facts.models import DisputeTriage, Fact, FactComment, FactQuerySet, FactSource, Status
from facts.queries import COUNT_CAP, bounded_count, fact_to_dict, review_item
from facts.slots import Slot
from tenancy.access import Access
from tenancy.models import Agent, AuditAction, AuditEvent, Workspace

GROUPED_QUEUE_LIMIT = 50
# A predicate prefix shared by at most this many disputes is read through its index
# (facts 0011) and sorted oldest first, a few milliseconds. Walking the disputes oldest
# first instead reads every older dispute of other predicates on the way: 40,000 of them
# for "EMP" at a million facts (30-60 ms), where a commoner prefix fills a page soon.
FEW_DISPUTES_BY_PREFIX = 5_000
# An ordering equal to ("recorded_at", "id") that the oldest-first index cannot serve.
SORTED_OLDEST_FIRST = (Coalesce("recorded_at", "recorded_at").asc(), "id")
RESOLVED_PAGE_SIZE = 25
# What "resolved by me" lists: the decisions on disputed facts, and their reversals.
DECISION_ACTIONS = [AuditAction.FACT_RESOLVE, AuditAction.FACT_UNDO, AuditAction.FACT_REOPEN]


# Who a dispute is assigned to, as the queue's filter says it.
ASSIGNED_TO_ME, ASSIGNED_TO_NOBODY = "me", "none"
# Snoozed disputes: hidden (the default), the only ones shown, or shown with the others.
SNOOZED_ONLY, SNOOZED_TOO = "only", "all"
# Up to this many disputes asleep are left out of the queue by id (see _by_triage).
SNOOZED_BY_ID = 2_000


@dataclass(frozen=True)
class ReviewFilters:
    """Narrow the queue: one workspace (where every one is visible), one agent, predicates
    starting with ``predicate`` (any case), disputes recorded before ``recorded_before``;
    ``assigned`` to ASSIGNED_TO_ME (the user ``me``) or ASSIGNED_TO_NOBODY; ``snoozed``
    disputes hidden until their time unless SNOOZED_ONLY or SNOOZED_TOO."""

    workspace: Workspace | None = None
    agent: Agent | None = None
    predicate: str = ""
    recorded_before: datetime | None = None
    assigned: str = ""
    me: int | None = None
    snoozed: str = ""


def slot_key(slot: Slot) -> str:
    """A stable HTML id for a slot's group, whatever its text holds."""
    return f"slot-{slot.lock_key() & 0xFFFF_FFFF_FFFF_FFFF:016x}"


def _sourced(facts: FactQuerySet) -> FactQuerySet:
    return facts.prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))


def _triaged(facts: FactQuerySet) -> FactQuerySet:
    triage = DisputeTriage.objects.select_related("assignee")
    return facts.prefetch_related(Prefetch("triage", queryset=triage, to_attr="triage_rows"))


def _triage_of(triage: DisputeTriage | None, now: datetime) -> dict[str, Any]:
    """Who a dispute is assigned to and until when it sleeps (a time past is none)."""
    assignee = triage.assignee if triage is not None else None
    until = triage.snoozed_until if triage is not None else None
    return {
        "assignee": assignee.get_username() if assignee is not None else "",
        "assignee_id": assignee.pk if assignee is not None else None,
        "snoozed_until": until if until is not None and until > now else None,
    }


def disputes_matching(access: Access, filters: ReviewFilters) -> FactQuerySet:
    facts = Fact.objects.disputed()
    agents: Any
    if filters.agent is not None:
        agents = [filters.agent]
    else:
        agents = access.agents()
        if filters.workspace is not None:
            agents = agents.filter(workspace=filters.workspace)
    facts = facts.filter(agent__in=agents)
    if filters.predicate:
        facts = facts.filter(predicate__istartswith=filters.predicate)
    if filters.recorded_before is not None:
        facts = facts.filter(recorded_at__lt=filters.recorded_before)
    return _by_triage(facts, filters, agents)


def _by_triage(facts: FactQuerySet, filters: ReviewFilters, agents: Any) -> FactQuerySet:
    """``facts`` (of ``agents``) narrowed by assignee and snooze. Disputes asleep are few:
    their ids (of these agents) are read first and left out by id (up to SNOOZED_BY_ID of
    them), so that the queue's own index paths stay as they were; only beyond is it a test
    per dispute."""
    triage = DisputeTriage.objects.filter(fact=OuterRef("pk"), agent=OuterRef("agent"))
    if filters.assigned == ASSIGNED_TO_ME:
        facts = facts.filter(Exists(triage.filter(assignee_id=filters.me)))
    elif filters.assigned == ASSIGNED_TO_NOBODY:
        facts = facts.exclude(Exists(triage.filter(assignee__isnull=False)))
    if filters.snoozed == SNOOZED_TOO:
        return facts
    now = timezone.now()
    asleep = DisputeTriage.objects.filter(
        agent__in=agents, snoozed_until__gt=now, fact__status=Status.DISPUTED
    )
    ids = list(asleep.values_list("fact_id", flat=True)[: SNOOZED_BY_ID + 1])
    if filters.snoozed == SNOOZED_ONLY:
        if len(ids) <= SNOOZED_BY_ID:
            return facts.filter(pk__in=ids)
        return facts.filter(Exists(triage.filter(snoozed_until__gt=now)))
    if len(ids) <= SNOOZED_BY_ID:
        return facts.exclude(pk__in=ids) if ids else facts
    return facts.exclude(Exists(triage.filter(snoozed_until__gt=now)))


def _groups(disputed: list[Any]) -> list[dict[str, Any]]:
    """``disputed`` (annotated ``current_id``) grouped by slot, in the order of each slot's
    first dispute, each group under its slot's current value (read now, with sources)."""
    current_ids = {f.current_id for f in disputed if f.current_id is not None}
    currents = {f.pk: f for f in _sourced(Fact.objects.filter(pk__in=current_ids))}
    now = timezone.now()
    groups: dict[Slot, dict[str, Any]] = {}
    for fact in disputed:
        item = review_item(fact, currents.get(fact.current_id), now=now)
        rows = getattr(fact, "triage_rows", [])  # read with _triaged
        item |= _triage_of(rows[0] if rows else None, now)
        group = groups.get(fact.slot)
        if group is None:
            group = groups[fact.slot] = {
                "key": slot_key(fact.slot),
                "workspace": item["workspace"],
                "agent_id": item["agent_id"],
                "user": item["user"],
                "subject": fact.subject,
                "predicate": fact.predicate,
                "qualifier": fact.qualifier or None,
                "current": item["current"],
                "items": [],
            }
        group["items"].append(item)
    return list(groups.values())


def _with_current(facts: FactQuerySet) -> FactQuerySet:
    current_of_slot = Fact.objects.current().in_outer_slot()
    return (
        _triaged(_sourced(facts))
        .select_related("agent__workspace")
        .annotate(current_id=Subquery(current_of_slot.values("id")[:1]))
    )


def grouped_review_queue(
    access: Access, filters: ReviewFilters, *, limit: int = GROUPED_QUEUE_LIMIT
) -> tuple[list[dict[str, Any]], int]:
    """The oldest ``limit`` disputed facts matching ``filters`` of the agents ``access``
    sees, grouped by slot; and how many match in all (bounded, see bounded_count). Five
    queries whatever the length: the count, the disputes (each slot's current fact found by
    a subquery), their sources, the current facts, theirs."""
    matching = disputes_matching(access, filters)
    order: tuple[Any, ...] = ("recorded_at", "id")
    if filters.predicate:
        # One unordered count (the prefix's index) tells rare from common and is the total.
        counted = matching.order_by()[: max(FEW_DISPUTES_BY_PREFIX, COUNT_CAP) + 1].count()
        total = min(counted, COUNT_CAP + 1)
        if counted <= FEW_DISPUTES_BY_PREFIX:
            order = SORTED_OLDEST_FIRST
    else:
        total = bounded_count(matching)
    disputed = list(_with_current(matching).order_by(*order)[:limit])
    return _groups(disputed), total


def slot_group(fact: Fact) -> dict[str, Any] | None:
    """The review group of ``fact``'s slot as it is now: every dispute still waiting and the
    current value; None when nothing of the slot waits any more."""
    disputed = list(
        _with_current(Fact.objects.disputed().in_slot(fact.slot)).order_by("recorded_at", "id")
    )
    groups = _groups(disputed)
    return groups[0] if groups else None


@dataclass(frozen=True)
class DecisionPage:
    items: list[dict[str, Any]]
    next_cursor: str | None


def decisions_by(access: Access, *, cursor: str | None = None) -> DecisionPage:
    """``access.actor``'s own decisions on disputed facts (accepts, rejects, undos,
    reopens), newest first, in the workspaces ``access`` sees; each with its fact as it is
    now (None once the fact was forgotten). Two queries a page."""
    events: QuerySet[AuditEvent] = AuditEvent.objects.filter(
        actor=access.actor, action__in=DECISION_ACTIONS, target_type="fact"
    )
    if access.workspace is not None:
        events = events.filter(workspace=access.workspace)
    page, next_cursor = keyset_page(events, cursor=cursor, limit=RESOLVED_PAGE_SIZE)
    ids = [int(e.target_id) for e in page if e.target_id.isdigit()]
    facts = {f.pk: f for f in Fact.objects.filter(pk__in=ids).select_related("agent__workspace")}
    now = timezone.now()
    items = []
    for event in page:
        fact = facts.get(int(event.target_id)) if event.target_id.isdigit() else None
        items.append(
            {
                "action": event.action,
                "label": AuditAction(event.action).label,
                "details": event.details,
                "created_at": event.created_at,
                "fact": None if fact is None else fact_to_dict(fact, now=now),
                "workspace": fact.agent.workspace.slug if fact else None,
            }
        )
    return DecisionPage(items=items, next_cursor=next_cursor)


def teamwork_of(fact: Fact) -> dict[str, Any]:
    """What people did about ``fact`` together: who it is assigned to, until when it is
    snoozed (a time past is none), and its comment thread, oldest first."""
    triage = DisputeTriage.objects.filter(fact=fact, agent_id=fact.agent_id)
    comments = FactComment.objects.filter(fact=fact, agent_id=fact.agent_id).order_by(
        "created_at", "id"
    )
    return {
        **_triage_of(triage.select_related("assignee").first(), timezone.now()),
        "comments": list(comments),
    }


def comment_count(fact: Fact) -> int:
    """How many comments ``fact``'s thread holds (its page links to the thread)."""
    return FactComment.objects.filter(fact=fact, agent_id=fact.agent_id).count()
