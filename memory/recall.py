"""Recall: find the memories that answer a query, and say why each one ranks where it does.

classify -> embed -> vector search + keyword search -> entity pass -> fusion -> scoring
(relevance, importance, recency) -> optional rerank -> top_k. See DESIGN.md.
"""

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db.models import Count
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.embeddings.engine import Embedder, get_embedder
from memory.entities import query_names
from memory.exceptions import SessionNotFound
from memory.models import Memory, MemoryQuerySet, MemoryTag, MemoryType, Session
from memory.rerank import RERANK_CANDIDATES, CrossEncoder, get_reranker
from memory.search import keyword_search, keyword_terms, vector_search
from memory.services import record_access as record_memory_access
from memory.services import record_session_activity
from tenancy.models import Agent
from tenancy.validation import clean_tags, clean_unit_interval

TOP_K_MAX = 100
POOL_MIN = 100
RRF_K = 60
RECENCY_HALF_LIFE_DAYS = 30.0
# A memory flagged irrelevant by feedback keeps this share of its score: it ranks below an
# otherwise equal memory, yet is still found when nothing better matches.
FLAGGED_FACTOR = 0.5


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
    r"(?:19|20)\d\d|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
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
# How much naming the same people as the query adds to a memory's relevance.
ENTITY_WEIGHT = 0.05


@dataclass(frozen=True)
class Weights:
    relevance: float = 0.8
    importance: float = 0.1
    recency: float = 0.1

    def __post_init__(self) -> None:
        for name in ("relevance", "importance", "recency"):
            clean_unit_interval(getattr(self, name), field=f"weights.{name}")


@dataclass(frozen=True)
class RecallFilters:
    session_id: int | None = None
    tags: list[str] = field(default_factory=list)
    memory_type: str | None = None
    min_importance: float | None = None
    max_importance: float | None = None
    since: datetime | None = None
    until: datetime | None = None

    @property
    def any(self) -> bool:
        return any(
            value not in (None, [])
            for value in (
                self.session_id,
                self.tags,
                self.memory_type,
                self.min_importance,
                self.max_importance,
                self.since,
                self.until,
            )
        )


@dataclass(frozen=True)
class RecallRequest:
    query: str
    top_k: int = 10
    routing: str = Routing.AUTO
    fusion: str = Fusion.MINMAX
    weights: Weights = field(default_factory=Weights)
    filters: RecallFilters = field(default_factory=RecallFilters)
    explain: bool = False
    rerank: bool = True


@dataclass
class RecallHit:
    memory: Memory
    score: float
    explanation: dict[str, Any]


@dataclass
class RecallResult:
    hits: list[RecallHit]
    query_class: QueryClass
    routing: Routing


# A memory as scoring sees it: (score, id, importance, recency).
ScoredRow = tuple[float, int, float, float]


def _validate(agent: Agent, request: RecallRequest) -> tuple[Routing, Fusion]:
    if not isinstance(request.query, str) or not request.query.strip():
        raise InvalidInput("query", "must not be empty")
    if len(request.query) > 4000:
        raise InvalidInput("query", "must be at most 4,000 characters")
    if isinstance(request.top_k, bool) or not isinstance(request.top_k, int):
        raise InvalidInput("top_k", "must be an integer")
    if not 1 <= request.top_k <= TOP_K_MAX:
        raise InvalidInput("top_k", f"must be between 1 and {TOP_K_MAX}")
    try:
        routing = Routing(request.routing)
    except ValueError:
        raise InvalidInput("routing", f"must be one of {', '.join(Routing)}") from None
    try:
        fusion = Fusion(request.fusion)
    except ValueError:
        raise InvalidInput("fusion", f"must be one of {', '.join(Fusion)}") from None
    f = request.filters
    if f.memory_type is not None and f.memory_type not in MemoryType.values:
        raise InvalidInput("memory_type", f"must be one of {', '.join(MemoryType.values)}")
    clean_importance_range(f)
    clean_tags(f.tags)
    if f.since and f.until and f.until < f.since:
        raise InvalidInput("until", "must not be before since")
    if (
        f.session_id is not None
        and not Session.objects.filter(agent=agent, pk=f.session_id).exists()
    ):
        raise SessionNotFound(f"Session {f.session_id} not found for this agent")
    return routing, fusion


