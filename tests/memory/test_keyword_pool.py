"""PostgreSQL keyword search on a large agent whose query words are all common: the pool
ranked with BM25 widens one lexeme at a time, commonest dropped first."""

import pytest
from django.db import connection

from memory.models import Memory
from memory.recall import keyword_search
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db


def test_memories_missing_only_the_commonest_word_rank_before_those_missing_two(agent, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("the large-agent pool is PostgreSQL's; SQLite ranks every FTS5 match")
    # Make this small agent take the large-agent path with every word counted as common,
    # and a pool of two per query so which memories get into it decides the result.
    monkeypatch.setattr(keyword_search, "FULL_MATCH_DOCUMENTS", 0)
    monkeypatch.setattr(keyword_search, "SELECTIVE_SHARE", 0.0)
    monkeypatch.setattr(keyword_search, "PG_BM25_POOL", 2)
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
    hits = keyword_search.keyword_search(
        agent,
        Memory.objects.filter(agent=agent),
        "kiwi mango papaya quince",
        limit=2,
        filtered=False,
    )
    # Before: after the one full match, the pool took the two newest holding the two rarest
    # words ("papaya quince"), and the memory holding three of the four was never scored.
    assert [memory_id for memory_id, _ in hits] == [ids[0], ids[1]]
