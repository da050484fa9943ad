"""Relevance: the vector and keyword lists fused into one score in 0..1 per memory, raised by
naming or being spoken by the people and things the query names (the entity pass) and by
sitting next to a strong match in its conversation (the neighbour pass)."""

from collections import defaultdict
from typing import Any

from django.db import connection

from language.entities import entity_key, name_spans, query_names
from memory.graph.entities import answers_to, named_entities
from memory.models import EntityMention, Memory, MemoryEdge
from memory.recall.filters import Audience
from memory.recall.routing import Fusion
from memory.sessions.conversations import neighbours
from memory.sql import any_of
from tenancy.models import Agent

RRF_K = 60
# The entity pass. A memory gets ENTITY_WEIGHT times the share of the query's names it
# mentions (the graph's entity mentions), and SPEAKER_WEIGHT when one of them said it: in
# LoCoMo questions that name one person, 96% of the answers are that person's own turns.
ENTITY_WEIGHT = 0.05
SPEAKER_WEIGHT = 0.35
# The neighbour pass: the NEIGHBOUR_SPAN turns before and after each of the NEIGHBOUR_SEEDS
# strongest matches in its conversation (memory.sessions.conversations) take NEIGHBOUR_WEIGHT of its
# relevance (answers sit next to questions, context next to claims). Tuned on LoCoMo: see
# docs/BENCHMARKS.md.
NEIGHBOUR_WEIGHT = 0.5
NEIGHBOUR_SEEDS = 60
NEIGHBOUR_SPAN = 2
# A memory a newer one supersedes (a newer wording of the same thing by the same speaker,
# memory.services.graph) keeps this share of its relevance: the newer ranks first, and the
# older is still found when nothing else matches.
SUPERSEDED_FACTOR = 0.85


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


def speaking(agent: Agent, named: dict[int, frozenset[str]], audience: Audience) -> set[str]:
    """Of the query's names (``named``: entity -> names, from ``named_entities``), the ones
    that speak in the memories ``audience`` may read: one query for them all (the entities
    are the agent's own, read by named_entities). Another user's conversations do not
    change how this user's query is read."""
    if not named:
        return set()
    speakers = (
        EntityMention.objects.filter(entity_id__in=list(named), as_speaker=True)
        .filter(audience.q(prefix="memory__"))
        .values_list("entity_id", flat=True)
        .distinct()
    )
    return {key for entity_id in speakers for key in named[entity_id]}


def without_names(query: str, names: set[str]) -> str:
    """``query`` with the words of ``names`` (and their possessive "'s") taken out; the
    query itself when nothing else would be left."""
    kept, last = [], 0
    for word, start, end in name_spans(query):
        if entity_key(word) not in names:
            continue
        kept.append(query[last:start])
        last = end + (2 if query[end : end + 2] in ("'s", "’s") else 0)
    kept.append(query[last:])
    text = " ".join("".join(kept).split())
    return text if any(char.isalnum() for char in text) else query


def _speaks(speaker: str, keys: set[str]) -> bool:
    """Whether a memory's speaker is one of the people the query names (by whole name, or
    first or last word)."""
    spoken = entity_key(speaker)
    return bool(spoken) and any(answers_to(spoken, k) for k in keys)


def _entity_matches(
    agent: Agent,
    pool: set[int],
    names: list[str],
    named: dict[int, frozenset[str]] | None = None,
) -> tuple[dict[int, float], set[int]]:
    """For the pooled memories: the share of the query's names each mentions (spoken by one
    of them counts as mentioning it), and the ones a named person said. The speaker is the
    memory's own column, so it counts before the graph job has run."""
    if not names or not pool:
        return {}, set()
    keys = {entity_key(name) for name in names}
    ids = sorted(pool)
    among, params = any_of("id", ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, speaker FROM {Memory._meta.db_table} WHERE {among} "
            "AND speaker IS NOT NULL AND speaker <> ''",
            params,
        )
        spoken = {memory_id for memory_id, speaker in cursor.fetchall() if _speaks(speaker, keys)}
    named = named_entities(agent, names) if named is None else named
    mentioned: dict[int, set[str]] = defaultdict(set)
    if named:
        memories, memory_params = any_of("memory_id", ids)
        entities, entity_params = any_of("entity_id", list(named))
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT memory_id, entity_id FROM {EntityMention._meta.db_table} "
                f"WHERE agent_id = %s AND {memories} AND {entities}",
                [agent.pk, *memory_params, *entity_params],
            )
            for memory_id, entity_id in cursor.fetchall():
                mentioned[memory_id] |= named[entity_id]
    share = {memory_id: len(found) / len(keys) for memory_id, found in mentioned.items()}
    for memory_id in spoken:
        share.setdefault(memory_id, 1 / len(keys))
    return share, spoken


