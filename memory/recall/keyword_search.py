"""Keyword search, the index recall reads for words: FTS5 with BM25 on SQLite; PostgreSQL
full text (GIN) with ts_rank_cd to choose a pool, ranked with BM25 like SQLite's.

``keyword_search`` takes ``candidates``, a queryset of the agent's memories that pass the
request's filters, and returns ``(memory_id, score)`` pairs, best first. What it knows of the
agent's memories and words (how many, how long, how common) is memory.recall.keyword_stats.
"""

import json
import math
import re
from typing import Any

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from memory.models import MemoryQuerySet
from memory.recall.keyword_stats import (
    CorpusStats,
    corpus_stats,
    document_frequencies,
    query_lexemes,
)
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
    stats = corpus_stats(agent)
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
    stats = corpus_stats(agent)
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


def _tsquery(lexemes: list[str], operator: str = "|") -> str:
    return f" {operator} ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in lexemes)


def _pg_bm25(
    agent: Agent, terms: list[str], candidates: MemoryQuerySet, *, limit: int
) -> list[tuple[int, float]]:
    """BM25 on PostgreSQL. The GIN index finds the memories holding the query's lexemes (only
    the selective ones for agents of more than FULL_MATCH_DOCUMENTS memories); the
    best PG_BM25_POOL of them by ts_rank_cd are scored with BM25 over all the query's
    lexemes, from their tsvectors."""
    stats = corpus_stats(agent)
    with connection.cursor() as cursor:
        lexemes = query_lexemes(cursor, terms)
        if not lexemes:
            return []
        frequencies = document_frequencies(
            cursor, agent, lexemes, stats, estimate_common=stats.documents > FULL_MATCH_DOCUMENTS
        )
        # A lexeme no memory holds cannot match; it would only empty an AND.
        lexemes = [lexeme for lexeme in lexemes if frequencies[lexeme] > 0]
        if not lexemes:
            return []
        queries, newest = _pg_queries(lexemes, frequencies, stats)
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
    return _bm25(rows, lexemes, frequencies, stats)[:limit]


def _pg_queries(
    lexemes: list[str], frequencies: dict[str, int], stats: CorpusStats
) -> tuple[list[str], bool]:
    """The tsqueries that choose the candidates, in the order to run them, and whether they
    are of one common lexeme alone (then the newest NEWEST_MATCHES holding it are scored)."""
    if stats.documents <= FULL_MATCH_DOCUMENTS:
        selective = lexemes
    else:
        selective = [
            lexeme for lexeme in lexemes if frequencies[lexeme] <= _selective_limit(stats.documents)
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
    return queries, len(lexemes) == 1 and not selective


def _bm25(
    rows: list[tuple[int, int, dict[str, int]]],
    lexemes: list[str],
    frequencies: dict[str, int],
    stats: CorpusStats,
) -> list[tuple[int, float]]:
    """The BM25 of each matched memory (id, length, counts of ``lexemes``), best first."""
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
    return scored


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
