"""Renaming an agent goes through rename_agent, in the admin too: it is audited, and API
keys limited to the agent's old id follow it to the new one (and no longer reach anything
by the old id)."""

import json
import unicodedata

import pytest

from tenancy.exceptions import AgentExists, InvalidAgentId
from tenancy.models import Agent, ApiKey, AuditAction, AuditEvent
from tenancy.services import rename_agent
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, make_workspace

pytestmark = pytest.mark.django_db
AGENTS = "/admin/tenancy/agent/"


def change_form(agent, **fields):
    # With what the page held before its internal fields became read-only (ignored now).
    return {
        "workspace": agent.workspace_id,
        "memory_version": str(agent.memory_version),
        "embedding_model": agent.embedding_model,
        "embedding_dim": "",
        "agent_id": agent.agent_id,
        "name": agent.name,
        "metadata": json.dumps(agent.metadata),
        "memory_policy": json.dumps(agent.memory_policy),
        **fields,
    }


def agent_ids(key_name):
    return ApiKey.objects.get(name=key_name).agent_ids


def test_a_rename_in_the_admin_is_audited_with_the_old_and_new_id(admin_client, admin_user, agent):
    saved = admin_client.post(
        f"{AGENTS}{agent.pk}/change/", change_form(agent, agent_id="helpdesk")
    )
    assert saved.status_code == 302
    assert Agent.objects.get(pk=agent.pk).agent_id == "helpdesk"
    event = AuditEvent.objects.get(action=AuditAction.AGENT_RENAME)
    assert event.actor == f"operator:{admin_user.username}"
    assert (event.agent_id, event.target_type) == (agent.pk, "agent")
    assert event.details["before"] == "support-bot"
    assert event.details["after"] == "helpdesk"


def test_a_key_limited_to_the_agent_follows_it_to_its_new_id(admin_client, workspace, agent):
    limited = ApiClient(make_key(workspace, name="limited", agent_ids=["support-bot", "other"]))
    assert limited.get("/v1/agents/support-bot").status_code == 200
    saved = admin_client.post(
        f"{AGENTS}{agent.pk}/change/", change_form(agent, agent_id="helpdesk")
    )
    assert saved.status_code == 302
    assert agent_ids("limited") == ["helpdesk", "other"]
    assert limited.get("/v1/agents/helpdesk").json()["agent_id"] == "helpdesk"
    assert limited.get("/v1/agents/support-bot").status_code == 404
    # Nor does the old id reach an agent created under it later.
    make_agent(workspace, "support-bot")
    assert limited.get("/v1/agents/support-bot").status_code == 404
    key_event = AuditEvent.objects.get(action=AuditAction.KEY_UPDATE)
    assert key_event.details["changes"] == {
        "agents": [["support-bot", "other"], ["helpdesk", "other"]]
    }
    rename = AuditEvent.objects.get(action=AuditAction.AGENT_RENAME)
    assert rename.details["keys_moved"] == [ApiKey.objects.get(name="limited").pk]


def test_other_keys_and_other_workspaces_keys_are_left_alone(workspace, agent):
    make_key(workspace, name="everything")
    make_key(workspace, name="elsewhere", agent_ids=["other"])
    globex = make_workspace("globex")
    make_agent(globex, "support-bot")
    make_key(globex, name="globex's", agent_ids=["support-bot"])
    rename_agent(agent=agent, agent_id="helpdesk", actor="test")
    assert agent_ids("everything") == []
    assert agent_ids("elsewhere") == ["other"]
    assert agent_ids("globex's") == ["support-bot"]
    assert not AuditEvent.objects.filter(action=AuditAction.KEY_UPDATE).exists()


def test_a_key_already_naming_the_new_id_is_listed_in_the_event(workspace, agent):
    make_key(workspace, name="waiting", agent_ids=["helpdesk"])
    rename_agent(agent=agent, agent_id="helpdesk", actor="test")
    event = AuditEvent.objects.get(action=AuditAction.AGENT_RENAME)
    assert event.details["keys_gained"] == [ApiKey.objects.get(name="waiting").pk]
    assert event.details["keys_moved"] == []


def test_a_key_naming_the_old_id_in_another_normal_form_follows_too(workspace):
    nfd = unicodedata.normalize("NFD", "café")
    agent = Agent.objects.create(workspace=workspace, agent_id=nfd)  # stored before NFC
    # As a key limited before ids were normalised may name it.
    ApiKey.objects.create(
        workspace=workspace,
        name="accented",
        prefix="dw_x",
        key_hash="0" * 64,
        agent_ids=[unicodedata.normalize("NFC", "café")],
    )
    rename_agent(agent=agent, agent_id="cafe", actor="test")
    assert agent_ids("accented") == ["cafe"]


def test_a_rename_is_checked_as_a_new_id_and_must_be_free(workspace, agent):
    make_agent(workspace, "taken")
    make_key(workspace, name="limited", agent_ids=["support-bot"])
    with pytest.raises(InvalidAgentId):
        rename_agent(agent=agent, agent_id="team/bot", actor="test")
    with pytest.raises(AgentExists):
        rename_agent(agent=agent, agent_id="taken", actor="test")
    assert Agent.objects.get(pk=agent.pk).agent_id == "support-bot"
    assert agent_ids("limited") == ["support-bot"]
    assert not AuditEvent.objects.filter(action=AuditAction.AGENT_RENAME).exists()


def test_a_taken_id_is_refused_on_the_admin_form(admin_client, workspace, agent):
    Agent.objects.create(workspace=workspace, agent_id=unicodedata.normalize("NFD", "café"))
    refused = admin_client.post(f"{AGENTS}{agent.pk}/change/", change_form(agent, agent_id="café"))
    assert refused.status_code == 200
    assert "already has an agent with this id" in refused.content.decode()
    assert Agent.objects.get(pk=agent.pk).agent_id == "support-bot"


def test_other_changes_in_the_admin_are_no_rename(admin_client, agent):
    saved = admin_client.post(f"{AGENTS}{agent.pk}/change/", change_form(agent, name="Support"))
    assert saved.status_code == 302
    assert Agent.objects.get(pk=agent.pk).name == "Support"
    assert not AuditEvent.objects.filter(action=AuditAction.AGENT_RENAME).exists()


def test_a_limit_naming_another_old_agent_too_keeps_reaching_it(workspace):
    # Two agents stored before ids were normalised, one id in each form: a limit naming
    # either form reaches both, and still reaches the one not renamed.
    nfc, nfd = (unicodedata.normalize(form, "café") for form in ("NFC", "NFD"))
    Agent.objects.create(workspace=workspace, agent_id=nfc)
    renamed = Agent.objects.create(workspace=workspace, agent_id=nfd)
    ApiKey.objects.create(
        workspace=workspace, name="accented", prefix="dw_x", key_hash="0" * 64, agent_ids=[nfc]
    )
    rename_agent(agent=renamed, agent_id="cafe", actor="test")
    assert agent_ids("accented") == [nfc, "cafe"]
