"""The facts REST API: status codes, bodies, the error shape, bad input and isolation."""

import pytest

from facts.models import Fact, FactSource
from tenancy.models import Agent, ErasureReceipt
from tenancy.receipts import user_digest
from tests.factories import state

pytestmark = pytest.mark.django_db


def body(agent_id="support-bot", **overrides):
    data = {
        "agent_id": agent_id,
        "user": "u1",
        "subject": "user",
        "predicate": "employer",
        "value": "Acme",
        "source": {"kind": "channel_message", "reference": "msg-17", "excerpt": "I work at Acme"},
    }
    data.update(overrides)
    return data


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    return error


def test_assert_then_confirm_then_dispute(api, agent):
    created = api.post("/v1/facts", body())
    assert created.status_code == 200
    assert created.json()["outcome"] == "created"
    fact = created.json()["fact"]
    assert (fact["value"], fact["status"], fact["user"], fact["qualifier"]) == (
        "Acme",
        "current",
        "u1",
        None,
    )
    assert fact["category"] == "employment"
    assert fact["freshness_label"] == "fresh"

    assert api.post("/v1/facts", body(value="ACME")).json()["outcome"] == "confirmed"
    disputed = api.post("/v1/facts", body(value="Globex", verification="inferred")).json()
    assert disputed["outcome"] == "disputed"
    assert disputed["other"]["id"] == fact["id"]


def test_get_fact_returns_sources_history_and_events(api, agent):
    state(agent, "Acme")
    fact_id = api.post("/v1/facts", body(value="Globex")).json()["fact"]["id"]
    detail = api.get(f"/v1/facts/{fact_id}").json()
    assert detail["sources"][0] == {
        "kind": "channel_message",
        "reference": "msg-17",
        "excerpt": "I work at Acme",
        "operator": None,
        "memory_id": None,
        "verification": "stated",
        "confidence": 1.0,
        "recorded_at": detail["sources"][0]["recorded_at"],
    }
    assert [h["value"] for h in detail["history"]] == ["Acme", "Globex"]


def test_resolve_accept_and_reject(api, agent):
    state(agent, "Acme")
    a = state(agent, "Globex", verification="inferred").fact
    b = state(agent, "Initech", verification="inferred").fact
    accepted = api.post(f"/v1/facts/{a.pk}/resolve", {"action": "accept"})
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "current"
    assert accepted.json()["events"][0]["details"]["action"] == "accept"
    rejected = api.post(f"/v1/facts/{b.pk}/resolve", {"action": "reject", "reason": "no"})
    assert rejected.json()["status"] == "rejected"


def test_resolving_a_fact_that_is_not_disputed_is_409(api, agent):
    fact = state(agent, "Acme").fact
    assert_error(
        api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "accept"}), 409, "fact_not_disputed"
    )


def test_delete_is_soft_with_reason(api, agent):
    fact = state(agent, "Acme").fact
    response = api.delete(f"/v1/facts/{fact.pk}", reason="user asked")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["status_reason"]) == (
        "deleted",
        "user asked",
    )
    assert Fact.objects.get(pk=fact.pk).status == "deleted"
    assert_error(api.delete(f"/v1/facts/{fact.pk}"), 409, "fact_already_deleted")


def test_list_filters_and_cursor(api, agent):
    for i in range(3):
        state(agent, f"city-{i}", predicate="city", user=f"u{i}")
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    page = api.get("/v1/facts", agent_id="support-bot", predicate="city", limit=2).json()
    assert [f["value"] for f in page["items"]] == ["city-2", "city-1"]
    rest = api.get(
        "/v1/facts", agent_id="support-bot", predicate="city", cursor=page["next_cursor"]
    ).json()
    assert [f["value"] for f in rest["items"]] == ["city-0"]
    assert rest["next_cursor"] is None
    disputed = api.get("/v1/facts", agent_id="support-bot", status="disputed").json()
    assert [f["value"] for f in disputed["items"]] == ["Globex"]
    found = api.get("/v1/facts", agent_id="support-bot", q="glob").json()
    assert [f["value"] for f in found["items"]] == ["Globex"]


def test_list_as_of(api, agent):
    state(agent, "Acme")
    believed_from = Fact.objects.get().believed_from
    assert believed_from is not None
    moment = believed_from.isoformat()
    state(agent, "Globex")
    then = api.get("/v1/facts", agent_id="support-bot", as_of=moment).json()
    assert [f["value"] for f in then["items"]] == ["Acme"]


