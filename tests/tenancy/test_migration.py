"""An existing database moves to the tenancy app without losing a row.

The database is taken back to the schema before the move (memory 0012, facts 0003),
filled through the historical models as that schema knew them, and migrated forward;
every row is then found through today's models, with its links intact.
"""

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from facts.models import Fact
from memory.models import Memory, Session
from tenancy.models import Agent, ApiKey, AuditEvent, ErasureReceipt, Workspace, WorkspaceMember
from tenancy.receipts import user_digest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("memory", "0012_run_heartbeats"), ("facts", "0003_factsource_memory")]
MOMENT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _migrate(targets: list[tuple[str, str | None]]):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    nodes = [(app, name) for app, name in targets if name is not None]
    return executor.loader.project_state(nodes).apps


def _before_the_move() -> list[tuple[str, str | None]]:
    """Every other app at its latest, memory and facts before the move, no tenancy app."""
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    untouched = [leaf for leaf in leaves if leaf[0] not in {"memory", "facts", "tenancy"}]
    return [*untouched, *BEFORE, ("tenancy", None)]


def _populate(old) -> dict[str, Any]:
    """Rows of every moved model, and rows of other apps that point at them."""
    user = old.get_model("auth", "User").objects.create(username="dana", is_active=True)
    workspace = old.get_model("memory", "Workspace").objects.create(slug="acme", name="Acme")
    old.get_model("memory", "WorkspaceMember").objects.create(
        user=user, workspace=workspace, role="manager"
    )
    agent = old.get_model("memory", "Agent").objects.create(
        agent_id="support-bot", workspace=workspace, memory_policy={"ttl_seconds": 60}
    )
    key = old.get_model("memory", "ApiKey").objects.create(
        workspace=workspace, name="ci", prefix="dw_abcdefg", key_hash="f" * 64
    )
    event = old.get_model("memory", "AuditEvent").objects.create(
        workspace=workspace,
        agent=agent,
        actor="operator:dana",
        action="fact.delete",
        target_type="fact",
        target_id="7",
    )
    receipt = old.get_model("memory", "ErasureReceipt").objects.create(
        workspace=workspace,
        agent=agent,
        agent_ref="support-bot",
        scope={"user": "u1"},
        counts={"facts": 2},
        actor="operator:dana",
    )
    session = old.get_model("memory", "Session").objects.create(agent=agent, user_ref="u1")
    memory = old.get_model("memory", "Memory").objects.create(
        agent=agent,
        session=session,
        content="Lives in Lisbon",
        created_at=MOMENT,
        updated_at=MOMENT,
    )
    fact = old.get_model("facts", "Fact").objects.create(
        agent=agent,
        user_ref="u1",
        subject="user",
        predicate="city",
        value="Lisbon",
        status="current",
        recorded_at=MOMENT,
        last_confirmed_at=MOMENT,
    )
    # A permission granted on an old model: it must still be the same grant afterwards.
    content_types = old.get_model("contenttypes", "ContentType")
    agent_type, _ = content_types.objects.get_or_create(app_label="memory", model="agent")
    permission, _ = old.get_model("auth", "Permission").objects.get_or_create(
        content_type=agent_type, codename="change_agent", defaults={"name": "Can change agent"}
    )
    user.user_permissions.add(permission)
    return {
        "user": user.pk,
        "workspace": workspace.pk,
        "agent": agent.pk,
        "key": key.pk,
        "event": event.pk,
        "session": session.pk,
        "memory": memory.pk,
        "fact": fact.pk,
        "permission": permission.pk,
        "receipt": receipt.pk,
    }


def test_a_database_at_the_previous_schema_keeps_every_row_after_the_move():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        ids = _populate(_migrate(_before_the_move()))
    finally:
        _migrate(latest)

    workspace = Workspace.objects.get(pk=ids["workspace"])
    assert (workspace.slug, workspace.name) == ("acme", "Acme")
    member = WorkspaceMember.objects.get(workspace=workspace)
    assert (member.user_id, member.role) == (ids["user"], "manager")
    agent = Agent.objects.get(pk=ids["agent"])
    assert (agent.agent_id, agent.workspace_id, agent.memory_policy) == (
        "support-bot",
        workspace.pk,
        {"ttl_seconds": 60},
    )
    assert ApiKey.objects.get(pk=ids["key"]).workspace_id == workspace.pk
    event = AuditEvent.objects.get(pk=ids["event"])
    assert (event.agent_id, event.action, event.target_id) == (agent.pk, "fact.delete", "7")
    receipt = ErasureReceipt.objects.get(pk=ids["receipt"])
    assert (receipt.agent_id, receipt.counts) == (agent.pk, {"facts": 2})
    # Receipts written with the user in clear hold only its keyed hash now.
    assert receipt.scope == {"user_hmac": user_digest("u1")}

    # Other apps' rows still reach the moved ones, both ways.
    assert Session.objects.get(pk=ids["session"]).agent == agent
    assert list(agent.memories.values_list("pk", flat=True)) == [ids["memory"]]
    assert Memory.objects.get(pk=ids["memory"]).session_id == ids["session"]
    assert list(agent.facts.values_list("pk", flat=True)) == [ids["fact"]]
    assert Fact.objects.get(pk=ids["fact"]).value == "Lisbon"

    # The old grant is now a grant on the tenancy model, not a stale one beside a new one.
    permission = Permission.objects.get(pk=ids["permission"])
    assert permission.content_type.app_label == "tenancy"
    user = get_user_model().objects.get(pk=ids["user"])
    assert user.has_perm("tenancy.change_agent")

    # The tables kept their names, and new rows keep counting from the old ones.
    assert Agent._meta.db_table == "memory_agent"
    newer = Agent.objects.create(agent_id="newer", workspace=workspace)
    assert newer.pk > agent.pk
