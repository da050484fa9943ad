"""Near duplicates by their vectors: which pairs of an agent's memories the AutoPilot dedup
would merge (near_duplicate_pairs), found by comparing unit vectors block by block within
each merge scope (similar_pairs) and matching each memory at most once (greedy_matching).
Nothing here writes; memory.services.autopilot does the merging, and which memories may
merge at all (one session, one user) is memory.maintenance.merge_candidates.
"""

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from django.db.models import Q, QuerySet

from memory.maintenance.merge_candidates import NO_SESSION, merge_scope, states_other_details
from memory.models import MaintenanceJob, MaintenanceRun, Memory, RunStatus
from tenancy.models import Agent

AUTOPILOT_DEDUP_SIMILARITY = 0.93
# The AutoPilot dedup compares at most this many recently stored or changed memories of an
# agent (against all of its memories) per pass.
AUTOPILOT_DEDUP_RECENT = 5_000
# Rows of the agent's vectors held at once while comparing: about 3 MB at 384 dimensions.
AUTOPILOT_DEDUP_BLOCK = 2_000


class VectorRows(NamedTuple):
    """Memories as the near-duplicate search sees them: ids, unit vectors (one row each)
    and a code for the merge scope of each (merge_scope, numbered by ScopeCodes); without
    scopes, every row shares one."""

    ids: np.ndarray
    matrix: np.ndarray
    scopes: np.ndarray | None = None


class ScopeCodes(dict[tuple[int, str | None], int]):
    """Merge scopes numbered in the order met, so that numpy compares them as integers.
    One instance numbers the queries and every block of one search alike."""

    def code(self, session_id: int | None, user_ref: str | None) -> int:
        return self.setdefault(merge_scope(session_id, user_ref), len(self))


def _scopes(rows: VectorRows) -> np.ndarray:
    if rows.scopes is not None:
        return rows.scopes
    return np.full(len(rows.ids), NO_SESSION, dtype=np.int64)


def similar_pairs(
    queries: VectorRows,
    blocks: Iterator[VectorRows],
    *,
    threshold: float,
    per_memory: int = 5,
) -> list[tuple[float, int, int]]:
    """Pairs (similarity, id, id) of unit vectors with cosine >= ``threshold`` and the same
    merge scope, between the ``queries`` and every block of the corpus, best first, each
    pair once (smaller id first). Memory stays bounded by one block times the queries: only
    the ``per_memory`` best neighbours of each query are kept (a greedy merge uses at most
    one of them anyway, and a crowd of copies is merged over successive passes). Rows of
    other scopes are masked before that choice, so that copies in other sessions never
    crowd out a memory's duplicate in its own."""
    query_ids, query_matrix = queries.ids, queries.matrix
    if len(query_ids) == 0:
        return []
    query_scopes = _scopes(queries)
    best_scores = np.full((len(query_ids), per_memory), -np.inf, dtype=np.float32)
    best_ids = np.full((len(query_ids), per_memory), -1, dtype=np.int64)
    for block in blocks:
        block_ids, block_matrix = block.ids, block.matrix
        if len(block_ids) == 0 or block_matrix.shape[1] != query_matrix.shape[1]:
            continue
        scores = query_matrix @ block_matrix.T
        scores[query_ids[:, None] == block_ids[None, :]] = -np.inf
        scores[query_scopes[:, None] != _scopes(block)[None, :]] = -np.inf
        rows = np.nonzero((scores >= threshold).any(axis=1))[0]
        if len(rows) == 0:
            continue
        merged_scores = np.concatenate([best_scores[rows], scores[rows]], axis=1)
        merged_ids = np.concatenate(
            [best_ids[rows], np.broadcast_to(block_ids, (len(rows), len(block_ids)))], axis=1
        )
        top = np.argpartition(-merged_scores, per_memory - 1, axis=1)[:, :per_memory]
        best_scores[rows] = np.take_along_axis(merged_scores, top, axis=1)
        best_ids[rows] = np.take_along_axis(merged_ids, top, axis=1)
    pairs: dict[tuple[int, int], float] = {}
    for row, memory_id in enumerate(query_ids.tolist()):
        for score, other in zip(best_scores[row].tolist(), best_ids[row].tolist(), strict=True):
            if other < 0 or score < threshold:
                continue
            key = (min(memory_id, other), max(memory_id, other))
            pairs[key] = max(score, pairs.get(key, -1.0))
    return sorted(((s, a, b) for (a, b), s in pairs.items()), key=lambda p: (-p[0], p[1], p[2]))


