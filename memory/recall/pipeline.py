"""The recall pipeline: validate the request, search both indexes, fuse and score the pool,
order its best with the learned ranker (memory.recall.ranker), rerank the best candidates
when a cross-encoder is configured, load the winners and, for an
agent's own recall, record their use."""

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db.models.expressions import RawSQL
from django.utils import timezone

from dewee.errors import InvalidInput
from language.entities import query_names
from memory.embeddings.engine import Embedder, get_embedder
from memory.models import Memory, MemoryQuerySet
from memory.recall.filters import RecallFilters, candidate_memories, clean_filters
from memory.recall.keyword_search import keyword_search, keyword_terms
from memory.recall.ranker import RANKER_CANDIDATES, Candidate, Ranker, get_ranker, ranker_features
from memory.recall.relevance import named_entities, relevance, speaking, without_names
from memory.recall.rerank import RERANK_CANDIDATES, CrossEncoder, get_reranker
from memory.recall.routing import Fusion, QueryClass, Routing, classify_query, vector_weight
from memory.recall.scoring import ScoredRow, Weights, best_first, flag_factor, recency_of_age
from memory.recall.vector_search import vector_search
from memory.services import record_access as record_memory_access
from memory.services import record_session_activity
from memory.sql import among, epoch_seconds
from tenancy.models import Agent

TOP_K_MAX = 100
POOL_MIN = 100


@dataclass(frozen=True)
class RecallRequest:
    query: str
    top_k: int = 10
    routing: str = Routing.AUTO
    fusion: str = Fusion.MINMAX
    weights: Weights = field(default_factory=Weights)
    filters: RecallFilters = field(default_factory=RecallFilters)
    # Give each hit its explanation (the signals behind its score); without it none is
    # assembled, and relevance keeps only what the score needs.
    explain: bool = False
    rerank: bool = True


@dataclass
class RecallHit:
    memory: Memory
    score: float
    # Only when the request asked for it (RecallRequest.explain); None otherwise.
    explanation: dict[str, Any] | None


@dataclass
class RecallResult:
    hits: list[RecallHit]
    query_class: QueryClass
    routing: Routing


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
    clean_filters(agent, request.filters)
    return routing, fusion


def _rerank(
    reranker: CrossEncoder,
    query: str,
    scored: list[ScoredRow],
    parts: dict[int, dict[str, Any]],
    weights: Weights,
) -> list[ScoredRow]:
    """The cross-encoder's score becomes the relevance of the best candidates (and their
    ``rerank`` signal)."""
    contents = dict(
        Memory.objects.filter(pk__in=[row[1] for row in scored]).values_list("pk", "content")
    )
    # A memory deleted since it was scored drops out here.
    scored = [row for row in scored if row[1] in contents]
    reranked = reranker.score(query, [contents[row[1]] for row in scored])
    rescored = []
    for (_, memory_id, importance, memory_recency), rerank in zip(scored, reranked, strict=True):
        parts[memory_id]["rerank"] = float(rerank)
        parts[memory_id]["relevance"] = float(rerank)
        score = weights.score(
            relevance=float(rerank),
            importance=importance,
            recency=memory_recency,
            flag_factor=parts[memory_id]["flag_factor"],
        )
        rescored.append((score, memory_id, importance, memory_recency))
    return best_first(rescored, parts)


