"""Recalls of the same memories at the same moment each count their access, and none fails:
on PostgreSQL the access update locks its rows in one order (memory.services.access)."""

import random
import threading

import pytest
from django.db import connection, connections
from django.db.models import F

from memory.models import Memory
from memory.services import MemoryInput, record_access, store_memories

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8
ROUNDS = 25


def test_concurrent_accesses_to_the_same_memories_all_count(agent):
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL only (SQLite has one writer at a time)")
    memories = store_memories(
        agent=agent, items=[MemoryInput(content=f"Note {n} about the tea order") for n in range(12)]
    )
    ids = [m.pk for m in memories]
    # Rows rewritten out of id order: their places on disk no longer follow their ids.
    for pk in reversed(ids):
        Memory.objects.filter(pk=pk).update(importance=F("importance"))
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def recall_often(seed: int) -> None:
        order = random.Random(seed)
        try:
            start.wait()
            for _ in range(ROUNDS):
                record_access(order.sample(ids, len(ids)))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=recall_often, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    counts = set(Memory.objects.filter(pk__in=ids).values_list("access_count", flat=True))
    assert counts == {THREADS * ROUNDS}
