"""Pages of facts: a filtered list with keyset pagination (newest first, or in an order the
Facts list offers), the rows of an export, and the keys offered as a filter is typed."""

from dataclasses import dataclass
from typing import Any

from django.db.models import F, Prefetch

from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit, sorted_page
from dewee.sorting import Sort, Sorting, SortKey
from facts.models import Fact, FactQuerySet
from facts.queries.filters import (
    PREFIX_FIELDS,
    AgentScope,
    FactFilters,
    facts_of,
    filter_facts,
)
from tenancy.models import Agent


@dataclass(frozen=True)
class FactPage:
    items: list[Fact]
    next_cursor: str | None
    # The order the page is in (the one asked for, or the default when it was refused).
    sort: Sort | None = None


# The Facts list's orders. Recorded: the id's order, the order facts were recorded in
# (``recorded_at`` is the time of the insert), which the primary key serves in any scope.
# Slot (its predicate) and confidence: no index serves them over every agent (and the
# agent's predicate index breaks ties against the sort), so only a list of at most
# UNINDEXED_SORT_MAX facts is sorted by them.
FACT_SORTING = Sorting(
    keys=(
        SortKey("recorded", indexed=True, descending_first=True, label="when recorded"),
        SortKey("slot", field="predicate", kind=str, label="slot (predicate)"),
        SortKey("confidence", field="confidence", kind=float, descending_first=True),
    ),
    default="-recorded",
)


SUGGESTIONS_MAX = 10
# A suggestion list reads at most this many index entries: the first distinct keys among
# them are offered, so a prefix shared by a million facts costs what a rare one does.
# Typing one more letter narrows it.
SUGGESTION_SCAN = 500


def suggest_keys(
    scope: AgentScope, *, field: str, prefix: str, limit: int = SUGGESTIONS_MAX
) -> list[str]:
    """Up to ``limit`` distinct values of the key ``field`` ("user", "subject" or
    "predicate") starting with ``prefix`` (any case) among the facts of ``scope``, sorted;
    none for an empty prefix."""
    column = PREFIX_FIELDS[field]
    if not prefix:
        return []
    rows = (
        facts_of(scope)
        .filter(**{f"{column}__istartswith": prefix})
        .exclude(**{column: ""})
        .order_by()
        .values_list(column, flat=True)[:SUGGESTION_SCAN]
    )
    return sorted(set(rows), key=lambda key: (key.casefold(), key))[:limit]


# An ordering equal to "-id" that the primary key cannot serve (see filters.FEW_BY_PREFIX).
SORTED_NEWEST_FIRST = (F("id") + 0).desc()


def _newest_first(filters: FactFilters) -> Any:
    return SORTED_NEWEST_FIRST if filters.few_by_prefix else "-id"


def list_facts(
    *,
    agent: AgentScope,
    filters: FactFilters,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
    sort: Sort | None = None,
) -> FactPage:
    """Newest first (or in ``sort``, one of FACT_SORTING's), ``limit`` per page;
    ``next_cursor`` continues after the last item. A sort no index serves, asked of more
    than UNINDEXED_SORT_MAX facts, gives the default order (the page's ``sort`` says so),
    from its first page."""
    limit = clean_limit(limit)
    # No join to the agent: every row has the same one, and the join leads SQLite's
    # planner away from walking the primary key in order.
    facts = filter_facts(agent, filters)
    if not isinstance(agent, Agent):
        # Several agents: each row's own, with its workspace (named in the list), in one
        # more query: a join would lead SQLite's planner away from the id index's order.
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    items, next_cursor, sort = sorted_page(
        facts,
        sorting=FACT_SORTING,
        sort=sort or FACT_SORTING.default_sort,
        cursor=cursor,
        limit=limit,
        one_agent=isinstance(agent, Agent),
        newest_first=_newest_first(filters),
    )
    if isinstance(agent, Agent):
        for fact in items:
            fact.agent = agent
    return FactPage(items=items, next_cursor=next_cursor, sort=sort)


def facts_for_export(*, agent: AgentScope, filters: FactFilters) -> FactQuerySet:
    """Every fact of ``agent`` (one agent, or every agent an Access sees) that ``filters``
    let through, newest first as the list shows them, unevaluated: the export streams it a
    chunk at a time (with several agents, each chunk's agents in one more query)."""
    facts = filter_facts(agent, filters).order_by("-id")
    if not isinstance(agent, Agent):
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    return facts
