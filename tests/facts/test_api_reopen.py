"""POST /v1/facts/{id}/reopen: a rejected fact back under the trust rules."""

import pytest
from django.test import Client

from facts.models import Status
from facts.services import resolve_fact
from tenancy.models import AuditAction, AuditEvent
from tests.conftest import ApiClient
from tests.factories import make_key, refreshed, state
from tests.test_openapi_errors import assert_declared_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def openapi():
    return Client().get("/v1/openapi.json").json()


def rejected(agent):
    state(agent, "Acme")
    fact = state(agent, "Globex", verification="inferred").fact
    return resolve_fact(fact=fact, action="reject", actor="operator:mia")


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


def test_reopen_puts_a_rejected_fact_back_in_review(api, agent):
    fact = rejected(agent)
    response = api.post(f"/v1/facts/{fact.pk}/reopen", {"reason": "asked again"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["id"], body["status"]) == (fact.pk, "disputed")
    assert [f["value"] for f in body["history"] if f["status"] == "current"] == ["Acme"]
    event = AuditEvent.objects.get(action=AuditAction.FACT_REOPEN)
    assert event.actor.startswith("key:")
    assert event.details["reason"] == "asked again"


def test_reopen_refusals_are_declared_409s(openapi, api, agent):
    fact = rejected(agent)
    assert api.post(f"/v1/facts/{fact.pk}/reopen", {}).status_code == 200
    again = api.post(f"/v1/facts/{fact.pk}/reopen", {})
    assert_declared_error(
        openapi, "post", "/v1/facts/{fact_id}/reopen", again, 409, "fact_not_rejected"
    )


def test_reopen_is_isolated_scoped_and_validated(api, other_api, workspace, agent):
    fact = rejected(agent)
    assert_error(other_api.post(f"/v1/facts/{fact.pk}/reopen", {}), 404, "fact_not_found")
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    assert_error(reader.post(f"/v1/facts/{fact.pk}/reopen", {}), 403, "insufficient_scope")
    assert_error(api.post(f"/v1/facts/{fact.pk}/reopen", {"reason": 3}), 400, "invalid_input")
    assert_error(api.post(f"/v1/facts/{fact.pk}/reopen", {"why": "x"}), 400, "invalid_input")
    assert_error(api.post("/v1/facts/999999/reopen", {}), 404, "fact_not_found")
    assert refreshed(fact).status == Status.REJECTED
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_REOPEN).exists()
