"""The edges of the API: a path no route serves is 404 `route_not_found` whatever the method
(no CSRF refusal, no redirect)."""

import json
import re

import pytest
from django.test import Client

from dewee.api import api as ninja_api
from memory.models import Memory
from tests.factories import make_key

pytestmark = pytest.mark.django_db

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@pytest.fixture
def strict_client(workspace):
    """A client as a real one is: Django's CSRF check enforced, with a valid API key."""
    client = Client(enforce_csrf_checks=True)
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {make_key(workspace)}"
    return client


def send(client, method, path, body="{}", **extra):
    return client.generic(method, path, data=body, content_type="application/json", **extra)


def assert_json_error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    error = json.loads(response.content)["error"]
    assert set(error) == {"code", "message", "details"}
    assert error["code"] == code, error
    assert error["message"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "path", ["/v1/nothing-here", "/v1/memories/", "/v1/facts/", "/v1/agents/", "/v1/", "/v1"]
)
def test_every_method_to_an_unknown_route_is_404_route_not_found(
    strict_client, agent, method, path
):
    assert_json_error(send(strict_client, method, path), 404, "route_not_found")


def test_a_post_to_a_real_route_with_a_trailing_slash_is_404_and_stores_nothing(
    strict_client, agent
):
    body = json.dumps({"agent_id": "support-bot", "content": "Ann likes green tea"})
    assert_json_error(send(strict_client, "POST", "/v1/memories/", body), 404, "route_not_found")
    assert not Memory.objects.exists()
    assert send(strict_client, "POST", "/v1/memories", body).status_code == 201


def test_a_trailing_slash_on_any_real_route_is_a_json_404_or_405_never_a_redirect(
    strict_client, agent
):
    """With a slash, a route taking an agent id in its path looks for an agent whose id ends
    in '/' (404 agent_not_found when there is none), or finds the path but not the method
    (405)."""
    for route in ninja_api.get_openapi_schema()["paths"]:
        path = re.sub(r"\{[^}]+\}", "1", route.replace("{agent_id}", "support-bot")) + "/"
        for method in METHODS:
            response = send(strict_client, method, path)
            assert response.status_code in (404, 405), (method, path, response.content)
            assert response.json()["error"]["code"] in {
                "route_not_found",
                "agent_not_found",
                "method_not_allowed",
            }
