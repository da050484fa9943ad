"""Agents in the Django admin: a policy change goes through the same service as
PUT /v1/agents/{id}/memory_policy, and agents are not deleted there."""

import json

import pytest

from memory.models import Session
from memory.services.sessions import start_session
from tenancy.models import Agent, AuditAction, AuditEvent

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/tenancy/agent/"


def form(agent, policy):
    return {
        "workspace": agent.workspace_id,
        "agent_id": agent.agent_id,
        "name": agent.name,
        "metadata": "{}",
        "memory_policy": json.dumps(policy),
        "memory_version": str(agent.memory_version),
    }


def test_a_policy_change_in_the_admin_is_checked_and_audited_like_the_api(
    admin_client, admin_user, agent
):
    change = f"{CHANGELIST}{agent.pk}/change/"
    page = admin_client.get(change).content.decode()
    assert "PUT /v1/agents/{agent_id}/memory_policy" in page
    first = {"strategy": {"working": "linear"}}
    assert admin_client.post(change, form(agent, first)).status_code == 302
    assert admin_client.post(change, form(agent, {"base_interval_seconds": 60})).status_code == 302
    assert Agent.objects.get(pk=agent.pk).memory_policy == {"base_interval_seconds": 60}
    events = list(AuditEvent.objects.filter(action=AuditAction.POLICY_CHANGE).order_by("id"))
    assert len(events) == 2
    assert events[1].actor == f"operator:{admin_user.username}"
    assert (events[1].agent_id, events[1].target_type) == (agent.pk, "agent")
    assert events[1].details == {"before": first, "after": {"base_interval_seconds": 60}}


def test_an_invalid_policy_in_the_admin_is_refused_with_the_services_message(admin_client, agent):
    change = f"{CHANGELIST}{agent.pk}/change/"
    refused = admin_client.post(change, form(agent, {"strategy": {"working": "sideways"}}))
    assert refused.status_code == 200
    assert "strategy.working: must be one of" in refused.content.decode()
    refused = admin_client.post(change, form(agent, {"decay": "fast"}))
    assert "decay: is not a policy setting" in refused.content.decode()
    assert Agent.objects.get(pk=agent.pk).memory_policy == {}
    assert not AuditEvent.objects.filter(action=AuditAction.POLICY_CHANGE).exists()


def test_other_changes_in_the_admin_leave_the_policy_and_audit_alone(admin_client, agent):
    change = f"{CHANGELIST}{agent.pk}/change/"
    assert admin_client.post(change, {**form(agent, {}), "name": "Support"}).status_code == 302
    assert Agent.objects.get(pk=agent.pk).name == "Support"
    assert not AuditEvent.objects.filter(action=AuditAction.POLICY_CHANGE).exists()


def test_the_admin_does_not_delete_agents_and_says_how_to_erase_one(admin_client, agent):
    start_session(agent=agent)
    assert admin_client.get(f"{CHANGELIST}{agent.pk}/delete/").status_code == 403
    assert admin_client.post(f"{CHANGELIST}{agent.pk}/delete/", {"post": "yes"}).status_code == 403
    listing = admin_client.get(CHANGELIST).content.decode()
    assert "delete_selected" not in listing
    bulk = admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [agent.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302)
    assert Agent.objects.filter(pk=agent.pk).exists()
    assert Session.objects.filter(agent=agent).exists()
    page = admin_client.get(f"{CHANGELIST}{agent.pk}/change/").content.decode()
    assert "Agents are not deleted here" in page
    assert "dewee memory facts forget" in page


def test_what_the_server_keeps_for_itself_is_shown_not_edited(admin_client, agent):
    Agent.objects.filter(pk=agent.pk).update(
        embedding_model="hash-256", embedding_dim=256, memory_version=7
    )
    change = f"{CHANGELIST}{agent.pk}/change/"
    page = admin_client.get(change)
    fields = page.context["adminform"].form.fields
    for internal in ("memory_version", "embedding_model", "embedding_dim", "workspace"):
        assert internal not in fields
        assert f'name="{internal}"' not in page.content.decode()
    assert "hash-256" in page.content.decode()  # shown, read-only
    posted = {**form(agent, {}), "embedding_model": "other", "embedding_dim": "3"}
    assert admin_client.post(change, {**posted, "memory_version": "0"}).status_code == 302
    stored = Agent.objects.get(pk=agent.pk)
    assert (stored.embedding_model, stored.embedding_dim, stored.memory_version) == (
        "hash-256",
        256,
        7,
    )
