"""A memory's delete and the worker's graph job of its agent take turns: the delete never
fails because the job just wrote an edge to the memory, and the job never fails because the
memory it links to was deleted meanwhile (memory.services.erasure.erase_memories and
memory.services.graph.lock_agent_graph).

The PostgreSQL tests force each interleaving with real database connections in threads, the
order set by the test: a third connection holding the memory's row, a delete held open before
its commit, and pg_blocking_pids to see who waits for whom. The last test runs deletes
through the REST API while the job builds, on both editions."""

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections, transaction

from memory.models import EdgeType, GraphProgress, Memory, MemoryEdge
from memory.services import MemoryInput, delete_memory, store_memories
from memory.tasks import build_graph
from tests.conftest import ApiClient
from tests.factories import make_key

pytestmark = pytest.mark.django_db(transaction=True)

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row locks held across connections: SQLite's single writer serialises these",
)


@pytest.fixture(autouse=True)
def _graph_in_the_worker(settings):
    settings.DEWEE_GRAPH_ON_STORE = "worker"


def _in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except Exception as exc:  # the test reads it
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _wait_until(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    pause = threading.Event()
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        pause.wait(0.05)
    return False


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _blocked_by(pid: int) -> list[int]:
    """The backends waiting for a lock that ``pid`` holds (or waits for ahead of them)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [pid]
        )
        return [int(row[0]) for row in cursor.fetchall()]


def _dangling_edges() -> int:
    alive = Memory.objects.values("pk")
    return (
        MemoryEdge.objects.exclude(source_id__in=alive).count()
        + MemoryEdge.objects.exclude(target_id__in=alive).count()
    )


def _built_and_pending(agent) -> tuple[Memory, Memory]:
    """An older memory whose graph is built, and the next turn of its conversation, stored
    since: the agent's graph job will link the older one to it (``precedes``). They name no
    entity, so that the job and the delete meet on the memory's row alone, not on an
    entity's."""
    older = store_memories(
        agent=agent, items=[MemoryInput(content="the kettle is broken again", user="u1")]
    )[0]
    assert build_graph(agent.pk) == {"memories": 1, "more": False}
    newer = store_memories(
        agent=agent, items=[MemoryInput(content="and the toaster too, sadly", user="u1")]
    )[0]
    assert GraphProgress.objects.get(agent=agent).built_through == older.pk
    return older, newer


@postgresql_only
def test_a_delete_is_not_failed_by_an_edge_the_graph_job_commits_to_its_memory(agent):
    """The 500 of the issue. A third connection holds the older memory's row (FOR KEY SHARE,
    as the foreign key check of another edge's insert does), so the REST delete is seen
    waiting for that row (pg_blocking_pids) at whatever point of its transaction it needs it.
    Then the graph job of the agent starts, and the test waits until it has either finished
    (its edge to the memory committed) or is itself seen waiting behind the delete. Only then
    is the row released. Without the two taking turns, the delete had read the memory's
    edges before the job's edge existed and failed on its foreign key at commit (or the job
    failed on it, whichever PostgreSQL let through first)."""
    older, newer = _built_and_pending(agent)
    api = ApiClient(make_key(agent.workspace))
    holding, release = threading.Event(), threading.Event()
    holder_pid: list[int] = []

    def hold_the_row() -> None:
        with transaction.atomic():
            holder_pid.append(_backend_pid())
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT id FROM memory_memory WHERE id = %s FOR KEY SHARE", [older.pk]
                )
            holding.set()
            release.wait(60)

    holder, held = _in_thread(hold_the_row)
    try:
        assert holding.wait(20)
        deleter, deleted = _in_thread(lambda: api.delete(f"/v1/memories/{older.pk}"))
        assert _wait_until(lambda: bool(_blocked_by(holder_pid[0]))), "the delete did not wait"
        (deleter_pid,) = _blocked_by(holder_pid[0])
        builder, built = _in_thread(lambda: build_graph(agent.pk))
        assert _wait_until(lambda: not builder.is_alive() or bool(_blocked_by(deleter_pid)))
    finally:
        release.set()
        holder.join(30)
    deleter.join(60)
    builder.join(60)
    assert "error" not in held, held.get("error")
    assert "error" not in deleted, deleted.get("error")
    assert deleted["result"].status_code == 200, deleted["result"].content
    assert "error" not in built, built.get("error")
    assert built["result"] == {"memories": 1, "more": False}
    assert not Memory.objects.filter(pk=older.pk).exists()
    assert _dangling_edges() == 0
    assert GraphProgress.objects.get(agent=agent).built_through == newer.pk


