"""Vector search, the index recall reads for meaning: cosine similarity to the query.

PostgreSQL orders by pgvector's cosine distance (the planner walks the HNSW index for large
agents and scans exactly for small ones); SQLite keeps each agent's vectors as one float32
matrix per process, reloaded when the agent's ``memory_version`` moves.

``vector_search`` takes ``candidates``, a queryset of the agent's memories that pass the
request's filters, and returns ``(memory_id, score)`` pairs, best first.
"""

import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memory.models import Memory, MemoryQuerySet
from memory.recall.filters import ALL_USERS, Audience
from tenancy.models import Agent

HNSW_EF_SEARCH = 100


@dataclass
class _AgentMatrix:
    # (memory_version, created_at): a rolled-back agent's id can be reused by a new agent
    # with the same version number, but not with the same creation time.
    version: tuple[int, datetime]
    ids: np.ndarray
    matrix: np.ndarray
    # Expiry as POSIX seconds (inf: never), so expired memories are masked in the scan
    # without asking the database.
    expires: np.ndarray
    # Each row's user as a number (0: a shared memory; ``user_numbers`` maps users to
    # theirs), so the user boundary is a mask of integer compares, not of string ones.
    users: np.ndarray
    user_numbers: dict[str, int]
    loaded_at: datetime
    # The soonest expiry (inf: none expires): until then no row needs the expiry mask.
    soonest: float = np.inf

    def admitted(self, audience: Audience) -> np.ndarray | None:
        """Which rows ``audience`` may see; None for all of them."""
        if audience.all_users:
            return None
        admitted = self.users == 0
        number = self.user_numbers.get(audience.user) if audience.user else None
        if number is not None:
            admitted |= self.users == number
        return admitted


def _matrix(
    version: tuple[int, datetime],
    ids: list[int],
    matrix: np.ndarray,
    expires: list[float],
    users: list[str],
    loaded_at: datetime,
) -> _AgentMatrix:
    numbers: dict[str, int] = {"": 0}
    codes = [numbers.setdefault(user, len(numbers)) for user in users]
    deadlines = np.array(expires, dtype=np.float64)
    return _AgentMatrix(
        version=version,
        ids=np.array(ids, dtype=np.int64),
        matrix=matrix,
        expires=deadlines,
        users=np.array(codes, dtype=np.int32),
        user_numbers=numbers,
        loaded_at=loaded_at,
        soonest=float(deadlines.min()) if len(deadlines) else np.inf,
    )


_matrices: dict[int, _AgentMatrix] = {}
_matrices_lock = threading.Lock()
# Rows changed this long before a refresh are fetched again: covers a write that committed
# while the previous refresh was reading.
_REFRESH_OVERLAP = timedelta(seconds=5)


@dataclass
class _Rows:
    ids: list[int] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    expires: list[float] = field(default_factory=list)
    users: list[str] = field(default_factory=list)


def _vector_rows(memories: MemoryQuerySet) -> _Rows:
    found = _Rows()
    rows = memories.order_by("id").values_list("id", "embedding", "expires_at", "user_ref")
    for memory_id, vector, expires_at, user in rows.iterator(chunk_size=5000):
        if vector is None:  # excluded by the query; keeps the type checker informed
            continue
        found.ids.append(memory_id)
        found.vectors.append(vector)
        found.expires.append(expires_at.timestamp() if expires_at else np.inf)
        found.users.append(user or "")
    return found


def _full_load(agent: Agent, version: tuple[int, datetime]) -> _AgentMatrix:
    started = timezone.now()
    rows = _vector_rows(Memory.objects.filter(agent=agent, embedding__isnull=False))
    vectors = rows.vectors
    dim = agent.embedding_dim or (len(vectors[0]) if vectors else 0)
    return _matrix(
        version,
        rows.ids,
        np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, dim)),
        rows.expires,
        rows.users,
        started,
    )


