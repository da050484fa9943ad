"""Keyword search, the index recall reads for words: FTS5 with BM25 on SQLite; PostgreSQL
full text (GIN) with ts_rank_cd to choose a pool, ranked with BM25 like SQLite's.

``keyword_search`` takes ``candidates``, a queryset of the agent's memories that pass the
request's filters, and returns ``(memory_id, score)`` pairs, best first.
"""

import json
import math
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from memory.models import MemoryQuerySet
from memory.recall.stopwords import STOPWORDS
from tenancy.models import Agent

_WORD = re.compile(r"\w+", re.UNICODE)


def keyword_terms(text: str) -> list[str]:
    """The query's words that can match: lower-cased, without stopwords, without repeats."""
    words = (w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)
    return list(dict.fromkeys(w for w in words if len(w) > 1 or w.isdigit()))


def _row_filter(candidates: MemoryQuerySet) -> tuple[str, tuple]:
    """SQLite: "this match is one of ``candidates``" as a condition on the matched row alone
    (an EXISTS over its own memory, found by primary key), so that the filters cost one
    lookup per match. Given as the list of the candidates' ids instead, each recall read
    every memory the filters let through, most of a recall's time for a large agent
    (docs/BENCHMARKS.md, issue 26); offered to FTS5 as rowids to look up, the full-text
    query ran once per id."""
    own_row = candidates.order_by().filter(pk=RawSQL("memory_fts.rowid", ()))
    sql, params = own_row.values("id").query.sql_with_params()
    return f"AND EXISTS ({sql})", tuple(params)


def keyword_search(
    agent: Agent, candidates: MemoryQuerySet, text: str, *, limit: int, filtered: bool
) -> list[tuple[int, float]]:
    """``filtered``: whether ``candidates`` narrows the agent's memories; when it does not,
    the agent restriction is applied inside the full-text index and nothing else is read."""
    terms = keyword_terms(text)
    if not terms:
        return []
    if connection.vendor == "postgresql":
        return _pg_bm25(agent, terms, candidates, limit=limit)
    return _fts5_bm25(agent, terms, candidates, limit=limit, filtered=filtered)


def _fts5_phrases(terms: list[str], operator: str = "OR") -> str:
    return f" {operator} ".join(f'"{term}"' for term in terms)


def _fts5_bm25(
    agent: Agent, terms: list[str], candidates: MemoryQuerySet, *, limit: int, filtered: bool
) -> list[tuple[int, float]]:
    """BM25 on SQLite, by FTS5. FTS5 scores every match before it can sort them: for a large
    agent a query of common words matches tens of thousands of memories, and scoring them is
    most of a recall's time. So, as on PostgreSQL, for agents of more than
    FULL_MATCH_DOCUMENTS memories only the selective words (in at most SELECTIVE_SHARE of
    them) choose the candidates, or, when every word is common, the memories holding all of
    them, then all but the commonest, and so on until the pool is full. The other words
    stay in the expression where they cannot widen the match (ORed with a phrase every
    match holds), so each candidate's BM25 is the one the full query gives it.

    The agent's own column narrows the match inside the index where the agent is a small
    part of it; an agent that is most of the index is narrowed row by row instead (the
    filters' check of each match's own memory), because BM25 counts the memories holding
    each phrase of the expression once per query, and the agent's phrase is in all of its
    memories (7 ms a query at 100,000: docs/BENCHMARKS.md, issue 26). The agent's column
    weighs nothing, so either way each match's score is the same."""
    stats = _corpus_stats(agent)
    own = f"agent_id:{int(agent.pk)}"
    scope = own if 2 * stats.documents < stats.table_documents else ""
    narrow, narrow_params = _row_filter(candidates) if filtered or not scope else ("", ())
    with connection.cursor() as cursor:
        queries = [_fts5_and(scope, f"({_fts5_phrases(terms)})")]
        order, rows = "bm25(memory_fts, 1.0, 0.0)", limit
        if stats.documents > FULL_MATCH_DOCUMENTS:
            narrowed = _fts5_narrow_queries(cursor, agent, terms, scope, own)
            if narrowed == [_NEWEST]:
                order, rows = "memory_fts.rowid DESC", NEWEST_MATCHES
            else:
                queries = narrowed or queries
        scored: dict[int, float] = {}
        for match in queries:
            # Column weights: the agent id column must not count towards relevance.
            cursor.execute(
                "SELECT memory_fts.rowid, -bm25(memory_fts, 1.0, 0.0) AS score FROM memory_fts "
                f"WHERE memory_fts MATCH %s {narrow} ORDER BY {order} LIMIT %s",
                (match, *narrow_params, rows),
            )
            for memory_id, score in cursor.fetchall():
                scored.setdefault(int(memory_id), float(score))
            if len(scored) >= limit:
                break
    ranked = sorted(scored.items(), key=lambda pair: (-pair[1], -pair[0]))
    return ranked[:limit]


