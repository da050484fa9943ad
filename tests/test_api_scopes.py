"""API keys with scopes, agent limits and expiry, as the REST API enforces them: every
operation declares the scope it needs; a key without it is 403 insufficient_scope and writes
nothing; a key limited to agents sees no other agent; an expired key is 401."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client, RequestFactory
from django.utils import timezone

from dewee.api import api as ninja_api
from dewee.api_auth import UNDECLARED
from dewee.errors import InvalidInput
from facts.models import Fact
from memory.models import Memory
from tenancy.exceptions import InsufficientScope, InvalidAgentId
from tenancy.models import Agent, ApiKey, AuditAction, AuditEvent, ErasureReceipt
from tenancy.services import create_api_key
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key

pytestmark = pytest.mark.django_db

SCOPES = {"ReadKey": "read", "WriteKey": "write", "AdminKey": "admin"}


def operations() -> list[tuple[str, str, str | None]]:
    """(method, path, declared scope) of every operation in the API's OpenAPI document;
    the scope is None for an operation that declares none."""
    found = []
    for path, methods in ninja_api.get_openapi_schema()["paths"].items():
        for method, operation in methods.items():
            names = [name for item in operation.get("security", []) for name in item]
            scope = SCOPES.get(names[0]) if len(names) == 1 else None
            found.append((method.upper(), path, scope))
    return found


def key_with(workspace, *scopes, **options) -> ApiClient:
    return ApiClient(make_key(workspace, scopes=list(scopes), **options))


def call(client: ApiClient, method: str, path: str, body=None):
    data = json.dumps(body if body is not None else {})
    return client.client.generic(
        method, path, data, content_type="application/json", headers=client.headers
    )


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    return error


def memory_body(agent_id="support-bot", content="The customer prefers email"):
    return {"agent_id": agent_id, "content": content}


# --- every operation declares its scope ---


def test_every_api_operation_declares_one_scope():
    found = operations()
    assert len(found) > 40
    undeclared = [f"{method} {path}" for method, path, scope in found if scope is None]
    assert undeclared == [], f"operations without auth=READ, WRITE or ADMIN: {undeclared}"


def test_each_operation_refuses_a_key_without_its_scope_and_writes_nothing(workspace, agent):
    """Every key here holds the two scopes an operation does not need, never the one it
    does: each call is 403 insufficient_scope naming that scope, before anything is read
    or written."""
    lacking = {
        scope: key_with(workspace, *({"read", "write", "admin"} - {scope}))
        for scope in ("read", "write", "admin")
    }
    counts = (Memory.objects.count(), Agent.objects.count(), AuditEvent.objects.count())
    for method, path, scope in operations():
        assert scope is not None, (method, path)
        url = re.sub(r"\{agent_id\}", agent.agent_id, path)
        url = re.sub(r"\{\w+\}", "1", url)
        response = call(lacking[scope], method, url, memory_body())
        error = assert_error(response, 403, "insufficient_scope")
        assert f"'{scope}' scope" in error["message"], (method, path)
        assert error["details"]["required"] == scope
    assert (Memory.objects.count(), Agent.objects.count(), AuditEvent.objects.count()) == counts
    assert set(ApiKey.objects.values_list("last_used_at", flat=True)) == {None}


def test_an_operation_that_declares_no_scope_refuses_every_key(workspace):
    secret = make_key(workspace)
    request = RequestFactory().get("/v1/x", headers={"Authorization": f"Bearer {secret}"})
    with pytest.raises(InsufficientScope, match="declares no scope"):
        UNDECLARED(request)


def test_the_api_docs_name_each_operations_scope():
    schemes = ninja_api.get_openapi_schema()["components"]["securitySchemes"]
    assert schemes["AdminKey"]["description"] == "An API key with the admin scope."
    ops = {(m, p): s for m, p, s in operations()}
    assert ops[("POST", "/v1/facts/forget")] == "admin"
    assert ops[("POST", "/v1/memory/recall")] == "read"
    assert ops[("POST", "/v1/memories")] == "write"


# --- the classes of operations ---


def test_a_read_key_reads_and_recalls_but_cannot_store(workspace, agent):
    reader = key_with(workspace, "read")
    assert reader.get("/v1/agents").status_code == 200
    recall = reader.post("/v1/memory/recall", {"agent_id": agent.agent_id, "query": "email"})
    assert recall.status_code == 200
    context = reader.post("/v1/context", {"agent_id": agent.agent_id, "query": "email"})
    assert context.status_code == 200
    refused = reader.post("/v1/memories", memory_body())
    error = assert_error(refused, 403, "insufficient_scope")
    assert error["message"] == "This operation needs the 'write' scope; this key has read"
    assert not Memory.objects.exists()
    assert_error(reader.post("/v1/agents", {"agent_id": "new-bot"}), 403, "insufficient_scope")
    assert not Agent.objects.filter(agent_id="new-bot").exists()


def test_checking_text_is_a_read_but_applying_the_check_needs_write(workspace, agent):
    reader = key_with(workspace, "read")
    check = {"agent_id": agent.agent_id, "user": "u1", "text": "I work at Globex"}
    assert reader.post("/v1/facts/check", check).status_code == 200
    source = {"kind": "channel_message", "reference": "m1"}
    applied = reader.post("/v1/facts/check", {**check, "apply": True, "source": source})
    assert_error(applied, 403, "insufficient_scope")
    assert not Fact.objects.exists()


def test_a_write_key_stores_but_cannot_forget_merge_or_run_maintenance(workspace, agent):
    writer = key_with(workspace, "read", "write")
    stored = writer.post("/v1/memories", memory_body())
    assert stored.status_code == 201
    memory_id = stored.json()["id"]
    refusals = [
        ("/v1/memories/forget", {"agent_id": agent.agent_id, "ids": [memory_id]}),
        ("/v1/memories/deduplicate", {"agent_id": agent.agent_id, "confirm": True}),
        ("/v1/memories/consolidate", {"agent_id": agent.agent_id, "memory_ids": [memory_id]}),
        ("/v1/facts/forget", {"agent_id": agent.agent_id, "user": "u1", "confirm": True}),
        ("/v1/admin/autopilot/trigger", {}),
    ]
    for path, body in refusals:
        error = assert_error(writer.post(path, body), 403, "insufficient_scope")
        assert "'admin' scope" in error["message"]
    policy = call(writer, "PUT", f"/v1/agents/{agent.agent_id}/memory_policy", {})
    assert_error(policy, 403, "insufficient_scope")
    assert Memory.objects.filter(pk=memory_id).exists()
    assert not ErasureReceipt.objects.exists()
    # Deleting one memory of its own is an ordinary write.
    assert writer.delete(f"/v1/memories/{memory_id}").status_code == 200


def test_an_admin_key_forgets_and_runs_maintenance(workspace, agent):
    admin = key_with(workspace, "admin")
    writer = key_with(workspace, "write")
    memory_id = writer.post("/v1/memories", memory_body()).json()["id"]
    forgot = admin.post("/v1/memories/forget", {"agent_id": agent.agent_id, "ids": [memory_id]})
    assert forgot.status_code == 200
    assert not Memory.objects.filter(pk=memory_id).exists()
    trigger = admin.post("/v1/admin/autopilot/trigger", {"jobs": ["decay"]})
    assert trigger.status_code == 202
    # admin does not include read: each scope is its own.
    assert_error(admin.get("/v1/agents"), 403, "insufficient_scope")


# --- keys limited to agents ---


def test_a_key_limited_to_agents_sees_only_them(workspace, agent):
    other = make_agent(workspace, "billing-bot")
    limited = key_with(workspace, "read", "write", "admin", agent_ids=["support-bot"])
    listed = limited.get("/v1/agents").json()
    assert [a["agent_id"] for a in listed] == ["support-bot"]
    assert limited.get("/v1/agents/support-bot").status_code == 200
    for path in ("/v1/agents/billing-bot", "/v1/agents/billing-bot/memories"):
        assert_error(limited.get(path), 404, "agent_not_found")
    recall = limited.post("/v1/memory/recall", {"agent_id": "billing-bot", "query": "x"})
    assert_error(recall, 404, "agent_not_found")
    # Another agent's memory, reached by its id, is not found either.
    full = key_with(workspace, "read", "write")
    theirs = full.post("/v1/memories", memory_body(other.agent_id)).json()["id"]
    assert_error(limited.get(f"/v1/memories/{theirs}"), 404, "memory_not_found")
    forget = limited.post("/v1/memories/forget", {"agent_id": "billing-bot", "ids": [theirs]})
    assert_error(forget, 404, "agent_not_found")
    assert Memory.objects.filter(pk=theirs).exists()
    # Maintenance of the whole workspace would reach the other agent: it must name one.
    trigger = limited.post("/v1/admin/autopilot/trigger", {"jobs": ["decay"]})
    assert_error(trigger, 400, "invalid_input")
    named = {"jobs": ["decay"], "agent_id": "support-bot"}
    assert limited.post("/v1/admin/autopilot/trigger", named).status_code == 202


def test_a_limited_key_creates_its_listed_agent_on_first_store_and_no_other(workspace):
    limited = key_with(workspace, "write", agent_ids=["bot-a"])
    stored = limited.post("/v1/memories", memory_body("bot-a"))
    assert stored.status_code == 201
    assert Agent.objects.get(agent_id="bot-a").workspace == workspace
    refused = limited.post("/v1/memories", memory_body("bot-b"))
    assert_error(refused, 404, "agent_not_found")
    batch = limited.post("/v1/memories/batch", {"agent_id": "bot-b", "items": [{"content": "x"}]})
    assert_error(batch, 404, "agent_not_found")
    assert_error(limited.post("/v1/agents", {"agent_id": "bot-b"}), 404, "agent_not_found")
    assert not Agent.objects.filter(agent_id="bot-b").exists()


def test_a_keys_agent_ids_are_normalised_like_new_agent_ids(workspace):
    key, _secret = create_api_key(
        workspace=workspace, name="k", actor="test", agent_ids=["cafe\u0301", "café", "bot"]
    )
    assert key.agent_ids == ["café", "bot"]
    with pytest.raises(InvalidAgentId, match="'a/b' must not contain '/'"):
        create_api_key(workspace=workspace, name="k", actor="test", agent_ids=["a/b"])


def test_the_network_of_a_limited_key_holds_only_its_agents(workspace, agent):
    make_agent(workspace, "billing-bot")
    limited = key_with(workspace, "read", agent_ids=["support-bot"])
    network = limited.get("/v1/graph/network").json()
    assert [a["agent_id"] for a in network["agents"]] == ["support-bot"]


# --- expiry ---


def test_an_expired_key_is_refused_as_unauthenticated_saying_it_expired(workspace, agent):
    soon = key_with(workspace, "read", expires_at=timezone.now() + timedelta(hours=1))
    assert soon.get("/v1/agents").status_code == 200
    ApiKey.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    refused = soon.get("/v1/agents")
    error = assert_error(refused, 401, "unauthenticated")
    assert "expired" in error["message"]
    assert refused["WWW-Authenticate"] == "Bearer"
    revoked_like = Client().get("/v1/agents", headers={"Authorization": "Bearer dw_unknown"})
    assert "expired" not in assert_error(revoked_like, 401, "unauthenticated")["message"]


def test_a_key_cannot_be_created_already_expired(workspace):
    with pytest.raises(InvalidInput, match="must be in the future"):
        create_api_key(
            workspace=workspace, name="k", actor="t", expires_at=timezone.now() - timedelta(1)
        )
    assert not ApiKey.objects.exists()


# --- the key's name is the actor ---


def test_the_keys_name_is_the_actor_of_audit_events_and_receipts(workspace, agent):
    admin = ApiClient(make_key(workspace, name="ops-bot"))
    key = ApiKey.objects.get(name="ops-bot")
    facts = {"agent_id": agent.agent_id, "user": "u1", "subject": "user", "predicate": "employer"}
    source = {"kind": "channel_message", "reference": "m1"}
    admin.post("/v1/facts", {**facts, "value": "Acme", "source": source})
    globex = {**facts, "value": "Globex", "verification": "inferred", "source": source}
    disputed = admin.post("/v1/facts", globex).json()
    assert disputed["outcome"] == "disputed"
    fact_id = disputed["fact"]["id"]
    admin.post(f"/v1/facts/{fact_id}/resolve", {"action": "accept"})
    event = AuditEvent.objects.get(action=AuditAction.FACT_RESOLVE)
    assert event.actor == f"key:ops-bot#{key.pk}"
    receipt = admin.post(
        "/v1/facts/forget", {"agent_id": agent.agent_id, "user": "u1", "confirm": True}
    ).json()
    assert receipt["actor"] == f"key:ops-bot#{key.pk}"


# --- new keys and old keys ---


def test_a_new_key_reads_and_writes_but_is_not_admin(workspace):
    key, _secret = create_api_key(workspace=workspace, name="k", actor="t")
    assert key.scope_names() == ["read", "write"]
    event = AuditEvent.objects.get(action=AuditAction.KEY_CREATE)
    assert event.details["scopes"] == ["read", "write"]
    assert event.details["agents"] == []


def test_erasing_or_exporting_a_person_needs_admin_and_a_key_for_every_agent(workspace, agent):
    writer = key_with(workspace, "read", "write")
    stored = writer.post("/v1/memories", {**memory_body(), "user": "u9"})
    assert stored.status_code == 201
    forget = {"user": "u9", "confirm": True}
    assert_error(writer.post("/v1/people/forget", forget), 403, "insufficient_scope")
    assert_error(writer.get("/v1/people/u9/export"), 403, "insufficient_scope")
    limited = key_with(workspace, "read", "write", "admin", agent_ids=[agent.agent_id])
    error = assert_error(limited.post("/v1/people/forget", forget), 403, "insufficient_scope")
    assert "every agent" in error["message"]
    assert_error(limited.get("/v1/people/u9/export"), 403, "insufficient_scope")
    assert Memory.objects.filter(pk=stored.json()["id"]).exists()
    assert not ErasureReceipt.objects.exists()
    admin = key_with(workspace, "admin")
    assert admin.post("/v1/people/forget", forget).status_code == 200
    assert not Memory.objects.filter(pk=stored.json()["id"]).exists()


def test_quotas_are_read_with_read_and_set_with_admin_by_a_key_for_every_agent(workspace, agent):
    body = {"memories": {"limit": 5, "mode": "hard"}}
    reader = key_with(workspace, "read")
    assert reader.get("/v1/workspace/quota").status_code == 200
    assert_error(call(reader, "PUT", "/v1/workspace/quota", body), 403, "insufficient_scope")
    limited = key_with(workspace, "read", "admin", agent_ids=[agent.agent_id])
    assert_error(limited.get("/v1/quotas"), 403, "insufficient_scope")
    assert_error(call(limited, "PUT", "/v1/workspace/quota", body), 403, "insufficient_scope")
    assert call(limited, "PUT", f"/v1/agents/{agent.agent_id}/quota", body).status_code == 200
    admin = key_with(workspace, "read", "admin")
    assert call(admin, "PUT", "/v1/workspace/quota", body).status_code == 200
    assert admin.get("/v1/workspace/quota").json()["quotas"]["memories"]["limit"] == 5
