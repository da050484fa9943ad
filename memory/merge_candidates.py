"""The algorithms behind merging memories: which memories are duplicates, which are near
duplicates, which low-importance memories cluster together, and which of two memories is
worth keeping, with the reads that feed them. Nothing here writes;
memory.services.merging, .dedup and .autopilot do the merging."""

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np
from django.db.models import Q, QuerySet

from language.entities import ENTITY_PREFIX, is_entity_tag
from language.extraction import contradicts
from memory.models import MaintenanceJob, MaintenanceRun, Memory, MemoryTag, RunStatus
from tenancy.models import Agent

_WORD = re.compile(r"\w+")

AUTOPILOT_DEDUP_SIMILARITY = 0.93
# The AutoPilot dedup compares at most this many recently stored or changed memories of an
# agent (against all of its memories) per pass.
AUTOPILOT_DEDUP_RECENT = 5_000
# Rows of the agent's vectors held at once while comparing: about 3 MB at 384 dimensions.
AUTOPILOT_DEDUP_BLOCK = 2_000
AUTOPILOT_LOW_IMPORTANCE = 0.3
AUTOPILOT_CLUSTER_MIN, AUTOPILOT_CLUSTER_MAX = 3, 100
# Low-importance memories considered per agent and pass, oldest first.
AUTOPILOT_CONSOLIDATE_CANDIDATES = 20_000


def content_words(content: str) -> tuple[str, ...]:
    """The words of a text, lower-cased, in order: what makes two memories true duplicates
    ("The cat sat." and "the cat, sat" have the same words; "sat the cat" does not)."""
    return tuple(_WORD.findall(content.lower()))


