"""Workspaces and new agents in the Django admin: an agent is added through create_agent,
and a workspace is not deleted there (its audit log would go with it)."""

import json

import pytest

from tenancy import admin as tenancy_admin
from tenancy.models import Agent, ApiKey, AuditAction, AuditEvent, Workspace
from tests.factories import make_agent, make_key, make_workspace

pytestmark = pytest.mark.django_db
AGENTS = "/admin/tenancy/agent/"
WORKSPACES = "/admin/tenancy/workspace/"


def new_agent(workspace, agent_id, **fields):
    return {
        "workspace": workspace.pk,
        "agent_id": agent_id,
        "name": "",
        "metadata": "{}",
        "memory_policy": "{}",
        **fields,
    }


def test_an_agent_added_in_the_admin_is_created_by_the_service(
    admin_client, admin_user, workspace, monkeypatch
):
    calls = []
    create_agent = tenancy_admin.create_agent

    def spy(**kwargs):
        calls.append(kwargs)
        return create_agent(**kwargs)

    monkeypatch.setattr(tenancy_admin, "create_agent", spy)
    assert 'name="memory_version"' not in admin_client.get(f"{AGENTS}add/").content.decode()
    policy = {"base_interval_seconds": 60}
    added = admin_client.post(
        f"{AGENTS}add/",
        new_agent(
            workspace,
            "helpdesk",
            name="Help desk",
            metadata='{"team": "support"}',
            memory_policy=json.dumps(policy),
        ),
    )
    assert added.status_code == 302
    agent = Agent.objects.get(agent_id="helpdesk")
    assert calls == [
        {
            "workspace": workspace,
            "agent_id": "helpdesk",
            "name": "Help desk",
            "metadata": {"team": "support"},
        }
    ]
    assert (agent.workspace, agent.name, agent.metadata) == (
        workspace,
        "Help desk",
        {"team": "support"},
    )
    assert agent.memory_policy == policy
    event = AuditEvent.objects.get(action=AuditAction.POLICY_CHANGE)
    assert (event.agent_id, event.actor) == (agent.pk, f"operator:{admin_user.username}")
    assert added["Location"] == AGENTS


def test_a_new_agents_metadata_must_be_an_object(admin_client, workspace):
    refused = admin_client.post(f"{AGENTS}add/", new_agent(workspace, "helpdesk", metadata="[1]"))
    assert refused.status_code == 200
    assert "must be an object" in refused.content.decode()
    assert not Agent.objects.filter(agent_id="helpdesk").exists()


def test_a_new_agent_id_is_checked_on_the_form(admin_client, workspace):
    make_agent(workspace, "taken")
    refused = admin_client.post(f"{AGENTS}add/", new_agent(workspace, "a/b"))
    assert refused.status_code == 200
    assert "must not contain &#x27;/&#x27;" in refused.content.decode()
    refused = admin_client.post(f"{AGENTS}add/", new_agent(workspace, "taken"))
    assert refused.status_code == 200
    assert "This workspace already has an agent with this id." in refused.content.decode()
    assert list(Agent.objects.values_list("agent_id", flat=True)) == ["taken"]
    # Ids are unique per workspace: another workspace may have its own "taken".
    other = make_workspace("globex")
    added = admin_client.post(f"{AGENTS}add/", new_agent(other, "taken"))
    assert added.status_code == 302
    assert sorted(Agent.objects.values_list("workspace__slug", "agent_id")) == [
        ("acme", "taken"),
        ("globex", "taken"),
    ]


def test_the_admin_does_not_delete_workspaces_and_says_how_to_empty_one(admin_client):
    workspace = make_workspace("initech")
    make_key(workspace)
    delete = f"{WORKSPACES}{workspace.pk}/delete/"
    assert admin_client.get(delete).status_code == 403
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert "delete_selected" not in admin_client.get(WORKSPACES).content.decode()
    bulk = admin_client.post(
        WORKSPACES,
        {"action": "delete_selected", "_selected_action": [workspace.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert Workspace.objects.filter(pk=workspace.pk).exists()
    assert ApiKey.objects.filter(workspace=workspace).exists()
    assert AuditEvent.objects.filter(workspace=workspace, action=AuditAction.KEY_CREATE).exists()
    page = admin_client.get(f"{WORKSPACES}{workspace.pk}/change/").content.decode()
    assert "Workspaces are not deleted here" in page
    assert "dewee keys revoke" in page
