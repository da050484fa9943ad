"""Twenty writers at once against a hard quota of N: exactly N memories are stored and every
other writer is told quota_exceeded, on both editions (SQLite: IMMEDIATE transactions;
PostgreSQL: the quota rows locked FOR UPDATE)."""

import threading

import pytest
from django.db import connection

from memory.exceptions import QuotaExceeded
from memory.models import Memory
from memory.services import MemoryInput, store_memories
from tenancy.models import Agent
from tenancy.quotas import QuotaLimit, set_quotas
from tests.factories import make_agent, make_workspace

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 20
LIMIT = 7


def hammer(agents: list[Agent]) -> tuple[int, list[Exception]]:
    """Each of THREADS writers stores one memory into agents[i % len(agents)], all released
    at once; how many were stored, and what the others raised."""
    barrier = threading.Barrier(THREADS)
    stored, errors = [], []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            agent = agents[i % len(agents)]
            store_memories(agent=agent, items=[MemoryInput(content=f"turn {i} of a busy client")])
            stored.append(i)
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return len(stored), errors


def test_twenty_writers_against_an_agent_quota_leave_exactly_the_limit():
    agent = make_agent(make_workspace(), "busy")
    set_quotas(
        workspace=agent.workspace,
        agent=agent,
        limits={"memories": QuotaLimit(LIMIT)},
        actor="test",
    )
    stored, errors = hammer([agent])
    assert stored == LIMIT
    assert len(errors) == THREADS - LIMIT
    assert all(isinstance(e, QuotaExceeded) for e in errors), errors
    assert Memory.objects.filter(agent=agent).count() == LIMIT


def test_twenty_writers_of_four_agents_against_a_workspace_quota_leave_exactly_the_limit():
    workspace = make_workspace()
    agents = [make_agent(workspace, f"busy-{n}") for n in range(4)]
    set_quotas(workspace=workspace, limits={"memories": QuotaLimit(LIMIT)}, actor="test")
    stored, errors = hammer(agents)
    assert stored == LIMIT
    assert all(isinstance(e, QuotaExceeded) for e in errors), errors
    assert Memory.objects.filter(agent__workspace=workspace).count() == LIMIT
