"""The plans of the keyword search's queries, as the product runs them.

PostgreSQL: a recall's keyword search (narrowed to what its caller may see, as every recall
is) of an agent of 100,000 memories, and of one of 10,000 beside it, reads the full-text index
and about one heap page per match of its own: neither a bitmap or list of all the agent's rows
nor the other agent's matches (EXPLAIN (ANALYZE, BUFFERS)).
SQLite: a search narrowed by the request's filters (a user's scope, tags, a window) runs the
full-text query once and checks each match's own memory, by primary key: neither once per
memory the filters let through nor after listing them all."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.models import Memory
from memory.recall import keyword_search
from memory.recall.filters import RecallFilters, candidate_memories
from memory.services import MemoryInput, store_memories
from tests.factories import make_agent

pytestmark = pytest.mark.django_db
POSTGRESQL_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's full-text index and its pages"
)
SQLITE_ONLY = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 table")

LARGE, SMALL = 100_000, 10_000
WORDS = 1_000  # each "wN" is in one of every WORDS memories of an agent
RARE_EVERY = 5_000  # "quokka" is in one of every RARE_EVERY


def fill(agent, count: int) -> None:
    """``count`` copies of one stored memory for ``agent``, each with its own words: one
    set-based INSERT (storing 100,000 through the API would take minutes)."""
    [template] = store_memories(agent=agent, items=[MemoryInput(content="template")])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'memory_memory' AND table_schema = current_schema() "
            "AND is_generated = 'NEVER' AND column_name NOT IN ('id', 'content', 'embedding')"
        )
        columns = [f'"{name}"' for (name,) in cursor.fetchall()]
        cursor.execute(
            f"INSERT INTO memory_memory ({', '.join(columns)}, content) "
            f"SELECT {', '.join(columns)}, 'note ' || i || ' about w' || (i %% %s) "
            "|| CASE WHEN i %% %s = 0 THEN ' and a quokka' ELSE '' END "
            "FROM memory_memory, generate_series(1, %s) i WHERE id = %s",
            (WORDS, RARE_EVERY, count, template.pk),
        )
        cursor.execute("ANALYZE memory_memory")


def recall_candidates(agent):
    """What a recall without filters narrows its searches to: the agent's live memories
    shared by all its users (no user given)."""
    return candidate_memories(agent, RecallFilters(), timezone.now())


def plan_of(agent, query: str) -> dict:
    """The plan, with its buffers, of the full-text query keyword search runs for ``query``."""
    with CaptureQueriesContext(connection) as captured:
        hits = keyword_search.keyword_search(
            agent, recall_candidates(agent), query, limit=20, filtered=True
        )
    assert hits
    [sql] = [q["sql"] for q in captured.captured_queries if "ts_rank_cd" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}")
        [[document]] = cursor.fetchall()
    document = json.loads(document) if isinstance(document, str) else document
    return document[0]["Plan"]


def nodes(plan: dict) -> list[dict]:
    return [plan, *(node for child in plan.get("Plans", []) for node in nodes(child))]


@POSTGRESQL_ONLY
def test_a_keyword_query_reads_the_pages_of_its_own_agents_matches(workspace):
    large, small = make_agent(workspace, "large"), make_agent(workspace, "small")
    fill(large, LARGE)
    fill(small, SMALL)

    # A rare word, and one in a thousandth of each agent's memories.
    for agent, word, matches in (
        (large, "quokka", LARGE // RARE_EVERY),
        (small, "quokka", SMALL // RARE_EVERY),
        (large, "w7", LARGE // WORDS),
        (small, "w7", SMALL // WORDS),
    ):
        plan = plan_of(agent, word)
        scans = [node for node in nodes(plan) if node["Node Type"] == "Bitmap Index Scan"]
        assert "memory_search_idx" in {scan["Index Name"] for scan in scans}
        [heap] = [node for node in nodes(plan) if node["Node Type"] == "Bitmap Heap Scan"]
        assert heap["Actual Rows"] == matches
        # The index's few pages and about one heap page per match of this agent. A bitmap of
        # all the large agent's rows from its btree would read about 270 pages more, and its
        # matches read for the small one 100 more.
        read = plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]
        where = [(scan["Index Name"], scan["Index Cond"]) for scan in scans]
        assert read <= 30 + 1.2 * matches, (agent.agent_id, word, read, matches, where)


@SQLITE_ONLY
def test_a_narrowed_search_runs_the_full_text_query_once(agent):
    stored = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="the quokka enclosure opens at nine"),
            MemoryInput(content="quokka photos from the trip", user="u1"),
            MemoryInput(content="lunch at noon"),
        ],
    )
    with CaptureQueriesContext(connection) as captured:
        hits = keyword_search.keyword_search(
            agent, recall_candidates(agent), "quokka", limit=20, filtered=True
        )
    assert [memory_id for memory_id, _ in hits] == [stored[0].pk]
    [sql] = [q["sql"] for q in captured.captured_queries if "bm25(" in q["sql"]]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        steps = [row[-1] for row in cursor.fetchall()]
    [fts] = [step for step in steps if "VIRTUAL TABLE" in step]
    # "INDEX 0:=..." is FTS5 looking up the filter's ids one by one, the query run for each.
    assert "0:=" not in fts, steps
    # Each match's own memory, by its key; "LIST SUBQUERY" would list every memory the
    # filters let through first (a scan of the agent's rows on every recall).
    assert "SEARCH memory_memory USING INTEGER PRIMARY KEY (rowid=?)" in steps, steps
    assert not any("LIST SUBQUERY" in step or "SCAN memory_memory" in step for step in steps)


def test_an_agent_that_is_most_of_the_index_finds_only_its_own_memories(workspace):
    # SQLite narrows such an agent row by row, not inside the full-text index: the other
    # agent's memories holding the same words must stay out, and so must another user's.
    large, small = make_agent(workspace, "large"), make_agent(workspace, "small")
    own = store_memories(
        agent=large,
        items=[MemoryInput(content=f"quokka sighting number {i}") for i in range(12)]
        + [MemoryInput(content="quokka sighting of a user", user="u1")],
    )
    other = store_memories(agent=small, items=[MemoryInput(content="quokka sighting")])
    for agent, stored in ((large, own), (small, other)):
        # As a recall narrows it (the shared memories), and as a search of every user's.
        shared = [memory.pk for memory in stored if not memory.user_ref]
        everyone = [memory.pk for memory in stored]
        for candidates, filtered, expected in (
            (recall_candidates(agent), True, shared),
            (Memory.objects.filter(agent=agent), False, everyone),
        ):
            hits = keyword_search.keyword_search(
                agent, candidates, "quokka sighting", limit=50, filtered=filtered
            )
            assert sorted(memory_id for memory_id, _ in hits) == sorted(expected)