def _fts5_and(*parts: str) -> str:
    return " AND ".join(part for part in parts if part)


def _fts5_narrow_queries(
    cursor: Any, agent: Agent, terms: list[str], scope: str, own: str
) -> list[str]:
    """The MATCH expressions for a large agent, in the order to run them (see _fts5_bm25);
    empty when the full query is as narrow. Document frequencies are counted over the whole
    index, which is cheap (no agent filter) and can only overstate a word's share.
    ``scope``: the agent's own phrase ``own``, or "" where the rows are narrowed one by one;
    ``own`` is also the phrase every match holds, ORed with the words that only score."""
    stats = _corpus_stats(agent)
    documents = stats.documents
    frequencies = {term: stats.frequencies.get(term, 0) for term in terms}
    for term in terms:
        if not frequencies[term]:
            cursor.execute(
                "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH %s", (f'"{term}"',)
            )
            frequencies[term] = cursor.fetchone()[0]
            if frequencies[term]:  # a word no memory holds yet may come with the next one
                stats.frequencies[term] = frequencies[term]
    held = [term for term in terms if frequencies[term] > 0]
    if not held:
        return []
    selective = [term for term in held if frequencies[term] <= _selective_limit(documents)]
    common = [term for term in held if term not in selective]
    if selective and not common:
        return []
    if selective:
        chosen = f"({_fts5_phrases(selective)})"
        return [_fts5_and(scope, chosen, f"({_fts5_phrases(common)} OR {own})")]
    if len(held) == 1:
        # One common word: BM25 would rank thousands of matches by length alone; the newest
        # NEWEST_MATCHES of them are scored instead.
        return [_NEWEST] if frequencies[held[0]] > NEWEST_MATCHES else []
    by_rarity = sorted(held, key=lambda term: frequencies[term])
    queries = []
    for size in range(len(held), 1, -1):
        required, scored_only = by_rarity[:size], by_rarity[size:]
        also = f"({_fts5_phrases(scored_only)} OR {own})" if scored_only else ""
        queries.append(_fts5_and(scope, _fts5_phrases(required, "AND"), also))
    return queries


# A query whose only matching word is common (see SELECTIVE_SHARE) scores the newest this
# many memories holding it, not all of them.
NEWEST_MATCHES = 400
_NEWEST = "newest"
# BM25 parameters, as SQLite's FTS5 uses them, so both editions rank alike.
BM25_K1, BM25_B = 1.2, 0.75
# PostgreSQL: how many full-text matches (by ts_rank_cd) are re-ranked with BM25.
PG_BM25_POOL = 400


@dataclass
class _CorpusStats:
    version: tuple[int, datetime]
    computed: float
    documents: int
    average_length: float
    # All agents' memories (SQLite: how much of the full-text index is the agent's).
    table_documents: int
    # Document frequencies of the words (SQLite: index-wide) and lexemes (PostgreSQL: the
    # agent's) recalls asked about, as stale as the rest; only words some memory holds.
    frequencies: dict[str, int] = field(default_factory=dict)


_corpus_stats_cache: dict[int, _CorpusStats] = {}
# The mean length moves slowly; with memories arriving all the time, recomputing it (a scan
# of the agent's rows) more often than this would cost more than it corrects.
CORPUS_STATS_MAX_AGE_SECS = 300.0
# A lexeme in more than this share of the agent's memories does not narrow the match: it is
# still scored, but only rarer lexemes choose the candidates (unless all are this common).
SELECTIVE_SHARE = 0.05
# ... nor does one in more than this many: each match is read and ranked (about 3 us a match
# on PostgreSQL, where a place named in 5% of 100,000 memories cost 17 ms a query:
# docs/BENCHMARKS.md, issue 26).
SELECTIVE_MATCHES = 1_000


def _selective_limit(documents: int) -> float:
    """The most memories a word may be in and still choose the candidates by itself."""
    return min(SELECTIVE_SHARE * max(documents, 1), SELECTIVE_MATCHES)


# Agents up to this many memories match every lexeme: ranking all matches is cheap there,
# and nothing a common word would find is lost.
FULL_MATCH_DOCUMENTS = 5_000


def _corpus_stats(agent: Agent) -> _CorpusStats:
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
        cached = _CorpusStats(
            version, time.monotonic(), int(documents), float(average) or 1.0, table_documents
        )
        _corpus_stats_cache[agent.pk] = cached
    return cached


_lexeme_shares: tuple[float, dict[str, float]] | None = None


def _common_lexeme_shares(cursor: Any) -> dict[str, float]:
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


def _lexemes(cursor: Any, terms: list[str]) -> list[str]:
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