def _superseded(agent: Agent, memory_ids: set[int]) -> set[int]:
    """Of ``memory_ids``, the ones a newer memory supersedes."""
    if not memory_ids:
        return set()
    targets, params = any_of("target_id", sorted(memory_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT target_id FROM {MemoryEdge._meta.db_table} "
            f"WHERE agent_id = %s AND type = 'supersedes' AND {targets}",
            [agent.pk, *params],
        )
        return {row[0] for row in cursor.fetchall()}


def _components(fused: float = 0.0) -> dict[str, Any]:
    """A pooled memory's component scores (what its relevance is made of); the defaults are
    those of a memory only the neighbour pass brought in."""
    return {"entity": 0.0, "speaker": 0.0, "fused": fused, "neighbour": 0.0, "superseded": False}


def relevance(
    agent: Agent,
    query: str,
    vector_hits: list[tuple[int, float]],
    keyword_hits: list[tuple[int, float]],
    *,
    vector_weight: float,
    fusion: Fusion,
    named: dict[int, frozenset[str]] | None = None,
    explain: bool = False,
) -> dict[int, dict[str, Any]]:
    """Fuse the two lists, add the neighbour pass and the entity pass: for each memory of the
    pool (and each neighbour the neighbour pass brought in), its component scores and its
    relevance (the fused score in 0..1 plus what the two passes add). ``named``: the
    query's entities, when the caller has read them already (named_entities). With
    ``explain``, each also holds what each search gave it (``vector``, ``vector_norm``,
    ``keyword``, ``keyword_norm``), which only an explanation shows."""
    normalise = _rrf if fusion == Fusion.RRF else _minmax
    vector_norm, keyword_norm = normalise(vector_hits), normalise(keyword_hits)
    pool = set(vector_norm) | set(keyword_norm)
    parts: dict[int, dict[str, Any]] = {}
    for memory_id in pool:
        fused = vector_weight * vector_norm.get(memory_id, 0.0) + (
            1 - vector_weight
        ) * keyword_norm.get(memory_id, 0.0)
        parts[memory_id] = _components(fused)
    if NEIGHBOUR_WEIGHT > 0:
        seeds = sorted(pool, key=lambda i: -parts[i]["fused"])[:NEIGHBOUR_SEEDS]
        for seed, around in neighbours(seeds, span=NEIGHBOUR_SPAN).items():
            for neighbour in around:
                entry = parts.setdefault(neighbour, _components())
                entry["neighbour"] = max(entry["neighbour"], parts[seed]["fused"])
    entity, spoken = _entity_matches(agent, set(parts), query_names(query), named)
    superseded = _superseded(agent, set(parts))
    for memory_id, entry in parts.items():
        entry["entity"] = entity.get(memory_id, 0.0)
        entry["speaker"] = 1.0 if memory_id in spoken else 0.0
        entry["superseded"] = memory_id in superseded
        # Not capped at 1: a cap makes every memory above it tie (see scoring.Weights.score).
        entry["relevance"] = (
            entry["fused"]
            + ENTITY_WEIGHT * entry["entity"]
            + SPEAKER_WEIGHT * entry["speaker"]
            + NEIGHBOUR_WEIGHT * entry["neighbour"]
        ) * (SUPERSEDED_FACTOR if entry["superseded"] else 1.0)
    # What each search gave each memory, normalised (None: it did not find it): the second
    # stage reads these; only an explanation shows the raw scores.
    for memory_id, entry in parts.items():
        entry["vector_norm"] = vector_norm.get(memory_id)
        entry["keyword_norm"] = keyword_norm.get(memory_id)
    if explain:
        vector_raw, keyword_raw = dict(vector_hits), dict(keyword_hits)
        for memory_id, entry in parts.items():
            entry["vector"] = vector_raw.get(memory_id)
            entry["keyword"] = keyword_raw.get(memory_id)
    return parts
