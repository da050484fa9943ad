"""Recall: find the memories that answer a query, and say why each one ranks where it does.

classify (routing) -> embed -> vector search + keyword search -> fusion, entity pass and
neighbour pass (relevance) -> score: relevance, importance, recency (scoring) -> optional
rerank -> top_k (pipeline). Filters (filters) narrow the candidates of every step. See
DESIGN.md.
"""

from memory.recall.filters import (
    ALL_USERS,
    SHARED_ONLY,
    Audience,
    RecallFilters,
    audience_of,
    candidate_memories,
    clean_importance_range,
)
from memory.recall.pipeline import RecallHit, RecallRequest, RecallResult, load_winners, recall
from memory.recall.routing import QueryClass, classify_query
from memory.recall.scoring import FLAGGED_FACTOR, Weights

__all__ = [
    "ALL_USERS",
    "FLAGGED_FACTOR",
    "SHARED_ONLY",
    "Audience",
    "QueryClass",
    "RecallFilters",
    "RecallHit",
    "RecallRequest",
    "RecallResult",
    "Weights",
    "audience_of",
    "candidate_memories",
    "classify_query",
    "clean_importance_range",
    "load_winners",
    "recall",
]
