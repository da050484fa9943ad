"""How many facts a list holds: counts bounded at COUNT_CAP, by status, in force, or
disputed and waiting for a person, and how a bounded count reads."""

from collections import Counter
from dataclasses import replace

from django.db.models import QuerySet

from facts.models import Fact, Status
from facts.queries.filters import AgentScope, FactFilters, filter_facts, is_keyed, status_field
from tenancy.access import Access

# Counts on the dashboard stop here: beyond it a count reads "1,000+", and a count never
# reads more than this many index entries, whatever the size of the agent.
COUNT_CAP = 1000


def bounded_count(facts: QuerySet[Fact], *, in_id_order: bool = True) -> int:
    """The number of ``facts``, or COUNT_CAP + 1 when there are more than COUNT_CAP.
    ``in_id_order``: read newest first (the id index walks to the first COUNT_CAP of a
    common status); without it, whichever index the planner picks (see
    filters.FEW_BY_PREFIX)."""
    ordered = facts.order_by("-id") if in_id_order else facts.order_by()
    return ordered[: COUNT_CAP + 1].count()


def count_label(count: int) -> str:
    return f"{COUNT_CAP:,}+" if count > COUNT_CAP else f"{count:,}"


def status_counts(agent: AgentScope, filters: FactFilters) -> dict[str, int]:
    """How many facts of each status match ``filters`` but their statuses (bounded, one
    short index read per status); every status is a key, 0 when none match. As of a time,
    each fact counts under the status it had then."""
    facts = filter_facts(agent, replace(filters, statuses=[], in_force=False))
    field = status_field(filters)
    if filters.search or (filters.prefix and not filters.few_by_prefix and is_keyed(filters)):
        # A value search, or a prefix many facts share: one sample of their statuses.
        return searched_status_counts(facts, field)
    walk = not filters.few_by_prefix
    return {
        status: bounded_count(facts.filter(**{field: status}), in_id_order=walk)
        for status in Status.values
    }


def in_force_count(agent: AgentScope, filters: FactFilters) -> int:
    """How many facts matching ``filters`` but their statuses are in force (bounded)."""
    facts = filter_facts(agent, replace(filters, statuses=[], in_force=True))
    return bounded_count(facts, in_id_order=not filters.few_by_prefix)


def searched_status_counts(facts: QuerySet[Fact], field: str) -> dict[str, int]:
    """status_counts() of a value search (or a common prefix), from one read of the
    trigram (or prefix) index where it can.

    Each read of that index costs about the same whatever the search finds: a value's
    common words (every fact here says "value ...") make it walk their long posting lists.
    So the statuses of up to one COUNT_CAP + 1 per status of the matches are read at once:
    fewer than that many matches are every match (each count exact); otherwise a status
    seen more than COUNT_CAP times is over the cap for sure, and only the others are
    counted on their own (the rare ones then read the status index, not the trigrams)."""
    sample_size = len(Status.values) * (COUNT_CAP + 1)
    seen = Counter(facts.order_by().values_list(field, flat=True)[:sample_size])
    if seen.total() < sample_size:
        return {status: min(seen[status], COUNT_CAP + 1) for status in Status.values}
    return {
        status: COUNT_CAP + 1
        if seen[status] > COUNT_CAP
        # Unordered: newest first, the planner walks the primary key backwards through the
        # agent's facts for COUNT_CAP + 1 matches (200,000 rows' filter at a million facts)
        # instead of reading the trigram index.
        else facts.filter(**{field: status}).order_by()[: COUNT_CAP + 1].count()
        for status in Status.values
    }


def disputed_count(access: Access) -> int:
    """Disputed facts waiting for a person, over every agent ``access`` sees (bounded)."""
    return bounded_count(Fact.objects.disputed().filter(agent__in=access.agents()))
