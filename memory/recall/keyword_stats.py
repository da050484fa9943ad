"""What the keyword search (memory.recall.keyword_search) knows of the words of an agent's
memories, kept per process: how many memories the agent has and (PostgreSQL) their mean
length, the document frequencies of the words and lexemes recalls asked about, the lexemes
PostgreSQL makes of a word, and PostgreSQL's own statistics of the commonest lexemes.
Everything here is a cache or a count; nothing writes.
"""

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection

from tenancy.models import Agent


@dataclass
class CorpusStats:
    version: tuple[int, datetime]
    computed: float
    documents: int
    average_length: float
    # All agents' memories (SQLite: how much of the full-text index is the agent's).
    table_documents: int
    # Document frequencies of the words (SQLite: index-wide) and lexemes (PostgreSQL: the
    # agent's) recalls asked about, as stale as the rest; only words some memory holds.
    frequencies: dict[str, int] = field(default_factory=dict)


_corpus_stats_cache: dict[int, CorpusStats] = {}
# The mean length moves slowly; with memories arriving all the time, recomputing it (a scan
# of the agent's rows) more often than this would cost more than it corrects.
CORPUS_STATS_MAX_AGE_SECS = 300.0


def corpus_stats(agent: Agent) -> CorpusStats:
    """Document count and (PostgreSQL) mean length of the agent's memories, cached per
    process until the agent's memories change, and then for at most
    CORPUS_STATS_MAX_AGE_SECS."""
    version = Agent.objects.filter(pk=agent.pk).values_list("memory_version", "created_at").get()
    cached = _corpus_stats_cache.get(agent.pk)
    fresh = cached is not None and (
        cached.version == version
        or (
            cached.version[1] == version[1]
            and time.monotonic() - cached.computed < CORPUS_STATS_MAX_AGE_SECS
        )
    )
    if cached is None or not fresh:
        average = (
            "coalesce(avg(length(search_vector)), 0)"
            if connection.vendor == "postgresql"
            else "1.0"
        )
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT count(*), {average} FROM memory_memory WHERE agent_id = %s",
                (agent.pk,),
            )
            documents, average = cursor.fetchone()
            table_documents = 0
            if connection.vendor == "sqlite":
                cursor.execute("SELECT count(*) FROM memory_memory")
                [table_documents] = cursor.fetchone()
        cached = CorpusStats(
            version, time.monotonic(), int(documents), float(average) or 1.0, table_documents
        )
        _corpus_stats_cache[agent.pk] = cached
    return cached


_lexeme_shares: tuple[float, dict[str, float]] | None = None


def common_lexeme_shares(cursor: Any) -> dict[str, float]:
    """The table-wide share of memories holding each common lexeme, from PostgreSQL's own
    statistics (kept by ANALYZE / autovacuum; read again after CORPUS_STATS_MAX_AGE_SECS);
    empty before the first ANALYZE. A table partitioned by agent has them per partition
    (autovacuum never analyzes the parent): they are combined, weighed by each one's rows."""
    global _lexeme_shares
    if _lexeme_shares and time.monotonic() - _lexeme_shares[0] < CORPUS_STATS_MAX_AGE_SECS:
        return _lexeme_shares[1]
    cursor.execute(
        "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, "
        "greatest(c.reltuples, 0) FROM pg_class c "
        "JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = c.relname "
        "AND s.attname = 'search_vector' AND NOT s.inherited "
        "WHERE c.relname LIKE 'memory_memory%' AND c.relkind = 'r' "
        "AND coalesce(pg_partition_root(c.oid), c.oid) = 'memory_memory'::regclass "
        "AND s.most_common_elems IS NOT NULL"
    )
    rows = cursor.fetchall()
    total = sum(weight for _elems, _freqs, weight in rows)
    shares: dict[str, float] = {}
    for elems, freqs, weight in rows:
        part = weight / total if total else 1 / len(rows)
        for lexeme, share in zip(elems, freqs, strict=False):
            shares[lexeme] = shares.get(lexeme, 0.0) + share * part
    _lexeme_shares = (time.monotonic(), shares)
    return shares


# The lexemes of each query word (English stemming): the same every time, so asked once per
# process (up to LEXEME_CACHE_SIZE words).
_word_lexemes: dict[str, list[str]] = {}
LEXEME_CACHE_SIZE = 50_000


def query_lexemes(cursor: Any, terms: list[str]) -> list[str]:
    """The distinct lexemes PostgreSQL's English configuration makes of the query's words."""
    # Read into a mapping of this call's own: another thread may clear the cache meanwhile.
    known = {term: _word_lexemes.get(term) for term in terms}
    unknown = [term for term, lexemes in known.items() if lexemes is None]
    if unknown:
        if len(_word_lexemes) + len(unknown) > LEXEME_CACHE_SIZE:
            _word_lexemes.clear()
        cursor.execute(
            "SELECT word, array_remove(array_agg(lexeme), NULL) FROM unnest(%s::text[]) word "
            "LEFT JOIN LATERAL unnest(to_tsvector('english', word)) ON true GROUP BY word",
            (unknown,),
        )
        for word, found in cursor.fetchall():
            known[word] = _word_lexemes[word] = list(found)
    return list(dict.fromkeys(lexeme for term in terms for lexeme in known[term] or []))


def document_frequencies(
    cursor: Any, agent: Agent, lexemes: list[str], stats: CorpusStats, *, estimate_common: bool
) -> dict[str, int]:
    """How many of the agent's memories hold each lexeme. With ``estimate_common`` (an
    agent of more than keyword_search.FULL_MATCH_DOCUMENTS memories) the common lexemes are
    estimated from the statistics (counting them exactly would visit thousands of rows, and
    their weight in BM25 is small anyway); the rest, and every lexeme of a smaller agent,
    are counted exactly, which is cheap there. The statistics are the whole table's: taken
    for a small agent's own, they mis-weighed its words (LoCoMo R@20 on PostgreSQL 85.6 ->
    86.2 counting them exactly: docs/BENCHMARKS.md, issue 11 speed)."""
    shares = common_lexeme_shares(cursor) if estimate_common else {}
    documents, known = stats.documents, stats.frequencies
    frequencies = {}
    for lexeme in lexemes:
        if lexeme in shares:
            frequencies[lexeme] = max(1, round(shares[lexeme] * documents))
            continue
        if lexeme in known:
            frequencies[lexeme] = known[lexeme]
            continue
        cursor.execute(
            "SELECT count(*) FROM memory_memory WHERE agent_id = %s "
            "AND search_vector @@ to_tsquery('simple', quote_literal(%s))",
            (agent.pk, lexeme),
        )
        frequencies[lexeme] = cursor.fetchone()[0]
        if frequencies[lexeme]:  # a lexeme no memory holds yet may come with the next one
            known[lexeme] = frequencies[lexeme]
    return frequencies
