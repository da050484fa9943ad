"""A merge and a graph build of one agent take turns (memory.services.graph.lock_agent_graph),
so that they cannot deadlock over memories, edges and entities on PostgreSQL. Shown
deterministically: while one holds the agent's graph lock, the other is seen waiting for it
in pg_locks, and goes on once the lock is released."""

import threading

import pytest
from django.db import connection, connections, transaction

from memory.models import Memory
from memory.services import MemoryInput, store_memories
from memory.services.graph import GRAPH_LOCK_CLASS, lock_agent_graph
from memory.services.graph_rebuild import build_stored_graph
from memory.services.merging import consolidate_memories

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="SQLite serialises writers; no advisory locks"
    ),
]


def _waiting_for_graph_lock(agent_pk: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND classid = %s AND objid = %s",
            [GRAPH_LOCK_CLASS, agent_pk],
        )
        return cursor.fetchone()[0] > 0


def _in_thread(work):
    outcome: dict[str, object] = {}

    def run():
        try:
            outcome["result"] = work()
        except Exception as exc:  # the test reads it
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _wait_until(condition, seconds: float = 20.0) -> bool:
    deadline = threading.Event()
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        deadline.wait(0.05)
    return False


@pytest.mark.parametrize("second", ["merge", "graph build"])
def test_a_merge_and_a_graph_build_of_one_agent_take_turns(agent, second):
    stored = store_memories(
        agent=agent,
        items=[MemoryInput(content=f"Ana met Bruno in Porto, note {n}") for n in range(3)],
    )
    ids = [m.pk for m in stored]
    holding, release = threading.Event(), threading.Event()

    def first():
        # What a graph build (or a merge) does first in its transaction.
        with transaction.atomic():
            lock_agent_graph(agent)
            holding.set()
            release.wait(30)

    def other():
        if second == "merge":
            return consolidate_memories(agent=agent, memory_ids=ids[:2], actor="test").pk
        return build_stored_graph(agent=agent, memory_ids=ids)

    holder, _ = _in_thread(first)
    assert holding.wait(20)
    waiter, outcome = _in_thread(other)
    try:
        assert _wait_until(lambda: _waiting_for_graph_lock(agent.pk)), "it did not wait"
        assert waiter.is_alive()
        assert not outcome
    finally:
        release.set()
        holder.join(30)
        waiter.join(60)
    assert "error" not in outcome, outcome.get("error")
    if second == "merge":
        assert Memory.objects.filter(pk=outcome["result"]).exists()
        assert not Memory.objects.filter(pk__in=ids[:2]).exists()
    else:
        assert outcome["result"] == 3
