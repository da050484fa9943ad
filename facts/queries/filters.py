"""Which facts a list is about: the filters (keys, statuses, a point in time, a value
search), the agents they are read from, and how prefix filters are best read."""

from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.models import Fact, FactQuerySet, Status, in_force_at
from tenancy.access import Access
from tenancy.models import Agent
from tenancy.validation import user_forms


@dataclass(frozen=True)
class FactFilters:
    user: str | None = None
    subject: str | None = None
    predicate: str | None = None
    statuses: list[str] = field(default_factory=list)
    # Transaction time: the facts recorded by then, each with the status it had then (the
    # status filter and the counts apply to that status).
    as_of: datetime | None = None
    # Valid time: only facts true in the world at this moment (FactQuerySet.valid_at: in
    # their valid window, a history value only until it stopped being believed, never a
    # rejected or deleted one).
    valid_at: datetime | None = None
    # Only the value of each slot in force now, or at ``valid_at`` (models.in_force_at): a
    # value handed over to one that holds from a later date until then, its successor from
    # that date. "What is true now", where the status is what the agent recorded.
    in_force: bool = False
    search: str | None = None
    # The dashboard's forgiving filters: user, subject and predicate match by their start,
    # whatever the case. The API and the CLI match them exactly (an agent asking for
    # "ana"'s facts must never get "anastasia"'s).
    prefix: bool = False
    # Set by ``plan_prefix_filters``: few facts match the prefixes, so they are read through
    # the prefix indexes and sorted, rather than found walking every fact newest first.
    few_by_prefix: bool = False


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


def status_field(filters: FactFilters) -> str:
    """The field a status is read from: the status at ``as_of`` in a point-in-time list."""
    return "status_then" if filters.as_of is not None else "status"


# The dashboard's filters that match a key by its start, whatever its case: "AN" finds
# "ana" and "andre". Django's istartswith is UPPER(col::text) LIKE UPPER(x) || '%' on
# PostgreSQL, which the expression indexes of migration 0006 serve; SQLite's LIKE is
# case-insensitive for ASCII (only: "É" does not find "é" there).
PREFIX_FIELDS = {"user": "user_ref", "subject": "subject", "predicate": "predicate"}


# One agent's facts, or those of every agent an Access sees ("all agents" in the dashboard).
AgentScope = Agent | Access


def facts_of(scope: AgentScope) -> FactQuerySet:
    """The facts of ``scope``. Staff see every agent: their "all agents" is not narrowed at
    all, so the planner walks the id index newest first instead of joining the agents."""
    if isinstance(scope, Agent):
        return Fact.objects.filter(agent=scope)
    if scope.workspace is None and scope.agent_ids is None:
        return Fact.objects.all()
    return Fact.objects.filter(agent__in=scope.agents().values("id"))


def _key_match(filters: FactFilters, field: str, value: str) -> Q:
    # An empty value is exact even with prefix (the API's user="": about no one).
    # Each stored form of the value (tenancy.validation.user_forms: an id stored before
    # ids were normalised may be in NFD).
    match = Q()
    for form in user_forms(value):
        match |= Q(**{f"{field}__istartswith" if filters.prefix and value else field: form})
    return match


def filter_facts(agent: AgentScope, filters: FactFilters) -> FactQuerySet:
    facts = facts_of(agent)
    if filters.user is not None:
        facts = facts.filter(_key_match(filters, "user_ref", filters.user))
    if filters.subject:
        facts = facts.filter(_key_match(filters, "subject", filters.subject))
    if filters.predicate:
        facts = facts.filter(_key_match(filters, "predicate", filters.predicate))
    if filters.as_of is not None:
        facts = facts.with_status_at(filters.as_of)
    if filters.statuses:
        facts = facts.filter(**{f"{status_field(filters)}__in": filters.statuses})
    if filters.in_force:
        facts = facts.filter(in_force_at(filters.valid_at or timezone.now()))
    if filters.valid_at is not None:
        facts = facts.valid_at(filters.valid_at, status_field=status_field(filters))
    if filters.search:
        facts = facts.filter(value__icontains=filters.search)
    return facts


# A prefix shared by fewer facts than this is read through its index and sorted (a few
# milliseconds); a commoner one lets the planner walk the facts newest first, where its
# matches are dense enough to fill a page soon. Without this, PostgreSQL estimates a
# prefix's matches as spread evenly over time and walks the id index for them all, which
# for one user's facts recorded long ago reads most of the table (480 ms at 200,000 facts).
# Counting to it reads that many rows (20,000 took 89 ms at a million facts, its sorted
# page as long), while a prefix as common as this fills a page newest first in a few
# thousand rows.
FEW_BY_PREFIX = 5_000


def is_keyed(filters: FactFilters) -> bool:
    """Whether ``filters`` name a user, a subject or a predicate."""
    return any((filters.user, filters.subject, filters.predicate))


def plan_prefix_filters(scope: "AgentScope", filters: FactFilters) -> FactFilters:
    """``filters`` with ``few_by_prefix`` set when prefix filters match fewer than
    FEW_BY_PREFIX facts: one bounded count, only when a prefix filter is given."""
    if not (filters.prefix and is_keyed(filters)):
        return filters
    matches = filter_facts(scope, replace(filters, statuses=[], as_of=None, valid_at=None))
    few = matches.order_by()[:FEW_BY_PREFIX].count() < FEW_BY_PREFIX
    return replace(filters, few_by_prefix=few)
