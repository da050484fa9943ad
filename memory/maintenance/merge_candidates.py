"""The algorithms behind merging memories: which memories are duplicates, which may merge
(one session, one user) and which near duplicates must stay apart, which low-importance
memories cluster together, and which of two memories is worth keeping, with the reads that
feed them. Near duplicates found by their vectors: memory.maintenance.near_duplicates. Nothing here
writes; memory.services.merging, .dedup and .autopilot do the merging."""

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations

from language.entities import ENTITY_PREFIX, is_entity_tag
from language.extraction import contradicts
from memory.models import Memory, MemoryTag
from tenancy.models import Agent

_WORD = re.compile(r"\w+")

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
