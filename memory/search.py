"""The two indexes recall reads: vectors and keywords, on either edition.

Both take ``candidates``, a queryset of the agent's memories that pass the request's
filters, and return ``(memory_id, score)`` pairs, best first.

Vectors: PostgreSQL orders by pgvector's cosine distance (the planner walks the HNSW index
for large agents and scans exactly for small ones); SQLite keeps each agent's vectors as one
float32 matrix per process, reloaded when the agent's ``memory_version`` moves.
Keywords: FTS5 with BM25 on SQLite; PostgreSQL full text (GIN) with ts_rank_cd.
"""

import math
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memory.models import Memory, MemoryQuerySet
from tenancy.models import Agent

# Words too common to say anything about which memory is meant.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)
_WORD = re.compile(r"\w+", re.UNICODE)
HNSW_EF_SEARCH = 100


def keyword_terms(text: str) -> list[str]:
    """The query's words that can match: lower-cased, without stopwords, without repeats."""
    words = (w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)
    return list(dict.fromkeys(w for w in words if len(w) > 1 or w.isdigit()))


def _subquery(candidates: MemoryQuerySet) -> tuple[str, tuple]:
    sql, params = candidates.values("id").query.sql_with_params()
    return sql, tuple(params)


def keyword_search(
    agent: Agent, candidates: MemoryQuerySet, text: str, *, limit: int, filtered: bool
) -> list[tuple[int, float]]:
    """``filtered``: whether ``candidates`` narrows the agent's memories; when it does not,
    the agent restriction is applied inside the full-text index and nothing else is read."""
    terms = keyword_terms(text)
    if not terms:
        return []
    narrow, narrow_params, subquery = "", (), ""
    if filtered:
        subquery, narrow_params = _subquery(candidates)
    if connection.vendor == "postgresql":
        narrow = f"AND m.id IN ({subquery})" if filtered else ""
        return _pg_bm25(agent, terms, narrow, narrow_params, limit=limit)
    if filtered:
        narrow = f"AND memory_fts.rowid IN ({subquery})"
    match = f"agent_id:{int(agent.pk)} AND (" + " OR ".join(f'"{t}"' for t in terms) + ")"
    with connection.cursor() as cursor:
        # Column weights: the agent id column must not count towards relevance.
        cursor.execute(
            "SELECT memory_fts.rowid, -bm25(memory_fts, 1.0, 0.0) AS score FROM memory_fts "
            f"WHERE memory_fts MATCH %s {narrow} "
            "ORDER BY bm25(memory_fts, 1.0, 0.0) LIMIT %s",
            (match, *narrow_params, limit),
        )
        return [(int(row[0]), float(row[1])) for row in cursor.fetchall()]


# BM25 parameters, as SQLite's FTS5 uses them, so both editions rank alike.
BM25_K1, BM25_B = 1.2, 0.75
# PostgreSQL: how many full-text matches (by ts_rank_cd) are re-ranked with BM25.
PG_BM25_POOL = 400
_TSVECTOR_ENTRY = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")


@dataclass
class _CorpusStats:
    version: tuple[int, datetime]
    computed: float
    documents: int
    average_length: float


_corpus_stats: dict[int, _CorpusStats] = {}
# The mean length moves slowly; with memories arriving all the time, recomputing it (a scan
# of the agent's rows) more often than this would cost more than it corrects.
CORPUS_STATS_MAX_AGE_SECS = 300.0
# A lexeme in more than this share of the agent's memories does not narrow the match: it is
# still scored, but only rarer lexemes choose the candidates (unless all are this common).
SELECTIVE_SHARE = 0.05
# Agents up to this many memories match every lexeme: ranking all matches is cheap there,
# and nothing a common word would find is lost.
FULL_MATCH_DOCUMENTS = 5_000


def _pg_corpus_stats(agent: Agent) -> _CorpusStats:
    """Document count and mean length of the agent's memories, cached per process until the
    agent's memories change, and then for at most CORPUS_STATS_MAX_AGE_SECS."""
    version = Agent.objects.filter(pk=agent.pk).values_list("memory_version", "created_at").get()
    cached = _corpus_stats.get(agent.pk)
    fresh = cached is not None and (
        cached.version == version
        or (
            cached.version[1] == version[1]
            and time.monotonic() - cached.computed < CORPUS_STATS_MAX_AGE_SECS
        )
    )
    if cached is None or not fresh:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*), coalesce(avg(length(search_vector)), 0) "
                "FROM memory_memory WHERE agent_id = %s",
                (agent.pk,),
            )
            documents, average = cursor.fetchone()
        cached = _CorpusStats(version, time.monotonic(), int(documents), float(average) or 1.0)
        _corpus_stats[agent.pk] = cached
    return cached