def duplicate_key(content: str, tags: Iterable[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Memories with the same key are duplicates: same words in the same order and the same
    entity tags (user tags may differ; the merge keeps them all)."""
    return content_words(content), frozenset(t for t in tags if is_entity_tag(t))


# Merges stay within one conversation: a memory merges only with memories of its own
# session, and a memory without a session only with others without one. Merging turns of
# two sessions would take a turn out of its conversation, and out of what its summary cites.
# And within one user: a memory about one user (user_ref) merges only with memories about
# the same user, and a shared memory (no user) only with other shared ones. A merge of two
# users' memories would hand one user's words to the other (the survivor keeps the absorbed
# texts and is recalled for its own user), or turn a private memory into shared knowledge.
NO_SESSION = 0


def merge_user(user_ref: str | None) -> str | None:
    """The user a memory belongs to for merging: its user_ref, None for shared (a legacy
    empty user_ref is shared too)."""
    return user_ref or None


def merge_scope(session_id: int | None, user_ref: str | None = None) -> tuple[int, str | None]:
    """The scope within which a memory may merge (dedup, exact or AutoPilot): its session's
    id, or NO_SESSION (never a session's id) when it has none, and its user (merge_user)."""
    return (session_id if session_id is not None else NO_SESSION, merge_user(user_ref))


def same_scope(first: Memory, second: Memory) -> bool:
    return merge_scope(first.session_id, first.user_ref) == merge_scope(
        second.session_id, second.user_ref
    )


_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_CAPITALISED = re.compile(r"[A-Z][\w'-]*")
_SENTENCE_START = tuple(".!?:;\"'(")


def _names(text: str) -> set[str]:
    """Capitalised words inside a sentence (places, people, months, products): a rough net
    for named details the rule-based entity tags do not cover. A sentence's first word is
    left out, since any word is capitalised there."""
    names = set()
    for match in _CAPITALISED.finditer(text):
        before = text[: match.start()].rstrip()
        if before and not before.endswith(_SENTENCE_START):
            names.add(match.group().lower())
    return names


def states_other_details(first: Memory, second: Memory) -> bool:
    """Near-identical wording can still state different facts: "order 1003 was refunded" and
    "order 1007 was refunded", or "the offsite in May" and "in June", embed almost alike.
    The AutoPilot dedup, which merges on similarity alone, leaves a pair apart when its
    numbers, its capitalised words or its entity tags differ, or when the two contradict
    each other ("should be restarted" / "should not be restarted"; the same check as
    facts learned from text). (Tags come from ``tag_rows``; prefetch them.)"""

    # The numbers in the order said, each as often as said: "room 12 on floor 3" is not
    # "room 3 on floor 12" (as sets they were one, and such pairs were merged).
    def details(memory: Memory) -> tuple[list[str], set[str], set[str]]:
        entities = {row.name for row in memory.tag_rows.all() if is_entity_tag(row.name)}
        return _NUMBER.findall(memory.content), _names(memory.content), entities

    return details(first) != details(second) or contradicts(first.content, second.content)


# Retention: what a memory is worth keeping, in 0..1. Importance dominates (it already
# carries decay and feedback); use and recent use break near ties, so that of two copies
# the one people actually recall survives.
RETENTION_IMPORTANCE_WEIGHT = 0.6
RETENTION_ACCESS_WEIGHT = 0.2
RETENTION_RECENCY_WEIGHT = 0.2
# Ten accesses count as fully used.
RETENTION_ACCESS_SATURATION = 10
# Recency halves every 30 days since the last access (or creation, if never accessed).
RETENTION_RECENCY_HALF_LIFE_DAYS = 30.0


def retention_score(
    *,
    importance: float,
    access_count: int,
    last_accessed_at: datetime | None,
    created_at: datetime,
    now: datetime,
) -> float:
    """0.6 x importance + 0.2 x min(1, log1p(accesses) / log1p(10))
    + 0.2 x 0.5 ** (days since the last access, or creation, / 30)."""
    used = min(1.0, math.log1p(access_count) / math.log1p(RETENTION_ACCESS_SATURATION))
    since = last_accessed_at or created_at
    days = max(0.0, (now - since).total_seconds() / 86400)
    recency = 0.5 ** (days / RETENTION_RECENCY_HALF_LIFE_DAYS)
    return (
        RETENTION_IMPORTANCE_WEIGHT * importance
        + RETENTION_ACCESS_WEIGHT * used
        + RETENTION_RECENCY_WEIGHT * recency
    )


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


@dataclass(frozen=True)
class TagCluster:
    tags: tuple[str, str]
    memory_ids: list[int]
    # Whose memories these are (merge_user): a cluster never mixes users.
    user_ref: str | None = None


def tag_clusters(
    memories: Sequence[tuple[int, Sequence[str]]],
    *,
    min_size: int = 3,
    max_size: int = 100,
) -> list[TagCluster]:
    """Greedy clusters of memories sharing a pair of tags. ``memories``: (id, user tags) in
    the order members are taken (oldest first). The pair of tags carried by the most
    unassigned memories goes first; each memory joins at most one cluster of at most
    ``max_size``; pairs carried by fewer than ``min_size`` unassigned memories are left."""
    carriers: dict[tuple[str, str], list[int]] = {}
    order = {memory_id: index for index, (memory_id, _) in enumerate(memories)}
    tags_of = {}
    for memory_id, tags in memories:
        unique = sorted(set(tags))
        tags_of[memory_id] = unique
        for pair in combinations(unique, 2):
            carriers.setdefault(pair, []).append(memory_id)
    counts = Counter({pair: len(ids) for pair, ids in carriers.items()})
    # A lazy max-heap: counts only go down, so a popped entry whose count is stale is pushed
    # back with its current count.
    heap = [(-count, pair) for pair, count in counts.items() if count >= min_size]
    heapq.heapify(heap)
    assigned: set[int] = set()
    clusters = []
    while heap:
        negative, pair = heapq.heappop(heap)
        current = counts[pair]
        if current < min_size:
            continue
        if current != -negative:
            heapq.heappush(heap, (-current, pair))
            continue
        members = [m for m in carriers[pair] if m not in assigned][:max_size]
        members.sort(key=order.__getitem__)
        clusters.append(TagCluster(tags=pair, memory_ids=members))
        assigned.update(members)
        for memory_id in members:
            for other_pair in combinations(tags_of[memory_id], 2):
                counts[other_pair] -= 1
        if counts[pair] >= min_size:
            heapq.heappush(heap, (-counts[pair], pair))
    return clusters


# --- what the AutoPilot passes would merge ---


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


def low_importance_clusters(agent: Agent, *, now: datetime) -> list[TagCluster]:
    """The clusters the AutoPilot consolidation would merge (memory ids oldest first), each
    of one user's memories or of shared ones only (merge_user): the memories of each user
    are clustered apart."""
    low = (
        Memory.objects.filter(agent=agent, importance__lt=AUTOPILOT_LOW_IMPORTANCE)
        .live(now)
        .order_by("created_at", "pk")
    )
    rows = list(low.values_list("pk", "user_ref")[:AUTOPILOT_CONSOLIDATE_CANDIDATES])
    ids = [memory_id for memory_id, _ in rows]
    tags: dict[int, list[str]] = {memory_id: [] for memory_id in ids}
    user_rows = MemoryTag.objects.exclude(name__startswith=ENTITY_PREFIX)
    # In chunks: SQLite limits the parameters of one statement.
    for start in range(0, len(ids), 5000):
        chunk = user_rows.filter(memory_id__in=ids[start : start + 5000])
        for memory_id, name in chunk.values_list("memory_id", "name"):
            tags[memory_id].append(name)
    by_user: dict[str | None, list[int]] = {}
    for memory_id, user_ref in rows:
        by_user.setdefault(merge_user(user_ref), []).append(memory_id)
    clusters = []
    # Shared memories first, then users by name: a stable order between passes.
    for user_ref in sorted(by_user, key=lambda u: (u is not None, u or "")):
        for cluster in tag_clusters(
            [(memory_id, tags[memory_id]) for memory_id in by_user[user_ref]],
            min_size=AUTOPILOT_CLUSTER_MIN,
            max_size=AUTOPILOT_CLUSTER_MAX,
        ):
            clusters.append(replace(cluster, user_ref=user_ref))
    return clusters
