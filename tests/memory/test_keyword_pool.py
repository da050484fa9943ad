"""Keyword search on a large agent (both editions): selective words choose the candidates
and every word still counts in their BM25; when all the query's words are common, the pool
widens one word at a time, commonest dropped first."""

import time

import pytest
from django.db import connection

from memory.models import Memory
from memory.recall import keyword_search, keyword_stats
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db


def test_memories_missing_only_the_commonest_word_rank_before_those_missing_two(agent, monkeypatch):
    # Document frequencies: quince 4 < papaya 5 < mango 6 < kiwi 7.
    texts = [
        "mango papaya kiwi quince",  # every word
        "mango papaya quince",  # all but kiwi, the commonest
        "papaya quince",  # the two rarest only, and newer
        "papaya quince",
        "papaya",
        *["mango"] * 4,
        *["kiwi"] * 6,
    ]
    stored = store_memories(agent=agent, items=[MemoryInput(content=t) for t in texts])
    ids = [memory.pk for memory in stored]

    def search() -> list[tuple[int, float]]:
        return keyword_search.keyword_search(
            agent,
            Memory.objects.filter(agent=agent),
            "kiwi mango papaya quince",
            limit=2,
            filtered=False,
        )

    exact = search()
    assert {memory_id for memory_id, _ in exact} == {ids[0], ids[1]}
    # Make this small agent take the large-agent path with every word counted as common,
    # and a pool of two per query so which memories get into it decides the result.
    monkeypatch.setattr(keyword_search, "FULL_MATCH_DOCUMENTS", 0)
    monkeypatch.setattr(keyword_search, "SELECTIVE_SHARE", 0.0)
    monkeypatch.setattr(keyword_search, "PG_BM25_POOL", 2)
    hits = search()
    # Before: after the one full match, the pool took the two newest holding the two rarest
    # words ("papaya quince"), and the memory holding three of the four was never scored.
    assert [memory_id for memory_id, _ in hits] == [memory_id for memory_id, _ in exact]
    assert [score for _, score in hits] == pytest.approx([score for _, score in exact])


def test_a_selective_word_chooses_the_candidates_and_every_word_scores(agent, monkeypatch):
    texts = [
        "quince tart with mango",  # the selective word and a common one
        "quince jam",
        *[f"mango smoothie number {i}" for i in range(12)],
    ]
    stored = store_memories(agent=agent, items=[MemoryInput(content=t) for t in texts])
    candidates = Memory.objects.filter(agent=agent)

    def search() -> list[tuple[int, float]]:
        return keyword_search.keyword_search(
            agent, candidates, "quince mango", limit=5, filtered=False
        )

    exact = search()
    # The large-agent path: quince (2 of 14) is selective, mango (13 of 14) is not.
    monkeypatch.setattr(keyword_search, "FULL_MATCH_DOCUMENTS", 0)
    monkeypatch.setattr(keyword_search, "SELECTIVE_SHARE", 0.2)
    quinces = {stored[0].pk, stored[1].pk}
    expected = [(memory_id, score) for memory_id, score in exact if memory_id in quinces]
    hits = search()
    assert [memory_id for memory_id, _ in hits] == [memory_id for memory_id, _ in expected]
    assert [score for _, score in hits] == pytest.approx([score for _, score in expected])


def large(monkeypatch):
    """Make a small agent take the large-agent path, every word counted as common."""
    monkeypatch.setattr(keyword_search, "FULL_MATCH_DOCUMENTS", 0)
    monkeypatch.setattr(keyword_search, "SELECTIVE_SHARE", 0.0)


def search(agent, text, limit=10):
    return keyword_search.keyword_search(
        agent, Memory.objects.filter(agent=agent), text, limit=limit, filtered=False
    )


def test_a_lone_common_word_scores_its_newest_matches_only(agent, monkeypatch):
    stored = store_memories(
        agent=agent, items=[MemoryInput(content=f"mango note {i}") for i in range(6)]
    )
    large(monkeypatch)
    monkeypatch.setattr(keyword_search, "NEWEST_MATCHES", 3)
    # The ticket number matches nothing: "mango" alone is left, in every memory.
    hits = search(agent, "mango 40213")
    assert {memory_id for memory_id, _ in hits} == {memory.pk for memory in stored[-3:]}


def test_a_word_no_memory_held_is_found_as_soon_as_one_does(agent, monkeypatch):
    store_memories(agent=agent, items=[MemoryInput(content=f"mango note {i}") for i in range(3)])
    large(monkeypatch)
    assert search(agent, "zanzibar") == []
    (trip,) = store_memories(agent=agent, items=[MemoryInput(content="a trip to Zanzibar")])
    # Document frequencies are kept between recalls, but not a word's absence.
    assert [memory_id for memory_id, _ in search(agent, "zanzibar")] == [trip.pk]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite's FTS5 weighs words over its whole index, every agent's alike",
)
def test_a_small_agent_weighs_words_by_its_own_memories_not_the_tables(agent, monkeypatch):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content=text)
            for text in ["mango tart", "quince tart", "mango smoothie", "pear cake"]
        ],
    )
    monkeypatch.setattr(keyword_stats, "_lexeme_shares", (time.monotonic(), {}))
    before = search(agent, "mango tart")
    # The table's statistics (ANALYZE's, every agent's memories together) say "tart" is in
    # 90% of the memories. Set here, not by ANALYZE: its row counts outlive the test's
    # transaction and would change the plans of the tests after it.
    monkeypatch.setattr(keyword_stats, "_lexeme_shares", (time.monotonic(), {"tart": 0.9}))
    after = search(agent, "mango tart")
    assert [memory_id for memory_id, _ in after] == [memory_id for memory_id, _ in before]
    assert [score for _, score in after] == pytest.approx([score for _, score in before])