def _common_lexeme_shares(cursor: Any) -> dict[str, float]:
    """The table-wide share of memories holding each common lexeme, from PostgreSQL's own
    statistics (kept by ANALYZE / autovacuum); empty before the first ANALYZE."""
    cursor.execute(
        "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
        "WHERE tablename = 'memory_memory' AND attname = 'search_vector'"
    )
    row = cursor.fetchone()
    if not row or not row[0]:
        return {}
    return dict(zip(row[0], row[1], strict=False))


def _document_frequencies(
    cursor: Any, agent: Agent, lexemes: list[str], documents: int
) -> dict[str, int]:
    """How many of the agent's memories hold each lexeme. Common lexemes are estimated from
    the statistics (counting them exactly would visit thousands of rows, and their weight in
    BM25 is small anyway); the rest are counted exactly, which is cheap because they are rare."""
    shares = _common_lexeme_shares(cursor)
    frequencies = {}
    for lexeme in lexemes:
        if lexeme in shares:
            frequencies[lexeme] = max(1, round(shares[lexeme] * documents))
            continue
        cursor.execute(
            "SELECT count(*) FROM memory_memory WHERE agent_id = %s "
            "AND search_vector @@ to_tsquery('simple', quote_literal(%s))",
            (agent.pk, lexeme),
        )
        frequencies[lexeme] = cursor.fetchone()[0]
    return frequencies


def _tsquery(lexemes: list[str], operator: str = "|") -> str:
    return f" {operator} ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in lexemes)


def _pg_bm25(
    agent: Agent, terms: list[str], narrow: str, narrow_params: tuple, *, limit: int
) -> list[tuple[int, float]]:
    """BM25 on PostgreSQL. The GIN index finds the memories holding the query's lexemes (only
    the selective ones for agents of more than FULL_MATCH_DOCUMENTS memories); the
    best PG_BM25_POOL of them by ts_rank_cd are scored with BM25 over all the query's
    lexemes, from their tsvectors."""
    stats = _pg_corpus_stats(agent)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', %s))", (" ".join(terms),)
        )
        lexemes = [row[0] for row in cursor.fetchall()]
        if not lexemes:
            return []
        frequencies = _document_frequencies(cursor, agent, lexemes, stats.documents)
        # A lexeme no memory holds cannot match; it would only empty an AND.
        lexemes = [lexeme for lexeme in lexemes if frequencies[lexeme] > 0]
        if not lexemes:
            return []
        if stats.documents <= FULL_MATCH_DOCUMENTS:
            selective = lexemes
        else:
            selective = [
                lexeme
                for lexeme in lexemes
                if frequencies[lexeme] <= SELECTIVE_SHARE * max(stats.documents, 1)
            ]
        # Only common lexemes: matching any of them would rank most of the agent's memories.
        # The memories holding all of them come first (BM25 ranks them highest anyway), then
        # those holding all but the commonest, and so on down to the two rarest, until the
        # pool is full. Dropping the commonest lexeme first keeps the memories BM25 ranks next,
        # and stopping early spares ranking thousands of memories that hold only two common
        # words (each one a heap page read).
        by_rarity = sorted(lexemes, key=lambda lexeme: frequencies[lexeme])
        queries = (
            [_tsquery(selective)]
            if selective
            else [_tsquery(by_rarity[:size], "&") for size in range(len(lexemes), 1, -1)]
            or [_tsquery(lexemes, "&")]
        )
        rows: list[tuple[int, str]] = []
        for query in queries:
            seen = {row[0] for row in rows}
            cursor.execute(
                "SELECT m.id, m.search_vector::text FROM memory_memory m, "
                "to_tsquery('simple', %s) q "
                f"WHERE m.agent_id = %s AND m.search_vector @@ q {narrow} "
                "ORDER BY ts_rank_cd(m.search_vector, q) DESC, m.id DESC LIMIT %s",
                (query, agent.pk, *narrow_params, PG_BM25_POOL),
            )
            rows += [row for row in cursor.fetchall() if row[0] not in seen]
            if len(rows) >= limit:
                break
    idf = {
        lexeme: math.log(1 + (stats.documents - df + 0.5) / (df + 0.5))
        for lexeme, df in frequencies.items()
    }
    scored = []
    for memory_id, vector_text in rows:
        counts = {
            match.group(1).replace("''", "'"): match.group(2).count(",") + 1
            for match in _TSVECTOR_ENTRY.finditer(vector_text)
        }
        length = sum(counts.values())
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / stats.average_length)
        score = sum(
            idf[lexeme] * counts[lexeme] * (BM25_K1 + 1) / (counts[lexeme] + norm)
            for lexeme in lexemes
            if lexeme in counts
        )
        scored.append((int(memory_id), score))
    scored.sort(key=lambda pair: (-pair[1], -pair[0]))
    return scored[:limit]


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
    loaded_at: datetime