def clean_importance_range(filters: RecallFilters) -> None:
    """Both bounds in [0, 1], the upper one not below the lower one."""
    low, high = filters.min_importance, filters.max_importance
    if low is not None:
        clean_unit_interval(low, field="min_importance")
    if high is not None:
        clean_unit_interval(high, field="max_importance")
        if low is not None and high < low:
            raise InvalidInput("max_importance", "must not be below min_importance")


def candidate_memories(agent: Agent, filters: RecallFilters, now: datetime) -> MemoryQuerySet:
    memories = Memory.objects.filter(agent=agent).live(now)
    if filters.session_id is not None:
        memories = memories.filter(session_id=filters.session_id)
    if filters.memory_type:
        memories = memories.filter(memory_type=filters.memory_type)
    if filters.min_importance is not None:
        memories = memories.filter(importance__gte=filters.min_importance)
    if filters.max_importance is not None:
        memories = memories.filter(importance__lte=filters.max_importance)
    if filters.since:
        memories = memories.filter(created_at__gte=filters.since)
    if filters.until:
        memories = memories.filter(created_at__lte=filters.until)
    for tag in filters.tags:
        memories = memories.filter(
            pk__in=MemoryTag.objects.filter(agent=agent, name=tag).values("memory_id")
        )
    return memories


def _minmax(pairs: list[tuple[int, float]]) -> dict[int, float]:
    if not pairs:
        return {}
    values = [score for _, score in pairs]
    low, high = min(values), max(values)
    if high - low < 1e-12:
        return {memory_id: 1.0 for memory_id, _ in pairs}
    return {memory_id: (score - low) / (high - low) for memory_id, score in pairs}


def _rrf(pairs: list[tuple[int, float]]) -> dict[int, float]:
    # Scaled so that rank 1 scores 1.0, like the top of a min-max list.
    return {
        memory_id: (RRF_K + 1) / (RRF_K + rank)
        for rank, (memory_id, _) in enumerate(pairs, start=1)
    }


def _entity_matches(agent: Agent, pool: set[int], names: list[str]) -> dict[int, float]:
    """The share of the query's names each pooled memory mentions."""
    if not names or not pool:
        return {}
    rows = (
        MemoryTag.objects.filter(
            agent=agent, memory_id__in=pool, name__in=[f"entity:name:{n}" for n in names]
        )
        .values("memory_id")
        .annotate(n=Count("id"))
    )
    return {row["memory_id"]: row["n"] / len(names) for row in rows}


def _recency(anchor: datetime, now: datetime) -> float:
    """1.0 for a memory made just now, halving every RECENCY_HALF_LIFE_DAYS. Use is not
    counted here (that is decay's job, through importance): a recall must not make the
    memories it returned rank higher in the next one."""
    age_days = max((now - anchor).total_seconds(), 0.0) / 86400
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def _neighbours(pool_ids: list[int]) -> dict[int, list[int]]:
    """The memories just before and after each given one in its session."""
    if not pool_ids:
        return {}
    sessions = dict(
        Memory.objects.filter(pk__in=pool_ids, session__isnull=False).values_list(
            "pk", "session_id"
        )
    )
    if not sessions:
        return {}
    ordered = (
        Memory.objects.filter(session_id__in=set(sessions.values()))
        .order_by("session_id", "id")
        .values_list("pk", "session_id")
    )
    by_session: dict[int, list[int]] = {}
    for memory_id, session_id in ordered:
        by_session.setdefault(session_id, []).append(memory_id)
    result = {}
    for memory_id, session_id in sessions.items():
        # Deleted between the two reads (a client, expiry or dedup): it has no neighbours.
        ids = by_session.get(session_id, [])
        if memory_id not in ids:
            continue
        at = ids.index(memory_id)
        result[memory_id] = (
            ids[max(0, at - NEIGHBOUR_SPAN) : at] + ids[at + 1 : at + 1 + NEIGHBOUR_SPAN]
        )
    return result


