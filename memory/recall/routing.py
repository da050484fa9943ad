"""Query routing: what kind of question a query is, and how much the vector list counts
against the keyword list for it."""

import re
from enum import StrEnum

from language.entities import query_names
from language.moments import MONTHS, WEEKDAYS
from memory.recall.keyword_search import keyword_terms


class QueryClass(StrEnum):
    KEYWORD = "keyword"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"
    TEMPORAL = "temporal"
    MULTI_HOP = "multi_hop"


class Routing(StrEnum):
    AUTO = "auto"
    VECTOR = "vector"
    KEYWORD = "keyword"
    HYBRID = "hybrid"


class Fusion(StrEnum):
    MINMAX = "minmax"
    RRF = "rrf"


_TEMPORAL = re.compile(
    r"\b(when|what (?:time|date|year|month|day)|how long|ago|before|after|since|until|during|"
    r"yesterday|today|tomorrow|last (?:week|month|year|night)|next (?:week|month|year)|"
    rf"(?:19|20)\d\d|{'|'.join(MONTHS + WEEKDAYS).lower()})\b",
    re.IGNORECASE,
)
_MULTI_HOP = re.compile(
    r"\b(both|common|compare|compared|relationship|why|because|would|likely|together|"
    r"each other|in total|how many)\b",
    re.IGNORECASE,
)
_LITERAL = re.compile(r"\"[^\"]+\"|'[^']+'|\b\w*[\d_@/#]\w*\b")


def classify_query(text: str) -> QueryClass:
    """A cheap, explainable guess at what kind of question this is."""
    if _TEMPORAL.search(text):
        return QueryClass.TEMPORAL
    if _MULTI_HOP.search(text) or len(query_names(text)) >= 2:
        return QueryClass.MULTI_HOP
    terms = keyword_terms(text)
    if _LITERAL.search(text) or len(terms) <= 2:
        return QueryClass.KEYWORD
    if text.rstrip().endswith("?") or len(terms) >= 6:
        return QueryClass.SEMANTIC
    return QueryClass.HYBRID


# How much the vector list counts against the keyword list, per query class.
VECTOR_WEIGHT = {
    QueryClass.KEYWORD: 0.35,
    QueryClass.SEMANTIC: 0.45,
    QueryClass.HYBRID: 0.45,
    QueryClass.TEMPORAL: 0.45,
    QueryClass.MULTI_HOP: 0.45,
}


def vector_weight(routing: Routing, query_class: QueryClass) -> float:
    """The vector list's share of the fused relevance: the query class's under automatic
    routing, all or nothing when one list is asked for, half with hybrid."""
    return {
        Routing.AUTO: VECTOR_WEIGHT[query_class],
        Routing.HYBRID: 0.5,
        Routing.VECTOR: 1.0,
        Routing.KEYWORD: 0.0,
    }[routing]
