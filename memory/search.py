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
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from memory.models import Agent, Memory, MemoryQuerySet

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
PG_BM25_POOL = 1000
_TSVECTOR_ENTRY = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")


@dataclass
class _CorpusStats:
    version: tuple[int, datetime]
    documents: int
    average_length: float


_corpus_stats: dict[int, _CorpusStats] = {}


def _pg_corpus_stats(agent: Agent) -> _CorpusStats:
    """Document count and mean length of the agent's memories, cached per process until
    the agent's memories change."""
    version = Agent.objects.filter(pk=agent.pk).values_list("memory_version", "created_at").get()
    cached = _corpus_stats.get(agent.pk)
    if cached is None or cached.version != version:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*), coalesce(avg(length(search_vector)), 0) "
                "FROM memory_memory WHERE agent_id = %s",
                (agent.pk,),
            )
            documents, average = cursor.fetchone()
        cached = _CorpusStats(version, int(documents), float(average) or 1.0)
        _corpus_stats[agent.pk] = cached
    return cached


def _pg_bm25(
    agent: Agent, terms: list[str], narrow: str, narrow_params: tuple, *, limit: int
) -> list[tuple[int, float]]:
    """BM25 on PostgreSQL: the GIN index finds the memories with any query term; the best
    PG_BM25_POOL of them by ts_rank_cd are scored with BM25 from their tsvectors, with
    document frequencies counted through the same index."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', %s)) ",
            (" ".join(terms),),
        )
        lexemes = [row[0] for row in cursor.fetchall()]
        if not lexemes:
            return []
        frequencies = {}
        for lexeme in lexemes:
            cursor.execute(
                "SELECT count(*) FROM memory_memory WHERE agent_id = %s "
                "AND search_vector @@ to_tsquery('simple', quote_literal(%s))",
                (agent.pk, lexeme),
            )
            frequencies[lexeme] = cursor.fetchone()[0]
        query = " | ".join(f"'{lexeme.replace(chr(39), chr(39) * 2)}'" for lexeme in lexemes)
        cursor.execute(
            "SELECT m.id, m.search_vector::text FROM memory_memory m, "
            "to_tsquery('simple', %s) q "
            f"WHERE m.agent_id = %s AND m.search_vector @@ q {narrow} "
            "ORDER BY ts_rank_cd(m.search_vector, q) DESC, m.id DESC LIMIT %s",
            (query, agent.pk, *narrow_params, PG_BM25_POOL),
        )
        rows = cursor.fetchall()
    stats = _pg_corpus_stats(agent)
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


_matrices: dict[int, _AgentMatrix] = {}
_matrices_lock = threading.Lock()


def _agent_matrix(agent: Agent) -> _AgentMatrix:
    version = Agent.objects.filter(pk=agent.pk).values_list("memory_version", "created_at").get()
    cached = _matrices.get(agent.pk)
    if cached is not None and cached.version == version:
        return cached
    with _matrices_lock:
        cached = _matrices.get(agent.pk)
        if cached is not None and cached.version == version:
            return cached
        rows = (
            Memory.objects.filter(agent=agent, embedding__isnull=False)
            .order_by("id")
            .values_list("id", "embedding", "expires_at")
        )
        ids: list[int] = []
        vectors: list[np.ndarray] = []
        expires: list[float] = []
        for memory_id, vector, expires_at in rows.iterator(chunk_size=5000):
            if vector is None:  # excluded by the query; keeps the type checker informed
                continue
            ids.append(memory_id)
            vectors.append(vector)
            expires.append(expires_at.timestamp() if expires_at else np.inf)
        dim = agent.embedding_dim or (len(vectors[0]) if vectors else 0)
        matrix = np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, dim))
        cached = _AgentMatrix(
            version=version,
            ids=np.array(ids, dtype=np.int64),
            matrix=matrix,
            expires=np.array(expires, dtype=np.float64),
        )
        _matrices[agent.pk] = cached
        return cached


def forget_cached_vectors(agent_pk: int | None = None) -> None:
    """Drop this process's cached matrices (all, or one agent's)."""
    with _matrices_lock:
        if agent_pk is None:
            _matrices.clear()
        else:
            _matrices.pop(agent_pk, None)


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