# The neighbour pass: the NEIGHBOUR_SPAN turns before and after each of the NEIGHBOUR_SEEDS
# strongest matches in its session take NEIGHBOUR_WEIGHT of its relevance (answers sit next
# to questions, context next to claims). Tuned on LoCoMo: see docs/BENCHMARKS.md.
NEIGHBOUR_WEIGHT = 0.5
NEIGHBOUR_SEEDS = 60
NEIGHBOUR_SPAN = 2


def _relevance(
    agent: Agent,
    query: str,
    vector_hits: list[tuple[int, float]],
    keyword_hits: list[tuple[int, float]],
    *,
    vector_weight: float,
    fusion: Fusion,
) -> dict[int, dict[str, Any]]:
    """Fuse the two lists, add the entity pass and the neighbour pass: for each memory of the
    pool, its component scores and its relevance in 0..1."""
    normalise = _rrf if fusion == Fusion.RRF else _minmax
    vector_norm, keyword_norm = normalise(vector_hits), normalise(keyword_hits)
    vector_raw, keyword_raw = dict(vector_hits), dict(keyword_hits)
    pool = set(vector_norm) | set(keyword_norm)
    entity = _entity_matches(agent, pool, query_names(query))
    parts: dict[int, dict[str, Any]] = {}
    for memory_id in pool:
        fused = vector_weight * vector_norm.get(memory_id, 0.0) + (
            1 - vector_weight
        ) * keyword_norm.get(memory_id, 0.0)
        parts[memory_id] = {
            "vector": vector_raw.get(memory_id),
            "vector_norm": vector_norm.get(memory_id),
            "keyword": keyword_raw.get(memory_id),
            "keyword_norm": keyword_norm.get(memory_id),
            "entity": entity.get(memory_id, 0.0),
            "fused": fused,
            "neighbour": 0.0,
        }
    if NEIGHBOUR_WEIGHT > 0:
        seeds = sorted(pool, key=lambda i: -parts[i]["fused"])[:NEIGHBOUR_SEEDS]
        for seed, neighbours in _neighbours(seeds).items():
            for neighbour in neighbours:
                entry = parts.setdefault(
                    neighbour,
                    {
                        "vector": None,
                        "vector_norm": None,
                        "keyword": None,
                        "keyword_norm": None,
                        "entity": 0.0,
                        "fused": 0.0,
                        "neighbour": 0.0,
                    },
                )
                entry["neighbour"] = max(entry["neighbour"], parts[seed]["fused"])
    for entry in parts.values():
        entry["relevance"] = min(
            1.0,
            entry["fused"]
            + ENTITY_WEIGHT * entry["entity"]
            + NEIGHBOUR_WEIGHT * entry["neighbour"],
        )
    return parts


def _rerank(
    reranker: CrossEncoder,
    query: str,
    scored: list[ScoredRow],
    parts: dict[int, dict[str, Any]],
    weights: Weights,
) -> list[ScoredRow]:
    """The cross-encoder's score becomes the relevance of the best candidates."""
    contents = dict(
        Memory.objects.filter(pk__in=[row[1] for row in scored]).values_list("pk", "content")
    )
    # A memory deleted since it was scored drops out here.
    scored = [row for row in scored if row[1] in contents]
    relevance = reranker.score(query, [contents[row[1]] for row in scored])
    rescored = []
    for (_, memory_id, importance, recency), rerank in zip(scored, relevance, strict=True):
        parts[memory_id]["rerank"] = float(rerank)
        parts[memory_id]["relevance"] = float(rerank)
        score = (
            weights.relevance * float(rerank)
            + weights.importance * importance
            + weights.recency * recency
        ) * parts[memory_id]["flag_factor"]
        rescored.append((score, memory_id, importance, recency))
    rescored.sort(key=lambda row: (-row[0], -row[1]))
    return rescored


def load_winners(*, scored: list[ScoredRow], top_k: int) -> list[tuple[ScoredRow, Memory]]:
    """The first ``top_k`` of ``scored`` (score, id, importance, recency; best first) that
    still exist, each with its whole memory. Scoring read a few columns earlier: a memory
    deleted since (by a client, expiry or dedup) is skipped and the next ones take its
    place, one more query per round of losses (none when nothing vanished)."""
    memories = Memory.objects.select_related("agent", "session").prefetch_related("tag_rows")
    winners: list[tuple[ScoredRow, Memory]] = []
    start = 0
    while len(winners) < top_k and start < len(scored):
        batch = scored[start : start + top_k - len(winners)]
        start += len(batch)
        by_id = {m.pk: m for m in memories.filter(pk__in=[row[1] for row in batch])}
        winners += [(row, by_id[row[1]]) for row in batch if row[1] in by_id]
    return winners


