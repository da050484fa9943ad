"""The default way a store's graph is built: the worker's job, queued by the store in its own
transaction (DEWEE_GRAPH_ON_STORE=worker), one job per agent however many stores come in."""

import pytest
from django.db import transaction
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from memory.models import EdgeType, Entity, EntityMention, GraphProgress, Memory, MemoryEdge
from memory.services import MemoryInput, rebuild_graph, store_memories
from memory.services.graph_rebuild import build_pending_graph
from memory.tasks import build_graph

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _graph_in_the_worker(settings):
    settings.DEWEE_GRAPH_ON_STORE = "worker"


def jobs():
    return [
        job
        for job in (SignedPackage.loads(q.payload) for q in OrmQ.objects.order_by("id"))
        if job["func"] == "memory.tasks.build_graph"
    ]


def run_jobs():
    """What the worker does: each queued graph job, as it would take them."""
    queued = jobs()
    OrmQ.objects.all().delete()
    return [build_graph(*job["args"]) for job in queued]


def graph(agent):
    return (
        {(e.type, e.key, e.mention_count) for e in Entity.objects.filter(agent=agent)},
        set(MemoryEdge.objects.filter(agent=agent).values_list("source", "target", "type")),
    )


def store(agent, *texts, **fields):
    return store_memories(agent=agent, items=[MemoryInput(content=t, **fields) for t in texts])


def test_the_worker_builds_what_the_store_left_as_an_inline_store_would(agent, session):
    first, second = store(
        agent,
        "Caroline: I moved to Boston",
        "Melanie: How is Boston, Caroline?",
        session_id=session.pk,
    )
    # The store wrote no graph: it queued the agent's job.
    assert not Entity.objects.filter(agent=agent).exists()
    assert [job["args"] for job in jobs()] == [(agent.pk,)]
    assert run_jobs() == [{"memories": 2, "more": False}]
    built = graph(agent)
    assert ("place", "boston", 2) in built[0]
    assert (first.pk, second.pk, EdgeType.PRECEDES) in built[1]
    # The same graph as a rebuild makes, by the code an inline store runs.
    rebuild_graph(agent=agent)
    assert graph(agent) == built


def test_many_stores_queue_one_job_and_a_store_after_it_started_queues_the_next(agent):
    for text in ("Priya lives in Oslo", "Ana lives in Oslo", "Priya met Ana"):
        store(agent, text)
    assert len(jobs()) == 1
    OrmQ.objects.all().delete()
    # The job clears the flag before it reads: a store from then on queues a new job.
    done = build_pending_graph(agent=agent)
    assert done.memories == 3
    store(agent, "Ana moved to Bergen")
    assert len(jobs()) == 1
    assert run_jobs() == [{"memories": 1, "more": False}]
    assert GraphProgress.objects.get(agent=agent).built_through == Memory.objects.latest("id").pk


def test_a_job_run_twice_builds_the_graph_once(agent):
    store(agent, "Priya met Ana in Lisbon")
    run_jobs()
    once = graph(agent)
    build_graph(agent.pk)
    assert graph(agent) == once
    # Nothing left: the second run builds nothing.
    assert build_pending_graph(agent=agent).memories == 0


def test_a_long_catch_up_hands_over_to_a_new_job(agent, monkeypatch):
    from memory.services import graph_rebuild

    # Batches of two, one batch per job.
    monkeypatch.setattr(graph_rebuild, "JOB_BATCH", 2)
    monkeypatch.setattr(graph_rebuild, "JOB_BATCHES", 1)
    store(agent, *[f"I met Priya, visit {i}" for i in range(5)])
    assert run_jobs() == [{"memories": 2, "more": True}]
    assert run_jobs() == [{"memories": 2, "more": True}]
    assert run_jobs() == [{"memories": 1, "more": False}]
    assert run_jobs() == []
    assert EntityMention.objects.filter(agent=agent).values("memory").distinct().count() == 5


def test_memories_stored_before_the_graph_are_built_by_the_first_job(agent, settings):
    settings.DEWEE_GRAPH_ON_STORE = "off"
    (old,) = store(agent, "Priya lives in Oslo")
    settings.DEWEE_GRAPH_ON_STORE = "worker"
    (new,) = store(agent, "Ana lives in Oslo")
    run_jobs()
    mentioned = set(EntityMention.objects.values_list("memory_id", flat=True))
    assert {old.pk, new.pk} <= mentioned


def test_a_store_that_rolls_back_queues_nothing(agent):
    def store_then_fail() -> None:
        with transaction.atomic():
            store(agent, "Priya lives in Oslo")
            raise RuntimeError("the caller fails after the store")

    with pytest.raises(RuntimeError):
        store_then_fail()
    assert not Memory.objects.filter(agent=agent).exists()
    assert not OrmQ.objects.exists()
    assert not GraphProgress.objects.filter(agent=agent, queued=True).exists()


def test_memories_deleted_before_the_job_runs_are_skipped(agent):
    kept, gone = store(agent, "Priya lives in Oslo", "Ana in Oslo")
    Memory.objects.filter(pk=gone.pk).delete()
    assert run_jobs() == [{"memories": 1, "more": False}]
    assert set(EntityMention.objects.values_list("memory_id", flat=True)) == {kept.pk}


def test_a_job_for_an_erased_agent_does_nothing(agent):
    store(agent, "Priya lives in Oslo")
    agent_pk = agent.pk
    agent.delete()
    assert build_graph(agent_pk) == {"skipped": "agent no longer exists"}


def test_an_unknown_setting_stops_the_server_from_starting(settings):
    from memory.services.graph import check_graph_setting

    settings.DEWEE_GRAPH_ON_STORE = "later"
    (error,) = check_graph_setting()
    assert error.id == "dewee.E111"
    settings.DEWEE_GRAPH_ON_STORE = "worker"
    assert check_graph_setting() == []
