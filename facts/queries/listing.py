"""Pages of facts: a filtered list newest first with keyset pagination, the rows of an
export, and the keys offered as a filter is typed."""

from dataclasses import dataclass
from typing import Any

from django.db.models import F, Prefetch

from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit, keyset_page
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
) -> FactPage:
    """Newest first, ``limit`` per page; ``next_cursor`` continues after the last item."""
    limit = clean_limit(limit)
    # No join to the agent: every row has the same one, and the join leads SQLite's
    # planner away from walking the primary key in order.
    facts = filter_facts(agent, filters)
    if not isinstance(agent, Agent):
        # Several agents: each row's own, with its workspace (named in the list), in one
        # more query: a join would lead SQLite's planner away from the id index's order.
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    order = _newest_first(filters)
    items, next_cursor = keyset_page(facts, cursor=cursor, limit=limit, newest_first=order)
    if isinstance(agent, Agent):
        for fact in items:
            fact.agent = agent
    return FactPage(items=items, next_cursor=next_cursor)


def facts_for_export(*, agent: AgentScope, filters: FactFilters) -> FactQuerySet:
    """Every fact of ``agent`` (one agent, or every agent an Access sees) that ``filters``
    let through, newest first as the list shows them, unevaluated: the export streams it a
    chunk at a time (with several agents, each chunk's agents in one more query)."""
    facts = filter_facts(agent, filters).order_by("-id")
    if not isinstance(agent, Agent):
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    return facts