def test_forget_requires_confirmation_and_returns_a_receipt(api, agent):
    state(agent, "Acme")
    state(agent, "Globex")
    preview = api.post(
        "/v1/facts/forget", {"agent_id": "support-bot", "user": "u1", "dry_run": True}
    )
    assert preview.json()["counts"]["facts"] == 2
    error = assert_error(
        api.post("/v1/facts/forget", {"agent_id": "support-bot", "user": "u1"}),
        400,
        "confirmation_required",
    )
    assert error["details"]["counts"]["facts"] == 2
    assert Fact.objects.count() == 2
    receipt = api.post(
        "/v1/facts/forget", {"agent_id": "support-bot", "user": "u1", "confirm": True}
    )
    assert receipt.status_code == 200
    assert receipt.json()["counts"]["facts"] == 2
    assert receipt.json()["scope"] == {"user_hmac": user_digest("u1")}
    assert not Fact.objects.exists()


def test_agents_create_list_get(api, workspace, other_agent):
    created = api.post("/v1/agents", {"agent_id": "planner", "name": "Planner"})
    assert created.status_code == 201
    assert created.json()["workspace"] == "acme"
    assert [a["agent_id"] for a in api.get("/v1/agents").json()] == ["planner"]
    assert api.get("/v1/agents/planner").json()["name"] == "Planner"
    assert_error(api.post("/v1/agents", {"agent_id": "planner"}), 409, "agent_exists")


# --- isolation: another workspace's agent or fact is a 404, never a leak ---


def test_another_workspaces_fact_is_404_everywhere(api, other_api, agent):
    fact = state(agent, "Acme").fact
    state(agent, "Globex", verification="inferred")
    assert_error(other_api.get(f"/v1/facts/{fact.pk}"), 404, "fact_not_found")
    assert_error(
        other_api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "accept"}), 404, "fact_not_found"
    )
    assert_error(other_api.delete(f"/v1/facts/{fact.pk}"), 404, "fact_not_found")
    assert_error(other_api.get("/v1/facts", agent_id="support-bot"), 404, "agent_not_found")
    assert_error(other_api.get("/v1/agents/support-bot"), 404, "agent_not_found")
    assert_error(other_api.post("/v1/facts", body()), 404, "agent_not_found")
    assert_error(
        other_api.post(
            "/v1/facts/forget", {"agent_id": "support-bot", "user": "u1", "confirm": True}
        ),
        404,
        "agent_not_found",
    )
    assert other_api.get("/v1/agents").json() == []
    assert Fact.objects.filter(status="current").get().value == "Acme"
    assert Fact.objects.get(pk=fact.pk).status == "current"


# --- authentication ---


def test_missing_wrong_and_revoked_keys_are_401(workspace, agent, api):
    from django.test import Client

    from tenancy.models import ApiKey
    from tenancy.services import revoke_api_key

    client = Client()
    assert_error(client.get("/v1/agents"), 401, "unauthenticated")
    assert_error(
        client.get("/v1/agents", headers={"Authorization": "Bearer dw_nope"}),
        401,
        "unauthenticated",
    )
    assert api.get("/v1/agents").status_code == 200
    revoke_api_key(key_id=ApiKey.objects.get().pk, actor="test")
    assert_error(api.get("/v1/agents"), 401, "unauthenticated")


# --- bad input: each gets a clear error and writes nothing ---

BAD_BODIES = [
    ("agent id too long", body(agent_id="é" * 121), 400, "invalid_agent_id"),
    ("agent id empty", body(agent_id=""), 400, "invalid_agent_id"),
    ("unknown agent", body(agent_id="ghost"), 404, "agent_not_found"),
    ("missing value", {k: v for k, v in body().items() if k != "value"}, 400, "invalid_input"),
    ("missing source", {k: v for k, v in body().items() if k != "source"}, 400, "invalid_input"),
    ("value not a string", body(value=42), 400, "invalid_input"),
    ("confidence as string", body(confidence="0.9"), 400, "invalid_input"),
    ("confidence above 1", body(confidence=1.5), 400, "invalid_input"),
    ("confidence below 0", body(confidence=-0.1), 400, "invalid_input"),
    ("unknown verification", body(verification="rumour"), 400, "invalid_input"),
    ("unknown source kind", body(source={"kind": "dream"}), 400, "invalid_input"),
    ("unknown field", body(colour="red"), 400, "invalid_input"),
    (
        "valid_to before valid_from",
        body(valid_from="2026-02-01T00:00:00Z", valid_to="2026-01-01T00:00:00Z"),
        400,
        "invalid_input",
    ),
    ("unparseable time", body(valid_from="next tuesday"), 400, "invalid_time"),
    ("value too large", body(value="x" * 4097), 413, "too_large"),
    ("qualifier too large", body(qualifier="q" * 256), 413, "too_large"),
]