def _second_stage(
    ranker: Ranker | None,
    query: str,
    scored: list[ScoredRow],
    parts: dict[int, dict[str, Any]],
    placed: dict[int, Candidate],
    vector_hits: list[tuple[int, float]],
    keyword_hits: list[tuple[int, float]],
    weights: Weights,
    *,
    explain: bool,
) -> list[ScoredRow]:
    """The learned ranker's order of the first stage's best RANKER_CANDIDATES (the rest
    follow in their order): its probability becomes each one's relevance. With ``explain``
    each of them shows its features, and with a ranker each feature's part of its logit."""
    top, rest = scored[:RANKER_CANDIDATES], scored[RANKER_CANDIDATES:]
    contents = dict(
        Memory.objects.filter(pk__in=[row[1] for row in top]).values_list("pk", "content")
    )
    features = ranker_features(
        parts,
        [replace(placed[row[1]], content=contents.get(row[1], "")) for row in top],
        {memory_id: rank for rank, (memory_id, _) in enumerate(vector_hits)},
        {memory_id: rank for rank, (memory_id, _) in enumerate(keyword_hits)},
        keyword_terms(query),
    )
    if explain:
        for memory_id, values in features.items():
            parts[memory_id]["features"] = values
    if ranker is None:
        return scored
    rescored = []
    for _, memory_id, importance, memory_recency in top:
        probability = ranker.probability(features[memory_id])
        entry = parts[memory_id]
        entry["first_stage"] = entry["relevance"]
        entry["relevance"] = probability
        if explain:
            entry["ranker"] = {
                name: round(part, 4)
                for name, part in ranker.contributions(features[memory_id]).items()
            }
        score = weights.score(
            relevance=probability,
            importance=importance,
            recency=memory_recency,
            flag_factor=entry["flag_factor"],
        )
        rescored.append((score, memory_id, importance, memory_recency))
    return best_first(rescored, parts) + rest


def load_winners(*, scored: list[ScoredRow], top_k: int) -> list[tuple[ScoredRow, Memory]]:
    """The first ``top_k`` of ``scored`` (score, id, importance, recency; best first) that
    still exist, each with its whole memory. Scoring read a few columns earlier: a memory
    deleted since (by a client, expiry or dedup) is skipped and the next ones take its
    place, one more query per round of losses (none when nothing vanished)."""
    memories = (
        Memory.objects.select_related("agent", "session")
        .prefetch_related("tag_rows")
        .defer("embedding")  # a recall shows no vectors
    )
    winners: list[tuple[ScoredRow, Memory]] = []
    start = 0
    while len(winners) < top_k and start < len(scored):
        batch = scored[start : start + top_k - len(winners)]
        start += len(batch)
        by_id = {m.pk: m for m in memories.filter(pk__in=[row[1] for row in batch])}
        winners += [(row, by_id[row[1]]) for row in batch if row[1] in by_id]
    return winners


@dataclass
class _FirstStage:
    """What the two searches found and the pool they make, each memory's signals in
    ``parts`` (memory.recall.relevance)."""

    candidates: MemoryQuerySet  # the agent's memories that pass the filters
    vector_hits: list[tuple[int, float]]
    keyword_hits: list[tuple[int, float]]
    parts: dict[int, dict[str, Any]]


def _first_stage(
    agent: Agent,
    request: RecallRequest,
    *,
    weight: float,
    fusion: Fusion,
    now: datetime,
    embedder: Embedder | None,
) -> _FirstStage:
    """Search both indexes for a pool of about five times top_k, then fuse them and add the
    neighbour and entity passes."""
    pool_size = max(request.top_k * 5, POOL_MIN)
    candidates = candidate_memories(agent, request.filters, now)
    filtered = request.filters.any
    audience = request.filters.audience
    # The query's vector leaves out the people it names who speak in the agent's memories:
    # the entity pass ranks their own words higher, and the name weighs on the vector more
    # than what is asked about them. The keyword search keeps the names (measured on
    # LoCoMo: docs/BENCHMARKS.md, issue 11 recall part 2).
    names = query_names(request.query)
    named = named_entities(agent, names) if names else {}
    meaning = (
        without_names(request.query, speaking(agent, named, audience)) if named else request.query
    )
    vector_hits: list[tuple[int, float]] = []
    keyword_hits: list[tuple[int, float]] = []
    if weight > 0 and agent.embedding_model:
        embedder = embedder or get_embedder()
        if embedder.model_id == agent.embedding_model:
            query_vector = embedder.embed_one(meaning)
            vector_hits = vector_search(
                agent,
                candidates,
                query_vector,
                limit=pool_size,
                filtered=filtered,
                now=now,
                audience=audience,
            )
    if weight < 1:
        keyword_hits = keyword_search(
            agent,
            candidates,
            request.query,
            limit=pool_size,
            filtered=filtered or not audience.all_users,
        )
    parts = relevance(
        agent,
        request.query,
        vector_hits,
        keyword_hits,
        vector_weight=weight,
        fusion=fusion,
        named=named,
        explain=request.explain,
    )
    return _FirstStage(candidates, vector_hits, keyword_hits, parts)