_matrices: dict[int, _AgentMatrix] = {}
_matrices_lock = threading.Lock()
# Rows changed this long before a refresh are fetched again: covers a write that committed
# while the previous refresh was reading.
_REFRESH_OVERLAP = timedelta(seconds=5)


def _vector_rows(memories: MemoryQuerySet) -> tuple[list[int], list[np.ndarray], list[float]]:
    ids: list[int] = []
    vectors: list[np.ndarray] = []
    expires: list[float] = []
    rows = memories.order_by("id").values_list("id", "embedding", "expires_at")
    for memory_id, vector, expires_at in rows.iterator(chunk_size=5000):
        if vector is None:  # excluded by the query; keeps the type checker informed
            continue
        ids.append(memory_id)
        vectors.append(vector)
        expires.append(expires_at.timestamp() if expires_at else np.inf)
    return ids, vectors, expires


def _full_load(agent: Agent, version: tuple[int, datetime]) -> _AgentMatrix:
    started = timezone.now()
    ids, vectors, expires = _vector_rows(
        Memory.objects.filter(agent=agent, embedding__isnull=False)
    )
    dim = agent.embedding_dim or (len(vectors[0]) if vectors else 0)
    return _AgentMatrix(
        version=version,
        ids=np.array(ids, dtype=np.int64),
        matrix=np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, dim)),
        expires=np.array(expires, dtype=np.float64),
        loaded_at=started,
    )


def _refresh(agent: Agent, cached: _AgentMatrix, version: tuple[int, datetime]) -> _AgentMatrix:
    """Bring a cached matrix up to date by difference: drop deleted memories, read new ones
    and the ones changed since the last load (a new text has a new vector). The common case,
    a few memories stored since the last recall, then costs one id scan, not a reload."""
    started = timezone.now()
    memories = Memory.objects.filter(agent=agent, embedding__isnull=False)
    current = dict(memories.values_list("id", "expires_at").iterator(chunk_size=10000))
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
        new_ids, new_vectors, _ = _vector_rows(memories.filter(id__in=chunk))
        ids += new_ids
        if new_vectors:
            vectors.append(np.vstack(new_vectors).astype(np.float32))
    deadlines = [current[memory_id] for memory_id in ids]
    expires = [deadline.timestamp() if deadline else np.inf for deadline in deadlines]
    return _AgentMatrix(
        version=version,
        ids=np.array(ids, dtype=np.int64),
        matrix=np.vstack(vectors) if len(ids) else cached.matrix[:0],
        expires=np.array(expires, dtype=np.float64),
        loaded_at=started,
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
) -> list[tuple[int, float]]:
    """Cosine similarity of the agent's memories to ``query`` (unit vectors), best first.
    ``filtered`` says whether ``candidates`` narrows the agent's live memories at all."""
    if connection.vendor == "postgresql":
        return _pg_vector_search(candidates, query, limit=limit)
    cached = _agent_matrix(agent)
    if len(cached.ids) == 0 or cached.matrix.shape[1] != len(query):
        return []
    scores = cached.matrix @ query.astype(np.float32)
    scores = np.where(cached.expires > now.timestamp(), scores, -np.inf)
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
    ranked = (
        candidates.alias(dims=RawSQL("vector_dims(embedding)", ()))
        .filter(dims=dim)
        .annotate(
            distance=RawSQL(
                f"(embedding::vector({dim})) <=> %s::vector({dim})",
                (literal,),
            )
        )
        .order_by("distance")
        .values_list("id", "distance")[:limit]
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            # Filtered HNSW scans keep going until they have enough rows (pgvector 0.8).
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute(f"SET LOCAL hnsw.ef_search = {int(max(HNSW_EF_SEARCH, limit))}")
        rows = list(ranked)
    pairs = [(int(memory_id), 1.0 - float(distance)) for memory_id, distance in rows]
    pairs.sort(key=lambda pair: -pair[1])
    return pairs
