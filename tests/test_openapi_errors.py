"""The OpenAPI schema declares every error an operation answers, in the one error shape, so
a client generated from it knows each status it can get (found by the schema fuzz in
test_api_fuzz: the schema declared only the successes)."""

import pytest
from django.test import Client

from memory.services import start_session
from tests.factories import state

pytestmark = pytest.mark.django_db

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}


@pytest.fixture
def openapi():
    return Client().get("/v1/openapi.json").json()


def declared(openapi, method: str, path: str) -> dict:
    return openapi["paths"][path][method]["responses"]


def assert_declared_error(openapi, method: str, path: str, response, status: int, code: str):
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert set(response.json()["error"]) == {"code", "message", "details"}
    schema = declared(openapi, method, path)[str(status)]["content"]["application/json"]
    assert schema["schema"] == ERROR_REF


def test_the_error_shape_is_one_component(openapi):
    components = openapi["components"]["schemas"]
    assert components["ErrorOut"]["required"] == ["error"]
    assert components["ErrorOut"]["properties"]["error"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert components["ErrorBody"]["required"] == ["code", "message", "details"]


def test_every_operation_declares_the_errors_any_request_can_get(openapi):
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            expected = {"400", "401", "404", "503"}
            if "requestBody" in operation:
                expected.add("413")
            for status in expected:
                response = operation["responses"].get(status)
                assert response, (method, path, status)
                assert response["content"]["application/json"]["schema"] == ERROR_REF


def test_declared_errors_are_the_ones_answered(openapi, api):
    assert_declared_error(
        openapi,
        "get",
        "/v1/memories/{memory_id}",
        api.get("/v1/memories/5"),
        404,
        "memory_not_found",
    )
    unauthenticated = Client().get("/v1/agents")
    assert_declared_error(openapi, "get", "/v1/agents", unauthenticated, 401, "unauthenticated")
    invalid = api.post("/v1/memories", {"agent_id": "support-bot"})
    assert_declared_error(openapi, "post", "/v1/memories", invalid, 400, "invalid_input")


def test_a_taken_agent_id_is_a_declared_409(openapi, api, agent):
    taken = api.post("/v1/agents", {"agent_id": agent.agent_id})
    assert_declared_error(openapi, "post", "/v1/agents", taken, 409, "agent_exists")


def test_ending_an_ended_session_is_a_declared_409(openapi, api, agent):
    session = start_session(agent=agent, user="u1")
    assert api.post(f"/v1/sessions/{session.pk}/end", {}).status_code == 200
    again = api.post(f"/v1/sessions/{session.pk}/end", {})
    assert_declared_error(
        openapi, "post", "/v1/sessions/{session_id}/end", again, 409, "session_ended"
    )


def test_deleting_a_deleted_fact_is_a_declared_409(openapi, api, agent):
    fact = state(agent, "Acme").fact
    assert api.delete(f"/v1/facts/{fact.pk}").status_code == 200
    again = api.delete(f"/v1/facts/{fact.pk}")
    assert_declared_error(
        openapi, "delete", "/v1/facts/{fact_id}", again, 409, "fact_already_deleted"
    )


def test_resolving_an_undisputed_fact_is_a_declared_409(openapi, api, agent):
    fact = state(agent, "Acme").fact
    resolved = api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "accept"})
    assert_declared_error(
        openapi, "post", "/v1/facts/{fact_id}/resolve", resolved, 409, "fact_not_disputed"
    )