def _document_frequencies(
    cursor: Any, agent: Agent, lexemes: list[str], stats: _CorpusStats
) -> dict[str, int]:
    """How many of the agent's memories hold each lexeme. For an agent of more than
    FULL_MATCH_DOCUMENTS memories the common lexemes are estimated from the statistics
    (counting them exactly would visit thousands of rows, and their weight in BM25 is small
    anyway); the rest, and every lexeme of a smaller agent, are counted exactly, which is
    cheap there. The statistics are the whole table's: taken for a small agent's own, they
    mis-weighed its words (LoCoMo R@20 on PostgreSQL 85.6 -> 86.2 counting them exactly:
    docs/BENCHMARKS.md, issue 11 speed)."""
    shares = _common_lexeme_shares(cursor) if stats.documents > FULL_MATCH_DOCUMENTS else {}
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


def _tsquery(lexemes: list[str], operator: str = "|") -> str:
    return f" {operator} ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in lexemes)


def _pg_bm25(
    agent: Agent, terms: list[str], candidates: MemoryQuerySet, *, limit: int
) -> list[tuple[int, float]]:
    """BM25 on PostgreSQL. The GIN index finds the memories holding the query's lexemes (only
    the selective ones for agents of more than FULL_MATCH_DOCUMENTS memories); the
    best PG_BM25_POOL of them by ts_rank_cd are scored with BM25 over all the query's
    lexemes, from their tsvectors."""
    stats = _corpus_stats(agent)
    with connection.cursor() as cursor:
        lexemes = _lexemes(cursor, terms)
        if not lexemes:
            return []
        frequencies = _document_frequencies(cursor, agent, lexemes, stats)
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
                if frequencies[lexeme] <= _selective_limit(stats.documents)
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
        # One common lexeme alone (as on SQLite): the newest NEWEST_MATCHES holding it.
        newest = len(lexemes) == 1 and not selective
        pool = NEWEST_MATCHES if newest else PG_BM25_POOL
        rows: list[tuple[int, int, dict[str, int]]] = []
        for query in queries:
            seen = {row[0] for row in rows}
            rows += [
                row
                for row in _pg_matches(candidates, query, lexemes, newest=newest, pool=pool)
                if row[0] not in seen
            ]
            if len(rows) >= limit:
                break
    idf = {
        lexeme: math.log(1 + (stats.documents - df + 0.5) / (df + 0.5))
        for lexeme, df in frequencies.items()
    }
    scored = []
    for memory_id, length, counts in rows:
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / stats.average_length)
        score = sum(
            idf[lexeme] * counts[lexeme] * (BM25_K1 + 1) / (counts[lexeme] + norm)
            for lexeme in lexemes
            if counts.get(lexeme)
        )
        scored.append((memory_id, score))
    scored.sort(key=lambda pair: (-pair[1], -pair[0]))
    return scored[:limit]


def _pg_matches(
    candidates: MemoryQuerySet, query: str, lexemes: list[str], *, newest: bool, pool: int
) -> list[tuple[int, int, dict[str, int]]]:
    """The candidates matching ``query`` (a tsquery), best first by ts_rank_cd (the newest
    first with ``newest``), each with its length (words indexed) and how often it holds each
    of ``lexemes``, read from its tsvector by the server (parsed here from the vector's text,
    they were a third of a recall's keyword time at 100,000 memories). The filters are
    conditions on each matched row, read from the heap page the match is on anyway: given as
    the candidates' ids instead, every recall listed all the memories its filters let through."""
    matched = RawSQL(
        "memory_memory.search_vector @@ to_tsquery('simple', %s)",
        (query,),
        output_field=BooleanField(),
    )
    # One pass over the vector: the counts of the query's lexemes, and under "" (no lexeme
    # is empty) the number of words indexed.
    counts = RawSQL(
        "(SELECT coalesce(jsonb_object_agg(u.lexeme, array_length(u.positions, 1)) "
        "FILTER (WHERE u.lexeme = ANY(%s)), '{}') "
        "|| jsonb_build_object('', coalesce(sum(array_length(u.positions, 1)), 0)) "
        "FROM unnest(memory_memory.search_vector) u WHERE u.positions IS NOT NULL)",
        (lexemes,),
    )
    rows = candidates.order_by().filter(matched).annotate(counts=counts)
    if newest:
        rows = rows.order_by("-id")
    else:
        rank = RawSQL("ts_rank_cd(memory_memory.search_vector, to_tsquery('simple', %s))", (query,))
        rows = rows.annotate(rank=rank).order_by("-rank", "-id")
    found = []
    for memory_id, held in rows.values_list("id", "counts")[:pool]:
        decoded = json.loads(held) if isinstance(held, str) else dict(held)
        found.append((int(memory_id), int(decoded.pop("")), decoded))
    return found