def _refresh(agent: Agent, cached: _AgentMatrix, version: tuple[int, datetime]) -> _AgentMatrix:
    """Bring a cached matrix up to date by difference: drop deleted memories, read new ones
    and the ones changed since the last load (a new text has a new vector). The common case,
    a few memories stored since the last recall, then costs one id scan, not a reload."""
    started = timezone.now()
    memories = Memory.objects.filter(agent=agent, embedding__isnull=False)
    current = {
        memory_id: (expires_at, user or "")
        for memory_id, expires_at, user in memories.values_list(
            "id", "expires_at", "user_ref"
        ).iterator(chunk_size=10000)
    }
    changed = set(
        memories.filter(updated_at__gte=cached.loaded_at - _REFRESH_OVERLAP).values_list(
            "id", flat=True
        )
    )
    keep = np.array(
        [memory_id in current and memory_id not in changed for memory_id in cached.ids.tolist()],
        dtype=bool,
    )
    known = set(cached.ids[keep].tolist())
    fresh = [memory_id for memory_id in current if memory_id not in known]
    ids, vectors = cached.ids[keep].tolist(), [cached.matrix[keep]]
    for chunk_start in range(0, len(fresh), 5000):
        chunk = fresh[chunk_start : chunk_start + 5000]
        rows = _vector_rows(memories.filter(id__in=chunk))
        ids += rows.ids
        if rows.vectors:
            vectors.append(np.vstack(rows.vectors).astype(np.float32))
    deadlines = [current[memory_id][0] for memory_id in ids]
    expires = [deadline.timestamp() if deadline else np.inf for deadline in deadlines]
    return _matrix(
        version,
        ids,
        np.vstack(vectors) if len(ids) else cached.matrix[:0],
        expires,
        [current[memory_id][1] for memory_id in ids],
        started,
    )


def _agent_matrix(agent: Agent) -> _AgentMatrix:
    version = Agent.objects.filter(pk=agent.pk).values_list("memory_version", "created_at").get()
    cached = _matrices.get(agent.pk)
    if cached is not None and cached.version == version:
        return cached
    with _matrices_lock:
        cached = _matrices.get(agent.pk)
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version[1] == version[1]:
            cached = _refresh(agent, cached, version)
        else:
            cached = _full_load(agent, version)
        _matrices[agent.pk] = cached
        return cached


def vector_search(
    agent: Agent,
    candidates: MemoryQuerySet,
    query: np.ndarray,
    *,
    limit: int,
    filtered: bool,
    now: datetime,
    audience: Audience = ALL_USERS,
) -> list[tuple[int, float]]:
    """Cosine similarity of the agent's memories to ``query`` (unit vectors), best first.
    ``filtered`` says whether ``candidates`` narrows the agent's live memories at all
    besides ``audience``, the user boundary, which SQLite applies from its cache (on
    PostgreSQL ``candidates`` carries it)."""
    if connection.vendor == "postgresql":
        return _pg_vector_search(candidates, query, limit=limit)
    cached = _agent_matrix(agent)
    if len(cached.ids) == 0 or cached.matrix.shape[1] != len(query):
        return []
    scores = cached.matrix @ query.astype(np.float32)
    if cached.soonest <= now.timestamp():
        scores[cached.expires <= now.timestamp()] = -np.inf
    admitted = cached.admitted(audience)
    if admitted is not None:
        scores[~admitted] = -np.inf
    if filtered:
        allowed = np.fromiter(candidates.values_list("id", flat=True), dtype=np.int64)
        scores = np.where(np.isin(cached.ids, allowed), scores, -np.inf)
    count = min(limit, int(np.isfinite(scores).sum()))
    if count == 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top])]
    return [(int(cached.ids[i]), float(scores[i])) for i in top]


def _pg_vector_search(
    candidates: MemoryQuerySet, query: np.ndarray, *, limit: int
) -> list[tuple[int, float]]:
    dim = len(query)
    literal = "[" + ",".join(map(str, query.astype(np.float32).tolist())) + "]"

    def ranked(*, exact: bool) -> list[tuple[int, float]]:
        # "+ 0" orders by an expression the HNSW index cannot serve: an exact ranking,
        # whatever the planner's settings.
        distance = f"(embedding::vector({dim})) <=> %s::vector({dim})"
        if exact:
            distance = f"({distance}) + 0"
        return list(
            candidates.alias(dims=RawSQL("vector_dims(embedding)", ()))
            .filter(dims=dim)
            .annotate(distance=RawSQL(distance, (literal,)))
            .order_by("distance")
            .values_list("id", "distance")[:limit]
        )

    with transaction.atomic():
        with connection.cursor() as cursor:
            # Filtered HNSW scans keep going until they have enough rows (pgvector 0.8).
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute(f"SET LOCAL hnsw.ef_search = {int(max(HNSW_EF_SEARCH, limit))}")
        rows = ranked(exact=False)
    if len(rows) < limit:
        # ... but only up to hnsw.max_scan_tuples: where the table's nearest vectors are
        # other agents' (or dead rows'), the scan can end with fewer of this agent's than
        # it holds, even none. Fewer than asked means the candidates are few: rank them all.
        rows = ranked(exact=True)
    pairs = [(int(memory_id), 1.0 - float(distance)) for memory_id, distance in rows]
    pairs.sort(key=lambda pair: -pair[1])
    return pairs
