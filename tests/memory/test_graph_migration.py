"""memory 0016 (speaker, entities, mentions, edges) on a database with memories: reversible,
rows untouched, and the keyword index still finds old and new memories on SQLite, where a
table rebuild would have dropped its triggers."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from memory.models import Entity, Memory
from memory.recall import RecallRequest, recall
from memory.services import MemoryInput, rebuild_graph, store_memories
from tenancy.models import Agent

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("memory", "0015_fact_freshness_job")
MOMENT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    executor.loader.build_graph()
    return executor.loader.project_state([target]).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes("memory")[0]


def _keyword(agent, query):
    result = recall(agent=agent, request=RecallRequest(query=query, routing="keyword"))
    return [hit.memory.content for hit in result.hits]


def test_the_migration_keeps_memories_and_their_keyword_index_both_ways(agent):
    latest = _latest()
    old = _migrate(BEFORE)
    old.get_model("memory", "Memory").objects.create(
        agent_id=agent.pk,
        content="Caroline: the zeppelin tour was great",
        created_at=MOMENT,
        updated_at=MOMENT,
    )
    _migrate(latest)
    agent = Agent.objects.get(pk=agent.pk)
    (stored,) = Memory.objects.filter(agent=agent)
    assert stored.speaker is None
    assert _keyword(agent, "zeppelin") == ["Caroline: the zeppelin tour was great"]
    store_memories(agent=agent, items=[MemoryInput(content="Melanie: a zeppelin museum too")])
    assert len(_keyword(agent, "zeppelin")) == 2
    rebuild_graph(agent=agent)
    assert {e.key for e in Entity.objects.filter(agent=agent, type="person")} == {
        "caroline",
        "melanie",
    }
    _migrate(BEFORE)
    _migrate(latest)
    agent = Agent.objects.get(pk=agent.pk)
    assert len(_keyword(agent, "zeppelin")) == 2