def recall(
    *,
    agent: Agent,
    request: RecallRequest,
    record_access: bool = False,
    embedder: Embedder | None = None,
) -> RecallResult:
    """Rank the agent's memories for ``request.query``; never changes importance.

    Only the agent's own recall is a use of its memories: with ``record_access`` each
    returned memory gets an access (count, time, decay restart, spaced repetition) and is
    returned as that access left it, and a recall within a session is that session's
    activity. Without it (the default, so that a forgotten caller cannot write) the recall
    is a pure read: an operator's search changes nothing."""
    routing, fusion = _validate(agent, request)
    now = timezone.now()
    query_class = classify_query(request.query)
    vector_weight = {
        Routing.AUTO: VECTOR_WEIGHT[query_class],
        Routing.HYBRID: 0.5,
        Routing.VECTOR: 1.0,
        Routing.KEYWORD: 0.0,
    }[routing]
    pool_size = max(request.top_k * 5, POOL_MIN)
    candidates = candidate_memories(agent, request.filters, now)
    filtered = request.filters.any

    vector_hits: list[tuple[int, float]] = []
    keyword_hits: list[tuple[int, float]] = []
    if vector_weight > 0 and agent.embedding_model:
        embedder = embedder or get_embedder()
        if embedder.model_id == agent.embedding_model:
            query_vector = embedder.embed_one(request.query)
            vector_hits = vector_search(
                agent, candidates, query_vector, limit=pool_size, filtered=filtered, now=now
            )
    if vector_weight < 1:
        keyword_hits = keyword_search(
            agent, candidates, request.query, limit=pool_size, filtered=filtered
        )
    parts = _relevance(
        agent,
        request.query,
        vector_hits,
        keyword_hits,
        vector_weight=vector_weight,
        fusion=fusion,
    )

    # Score the pool from a few columns; load whole memories only for the winners.
    rows = candidates.filter(pk__in=list(parts)).values_list(
        "pk", "importance", "created_at", "flagged_at"
    )
    w = request.weights
    scored = []
    for memory_id, importance, created_at, flagged_at in rows:
        recency = _recency(created_at, now)
        relevance = parts[memory_id]["relevance"]
        parts[memory_id]["flag_factor"] = FLAGGED_FACTOR if flagged_at else 1.0
        score = w.relevance * relevance + w.importance * importance + w.recency * recency
        score *= parts[memory_id]["flag_factor"]
        scored.append((score, memory_id, importance, recency))
    scored.sort(key=lambda row: (-row[0], -row[1]))
    reranker = get_reranker() if request.rerank else None
    if reranker is not None:
        scored = _rerank(reranker, request.query, scored[:RERANK_CANDIDATES], parts, w)
    hits = []
    for (score, memory_id, importance, recency), memory in load_winners(
        scored=scored, top_k=request.top_k
    ):
        explanation = {
            "query_class": query_class.value,
            "vector_weight": vector_weight,
            **parts[memory_id],
            "importance": importance,
            "recency": recency,
            "weights": {
                "relevance": w.relevance,
                "importance": w.importance,
                "recency": w.recency,
            },
            "score": score,
        }
        hits.append(RecallHit(memory=memory, score=score, explanation=explanation))
    if not record_access:
        return RecallResult(hits=hits, query_class=query_class, routing=routing)
    # The hits show their access as this recall left it (count, time, an expiry moved by
    # spaced repetition), from the one read record_memory_access makes.
    accessed = record_memory_access([hit.memory.pk for hit in hits], now=now)
    for hit in hits:
        for name, value in accessed.get(hit.memory.pk, {}).items():
            setattr(hit.memory, name, value)
    if request.filters.session_id is not None:
        record_session_activity(session_ids=[request.filters.session_id], now=now)
    return RecallResult(hits=hits, query_class=query_class, routing=routing)
