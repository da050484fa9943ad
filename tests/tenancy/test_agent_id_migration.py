"""tenancy 0006 (agent ids unique per workspace instead of across the deployment) on a
database with agents and memories: every row kept as it was, memories still found by
keyword (SQLite rebuilds the agent table), reversible while ids are still unique across
workspaces, and afterwards two workspaces may use one id."""

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from memory.recall import RecallRequest, recall
from tenancy.models import Agent, Workspace
from tests.factories import make_agent

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("tenancy", "0005_person_erasure_and_hashed_receipt_users")
MOMENT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def _keyword(agent, query):
    result = recall(agent=agent, request=RecallRequest(query=query, routing="keyword"))
    return [hit.memory.content for hit in result.hits]


def test_the_migration_keeps_every_agent_and_lets_workspaces_share_an_id():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate([BEFORE])
        workspaces = old.get_model("tenancy", "Workspace").objects
        acme, globex = workspaces.create(slug="acme"), workspaces.create(slug="globex")
        agents = old.get_model("tenancy", "Agent").objects
        bot = agents.create(
            agent_id="support-bot",
            workspace=acme,
            name="Support",
            metadata={"team": "care"},
            memory_policy={"ttl_seconds": 60},
            memory_version=3,
        )
        agents.create(agent_id="globex-bot", workspace=globex)
        old.get_model("memory", "Memory").objects.create(
            agent_id=bot.pk,
            content="the zeppelin tour was great",
            created_at=MOMENT,
            updated_at=MOMENT,
        )
        # The old schema refuses one id in two workspaces.
        with pytest.raises(IntegrityError), transaction.atomic():
            agents.create(agent_id="support-bot", workspace=globex)
        before = list(agents.order_by("pk").values())
    finally:
        _migrate(latest)

    assert list(Agent.objects.order_by("pk").values()) == before
    support = Agent.objects.get(agent_id="support-bot")
    assert _keyword(support, "zeppelin") == ["the zeppelin tour was great"]

    # Back and forth while every id is still unique across workspaces.
    _migrate([BEFORE])
    _migrate(latest)
    assert list(Agent.objects.order_by("pk").values()) == before

    twin = make_agent(Workspace.objects.get(slug="globex"), "support-bot")
    assert twin.pk != support.pk
    with pytest.raises(IntegrityError), transaction.atomic():
        Agent.objects.create(agent_id="support-bot", workspace=support.workspace)
