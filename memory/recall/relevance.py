"""Relevance: the vector and keyword lists fused into one score in 0..1 per memory, raised by
naming the query's people (the entity pass) and by sitting next to a strong match in its
conversation (the neighbour pass)."""

from typing import Any

from django.db.models import Count

from memory.conversations import neighbours
from memory.entities import Entity, query_names
from memory.models import MemoryTag
from memory.recall.routing import Fusion
from tenancy.models import Agent

RRF_K = 60
# How much naming the same people as the query adds to a memory's relevance.
ENTITY_WEIGHT = 0.05
# The neighbour pass: the NEIGHBOUR_SPAN turns before and after each of the NEIGHBOUR_SEEDS
# strongest matches in its conversation (memory.conversations) take NEIGHBOUR_WEIGHT of its
# relevance (answers sit next to questions, context next to claims). Tuned on LoCoMo: see
# docs/BENCHMARKS.md.
NEIGHBOUR_WEIGHT = 0.5
NEIGHBOUR_SEEDS = 60
NEIGHBOUR_SPAN = 2


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
            agent=agent, memory_id__in=pool, name__in=[Entity("name", n).tag for n in names]
        )
        .values("memory_id")
        .annotate(n=Count("id"))
    )
    return {row["memory_id"]: row["n"] / len(names) for row in rows}


def _components(
    *,
    vector: float | None = None,
    vector_norm: float | None = None,
    keyword: float | None = None,
    keyword_norm: float | None = None,
    entity: float = 0.0,
    fused: float = 0.0,
) -> dict[str, Any]:
    """A pooled memory's component scores, as its explanation shows them; the defaults are
    those of a memory only the neighbour pass brought in."""
    return {
        "vector": vector,
        "vector_norm": vector_norm,
        "keyword": keyword,
        "keyword_norm": keyword_norm,
        "entity": entity,
        "fused": fused,
        "neighbour": 0.0,
    }


def relevance(
    agent: Agent,
    query: str,
    vector_hits: list[tuple[int, float]],
    keyword_hits: list[tuple[int, float]],
    *,
    vector_weight: float,
    fusion: Fusion,
) -> dict[int, dict[str, Any]]:
    """Fuse the two lists, add the entity pass and the neighbour pass: for each memory of the
    pool, its component scores and its relevance (the fused score in 0..1 plus what the two
    passes add)."""
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
        parts[memory_id] = _components(
            vector=vector_raw.get(memory_id),
            vector_norm=vector_norm.get(memory_id),
            keyword=keyword_raw.get(memory_id),
            keyword_norm=keyword_norm.get(memory_id),
            entity=entity.get(memory_id, 0.0),
            fused=fused,
        )
    if NEIGHBOUR_WEIGHT > 0:
        seeds = sorted(pool, key=lambda i: -parts[i]["fused"])[:NEIGHBOUR_SEEDS]
        for seed, around in neighbours(seeds, span=NEIGHBOUR_SPAN).items():
            for neighbour in around:
                entry = parts.setdefault(neighbour, _components())
                entry["neighbour"] = max(entry["neighbour"], parts[seed]["fused"])
    for entry in parts.values():
        # Not capped at 1: a cap makes every memory above it tie (see scoring.Weights.score).
        entry["relevance"] = (
            entry["fused"] + ENTITY_WEIGHT * entry["entity"] + NEIGHBOUR_WEIGHT * entry["neighbour"]
        )
    return parts