def _score_pool(
    first: _FirstStage, weights: Weights, now: datetime
) -> tuple[list[ScoredRow], dict[int, Candidate]]:
    """Each pooled memory's score from a few columns (whole memories are loaded only for the
    winners), best first, and where each one sits (for the second stage)."""
    # The creation time as seconds: converting hundreds of datetimes through the ORM cost
    # more than the query.
    rows = (
        first.candidates.filter(among(list(first.parts)))
        .annotate(created=RawSQL(epoch_seconds('"memory_memory"."created_at"'), ()))
        .values_list("pk", "importance", "created", "flagged_at", "session_id")
    )
    parts = first.parts
    scored = []
    placed: dict[int, Candidate] = {}
    for memory_id, importance, created, flagged_at, session_id in rows:
        placed[memory_id] = Candidate(memory_id, session_id, float(created))
        memory_recency = recency_of_age(now.timestamp() - created)
        parts[memory_id]["flag_factor"] = flag_factor(flagged_at)
        score = weights.score(
            relevance=parts[memory_id]["relevance"],
            importance=importance,
            recency=memory_recency,
            flag_factor=parts[memory_id]["flag_factor"],
        )
        scored.append((score, memory_id, importance, memory_recency))
    return best_first(scored, parts), placed


def _record_use(hits: list[RecallHit], request: RecallRequest, now: datetime) -> None:
    """An agent's own recall: each hit gets an access and shows it as this recall left it
    (count, time, an expiry moved by spaced repetition), from the one read
    record_memory_access makes; a recall within a session is that session's activity."""
    accessed = record_memory_access([hit.memory.pk for hit in hits], now=now)
    for hit in hits:
        for name, value in accessed.get(hit.memory.pk, {}).items():
            setattr(hit.memory, name, value)
    if request.filters.session_id is not None:
        record_session_activity(session_ids=[request.filters.session_id], now=now)


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
    weight = vector_weight(routing, query_class)
    first = _first_stage(agent, request, weight=weight, fusion=fusion, now=now, embedder=embedder)
    parts, w = first.parts, request.weights
    scored, placed = _score_pool(first, w, now)
    ranker = get_ranker() if request.rerank else None
    if ranker is not None or request.explain:
        scored = _second_stage(
            ranker,
            request.query,
            scored,
            parts,
            placed,
            first.vector_hits,
            first.keyword_hits,
            w,
            explain=request.explain,
        )
    reranker = get_reranker() if request.rerank else None
    if reranker is not None:
        scored = _rerank(reranker, request.query, scored[:RERANK_CANDIDATES], parts, w)
    hits = []
    for (score, memory_id, importance, memory_recency), memory in load_winners(
        scored=scored, top_k=request.top_k
    ):
        explanation = None
        if request.explain:
            explanation = {
                "query_class": query_class.value,
                "vector_weight": weight,
                **parts[memory_id],
                "importance": importance,
                "recency": memory_recency,
                "weights": {
                    "relevance": w.relevance,
                    "importance": w.importance,
                    "recency": w.recency,
                },
                "score": score,
            }
        hits.append(RecallHit(memory=memory, score=score, explanation=explanation))
    if record_access:
        _record_use(hits, request, now)
    return RecallResult(hits=hits, query_class=query_class, routing=routing)