@postgresql_only
def test_a_graph_job_is_not_failed_by_a_delete_of_a_memory_it_links_to(agent):
    """The other way round. The delete runs through the service in a transaction the test
    holds open after the delete, before its commit; then the graph job of the agent starts,
    and is seen waiting behind the delete (pg_blocking_pids) before the delete may commit.
    Without the two taking turns, the job had read the memory as alive, linked its new turn
    to it, and failed on the edge's foreign key once the delete committed."""
    older, newer = _built_and_pending(agent)
    deleting, commit = threading.Event(), threading.Event()
    deleter_pid: list[int] = []

    def delete_and_hold() -> dict[str, int]:
        with transaction.atomic():
            deleter_pid.append(_backend_pid())
            counts = delete_memory(memory=older, actor="test")
            deleting.set()
            commit.wait(60)
        return counts

    deleter, deleted = _in_thread(delete_and_hold)
    try:
        assert deleting.wait(20)
        builder, built = _in_thread(lambda: build_graph(agent.pk))
        assert _wait_until(lambda: bool(_blocked_by(deleter_pid[0]))), "the job did not wait"
        assert builder.is_alive()
    finally:
        commit.set()
        deleter.join(60)
    builder.join(60)
    assert "error" not in deleted, deleted.get("error")
    assert deleted["result"]["memories"] == 1
    assert "error" not in built, built.get("error")
    assert built["result"] == {"memories": 1, "more": False}
    assert not Memory.objects.filter(pk=older.pk).exists()
    assert _dangling_edges() == 0
    # The new turn's graph was built without the memory that went.
    assert not MemoryEdge.objects.filter(target=newer, type=EdgeType.PRECEDES).exists()
    assert GraphProgress.objects.get(agent=agent).built_through == newer.pk


def _deletes_while_the_job_builds(agent, api_key: str, round_: int) -> None:
    texts = ["Ana met Bruno in Porto", "Bruno works at Acme in Lisbon", "Ana visited Acme"]
    stored = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"{texts[n % 3]}, note {round_}-{n}", user="u1") for n in range(24)
        ],
    )
    # The older ones are those the newer link to; each client deletes two of them.
    doomed = [m.pk for m in stored[:16]]
    start = threading.Barrier(9)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def delete(ids: list[int]) -> None:
        try:
            client = ApiClient(api_key)
            start.wait(30)
            for pk in ids:
                statuses.append(client.delete(f"/v1/memories/{pk}").status_code)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    def build() -> dict[str, object]:
        start.wait(30)
        return build_graph(agent.pk)

    builder, built = _in_thread(build)
    clients = [threading.Thread(target=delete, args=(doomed[n::8],)) for n in range(8)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(120)
    builder.join(120)
    assert not errors, errors
    assert statuses == [200] * 16
    assert "error" not in built, built.get("error")
    assert built["result"]["more"] is False
    assert not Memory.objects.filter(pk__in=doomed).exists()
    assert _dangling_edges() == 0
    assert GraphProgress.objects.get(agent=agent).built_through == stored[-1].pk


def test_deletes_through_the_api_while_the_graph_job_builds(agent):
    """Eight clients delete memories of the agent through the REST API while its graph job
    builds the ones stored since the last build, three times over: every delete answers
    200, the job never fails, and no edge is left at a deleted memory."""
    api_key = make_key(agent.workspace)
    for round_ in range(3):
        _deletes_while_the_job_builds(agent, api_key, round_)