def greedy_matching(pairs: Sequence[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """Highest similarity first, each memory in at most one pair."""
    used: set[int] = set()
    chosen = []
    for score, a, b in pairs:
        if a in used or b in used:
            continue
        used.update((a, b))
        chosen.append((score, a, b))
    return chosen


# What _unit_rows reads of a memory.
_VECTOR_COLUMNS = ("pk", "session_id", "user_ref", "embedding")


def _unit_rows(
    rows: list[tuple[int, int | None, str | None, Any]], codes: ScopeCodes
) -> VectorRows:
    """(id, session id, user, vector) rows as VectorRows of unit vectors."""
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    scopes = np.array([codes.code(r[1], r[2]) for r in rows], dtype=np.int64)
    if not rows:
        return VectorRows(ids, np.zeros((0, 0), dtype=np.float32), scopes)
    matrix = np.vstack([r[3] for r in rows]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return VectorRows(ids, matrix / np.where(norms == 0, 1, norms), scopes)


def _vector_blocks(memories: QuerySet[Memory], codes: ScopeCodes) -> Iterator[VectorRows]:
    """The vectors of ``memories`` by id ranges, AUTOPILOT_DEDUP_BLOCK rows at a time."""
    after = 0
    while True:
        rows = list(
            memories.filter(pk__gt=after)
            .order_by("pk")
            .values_list(*_VECTOR_COLUMNS)[:AUTOPILOT_DEDUP_BLOCK]
        )
        if not rows:
            return
        after = rows[-1][0]
        yield _unit_rows(rows, codes)


def _last_dedup_start(agent: Agent) -> datetime | None:
    """When the last completed AutoPilot dedup that covered this agent started."""
    return (
        MaintenanceRun.objects.filter(
            job=MaintenanceJob.DEDUP, status=RunStatus.SUCCEEDED, dry_run=False
        )
        .filter(Q(agent__isnull=True) | Q(agent=agent))
        .filter(Q(workspace__isnull=True) | Q(workspace_id=agent.workspace_id))
        .order_by("-started_at")
        .values_list("started_at", flat=True)
        .first()
    )


def near_duplicate_pairs(
    agent: Agent, *, now: datetime
) -> tuple[list[tuple[float, int, int]], int]:
    """The pairs the AutoPilot dedup would merge: (cosine, id, id) of the same merge scope
    (one session, or none, and one user, or none), each memory in at most one pair, most
    similar first; and how many similar pairs stay apart because they state other details
    (states_other_details).

    Cost is bounded by comparing only what is new: the memories stored or changed since the
    start of the last successful dedup run covering this agent (at most the newest
    AUTOPILOT_DEDUP_RECENT of them; all of the newest when there was no run) against every
    live memory of the agent, one block of vectors at a time. Older pairs were compared by
    earlier passes. Only vectors of the agent's current model are comparable."""
    memories = Memory.objects.filter(
        agent=agent, embedding__isnull=False, embedding_model=agent.embedding_model
    ).live(now)
    recent = memories
    if (since := _last_dedup_start(agent)) is not None:
        recent = recent.filter(updated_at__gte=since)
    query_rows = list(
        recent.order_by("-updated_at", "-pk").values_list(*_VECTOR_COLUMNS)[:AUTOPILOT_DEDUP_RECENT]
    )
    if not query_rows:
        return [], 0
    codes = ScopeCodes()
    pairs = similar_pairs(
        _unit_rows(query_rows, codes),
        _vector_blocks(memories, codes),
        threshold=AUTOPILOT_DEDUP_SIMILARITY,
    )
    # Pairs stating other details are dropped before matching, so that a memory whose
    # closest match must stay apart still meets its true duplicate in this pass.
    ids = {pk for _, first, second in pairs for pk in (first, second)}
    loaded = {m.pk: m for m in Memory.objects.filter(pk__in=ids).prefetch_related("tag_rows")}
    alike = [
        (score, first, second)
        for score, first, second in pairs
        if first in loaded
        and second in loaded
        and not states_other_details(loaded[first], loaded[second])
    ]
    return greedy_matching(alike), len(pairs) - len(alike)
