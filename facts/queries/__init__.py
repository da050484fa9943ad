"""Reads of facts: filtered lists with keyset pagination, one fact with its provenance.

filters (which facts) -> listing (pages, export rows, key suggestions) and counts (bounded,
by status); shapes (the API's dicts); detail (one fact in full, one erasure receipt);
review (the disputed facts waiting for a person); related (facts naming an entity or
learned from a memory). Every interface imports from here.
"""

from dewee.pagination import DEFAULT_PAGE_SIZE
from facts.queries.counts import (
    COUNT_CAP,
    bounded_count,
    count_label,
    disputed_count,
    in_force_count,
    searched_status_counts,
    status_counts,
)
from facts.queries.detail import fact_detail, get_fact, get_receipt
from facts.queries.filters import (
    FEW_BY_PREFIX,
    PREFIX_FIELDS,
    AgentScope,
    FactFilters,
    facts_of,
    filter_facts,
    parse_statuses,
    plan_prefix_filters,
    status_field,
)
from facts.queries.listing import (
    FACT_SORTING,
    SORTED_NEWEST_FIRST,
    SUGGESTION_SCAN,
    SUGGESTIONS_MAX,
    FactPage,
    facts_for_export,
    list_facts,
    suggest_keys,
)
from facts.queries.related import (
    FACTS_NAMING_MAX,
    current_facts_naming,
    facts_learned_from,
    facts_naming,
)
from facts.queries.review import REVIEW_QUEUE_LIMIT, review_item, review_queue
from facts.queries.shapes import (
    FACT_EXPORT_COLUMNS,
    event_to_dict,
    fact_freshness,
    fact_to_dict,
    period_to_dict,
    source_to_dict,
)

__all__ = [
    "COUNT_CAP",
    "DEFAULT_PAGE_SIZE",
    "FACTS_NAMING_MAX",
    "FACT_EXPORT_COLUMNS",
    "FACT_SORTING",
    "FEW_BY_PREFIX",
    "PREFIX_FIELDS",
    "REVIEW_QUEUE_LIMIT",
    "SORTED_NEWEST_FIRST",
    "SUGGESTIONS_MAX",
    "SUGGESTION_SCAN",
    "AgentScope",
    "FactFilters",
    "FactPage",
    "bounded_count",
    "count_label",
    "current_facts_naming",
    "disputed_count",
    "event_to_dict",
    "fact_detail",
    "fact_freshness",
    "fact_to_dict",
    "facts_for_export",
    "facts_learned_from",
    "facts_naming",
    "facts_of",
    "filter_facts",
    "get_fact",
    "get_receipt",
    "in_force_count",
    "list_facts",
    "parse_statuses",
    "period_to_dict",
    "plan_prefix_filters",
    "review_item",
    "review_queue",
    "searched_status_counts",
    "source_to_dict",
    "status_counts",
    "status_field",
    "suggest_keys",
]