@pytest.mark.parametrize(
    ("case", "payload", "status", "code"), BAD_BODIES, ids=[c[0] for c in BAD_BODIES]
)
def test_bad_assertions_get_clear_errors_and_write_nothing(api, agent, case, payload, status, code):
    assert_error(api.post("/v1/facts", payload), status, code)
    assert not Fact.objects.exists()
    assert not FactSource.objects.exists()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ('{"agent_id": "support-bot",', "malformed_json"),
        ('{"confidence": NaN}', "malformed_json"),
        ("[1, 2]", "malformed_json"),
        ("\xff\xfe", "malformed_json"),
    ],
)
def test_malformed_json_is_400(api, agent, raw, code):
    assert_error(api.post("/v1/facts", raw=raw), 400, code)
    assert not Fact.objects.exists()


def test_oversize_body_is_413(api, agent, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    assert_error(api.post("/v1/facts", body(value="x" * 2000)), 413, "too_large")


def test_unknown_fact_is_404(api, agent):
    assert_error(api.get("/v1/facts/999999"), 404, "fact_not_found")


def test_unknown_resolve_action_is_400(api, agent):
    state(agent, "Acme")
    fact = state(agent, "Globex", verification="inferred").fact
    assert_error(
        api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "maybe"}), 400, "invalid_input"
    )
    assert Fact.objects.get(pk=fact.pk).status == "disputed"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"status": "pending"}, "invalid_input"),
        ({"as_of": "yesterday-ish"}, "invalid_time"),
        ({"limit": 0}, "invalid_input"),
        ({"limit": 500}, "invalid_input"),
        ({"cursor": "!!"}, "invalid_input"),
    ],
)
def test_bad_list_parameters_are_400(api, agent, params, code):
    assert_error(api.get("/v1/facts", agent_id="support-bot", **params), 400, code)


def test_forget_without_a_scope_is_400(api, agent):
    state(agent, "Acme")
    assert_error(
        api.post("/v1/facts/forget", {"agent_id": "support-bot", "confirm": True}),
        400,
        "invalid_input",
    )
    assert Fact.objects.count() == 1
    assert not ErasureReceipt.objects.exists()


def test_forget_a_user_and_a_subject_erases_that_subject_of_that_user_only(api, agent):
    state(agent, "Acme")
    state(agent, "Hooli", user="u2")
    state(agent, "Blue", subject="project-x", predicate="colour")
    scope = {"agent_id": "support-bot", "user": "u1", "subject": "user"}
    preview = api.post("/v1/facts/forget", {**scope, "dry_run": True}).json()
    assert (preview["scope"], preview["counts"]["facts"]) == ({"user": "u1", "subject": "user"}, 1)
    receipt = api.post("/v1/facts/forget", {**scope, "confirm": True}).json()
    assert receipt["scope"] == {"user_hmac": user_digest("u1"), "subject": "user"}
    assert sorted(Fact.objects.values_list("value", flat=True)) == ["Blue", "Hooli"]


@pytest.mark.parametrize(
    "overrides", [{}, {"confidence": 1.5}, {"category": "gossip"}, {"value": ""}]
)
def test_asserting_for_an_unknown_agent_creates_nothing(api, workspace, overrides):
    """The REST API never creates an agent for a fact: valid or not, it is a 404 or a 400."""
    response = api.post("/v1/facts", body(agent_id="fresh-bot", **overrides))
    assert response.status_code in (400, 404), response.content
    assert not Agent.objects.filter(agent_id="fresh-bot").exists()
    assert not Fact.objects.exists()


def test_unknown_route_is_json_404(api):
    assert_error(api.get("/v1/nothing-here"), 404, "route_not_found")


def test_openapi_schema_and_docs_are_served(api):
    from django.test import Client

    schema = Client().get("/v1/openapi.json")
    assert schema.status_code == 200
    assert "/v1/facts/{fact_id}/resolve" in schema.json()["paths"]
    assert Client().get("/v1/docs").status_code == 200
