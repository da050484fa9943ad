"""The edges of the API: a path no route serves is 404 `route_not_found` whatever the method
(no CSRF refusal, no redirect), and a body over the size limit is 413 `too_large` whichever
layer reads it first, the size middleware or not."""

import io
import json
import re
from wsgiref.util import setup_testing_defaults

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.test import Client, RequestFactory

import dewee.wsgi
from dewee.api import api as ninja_api
from dewee.error_pages import bad_request
from memory.models import Memory
from tenancy.models import Agent
from tests.factories import make_key

pytestmark = pytest.mark.django_db

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
LIMIT = 1_000
OVERSIZE = json.dumps({"agent_id": "support-bot", "content": "x" * 2 * LIMIT})


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


@pytest.fixture
def without_size_middleware(settings):
    """The size middleware, which refuses by Content-Length, removed; a small limit."""
    settings.MIDDLEWARE = [
        m for m in settings.MIDDLEWARE if m != "dewee.middleware.api_error_shape"
    ]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT


@pytest.mark.parametrize("with_middleware", [True, False])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/memories"),
        ("POST", "/v1/facts"),
        ("POST", "/v1/memory/recall"),
        ("PUT", "/v1/agents/support-bot/memory_policy"),
        ("PATCH", "/v1/memories/1"),
    ],
)
def test_an_oversize_api_body_is_413_too_large(api, agent, settings, with_middleware, method, path):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    if not with_middleware:
        settings.MIDDLEWARE = [
            m for m in settings.MIDDLEWARE if m != "dewee.middleware.api_error_shape"
        ]
    response = api.client.generic(
        method, path, data=OVERSIZE, content_type="application/json", headers=api.headers
    )
    assert_json_error(response, 413, "too_large")
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("refusal", "status", "code"),
    [
        (RequestDataTooBig(), 413, "too_large"),
        (TooManyFieldsSent(), 400, "too_many_parameters"),
        (SuspiciousOperation(), 400, "bad_request"),
    ],
)
def test_what_django_refuses_to_read_under_v1_keeps_the_error_shape(
    without_size_middleware, refusal, status, code
):
    """Django's handler400, for a request refused before any API view ran."""
    request = RequestFactory().post("/v1/memories", data="{}", content_type="application/json")
    assert_json_error(bad_request(request, refusal), status, code)


CSRF_SECRET = "s" * 32


@pytest.fixture
def staff_client(db):
    """A signed-in operator whose browser holds a CSRF cookie, checks enforced."""
    user = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.cookies["csrftoken"] = CSRF_SECRET
    return client


@pytest.mark.parametrize(
    "path", ["/dashboard/memory/maintenance/run/", "/dashboard/facts/forget/", "/admin/login/"]
)
def test_an_oversize_dashboard_form_is_413_with_a_page_saying_so(
    staff_client, agent, without_size_middleware, path
):
    response = staff_client.post(
        path,
        data=f"csrfmiddlewaretoken={CSRF_SECRET}&note=" + "x" * 2 * LIMIT,
        content_type="application/x-www-form-urlencoded",
        headers={"X-CSRFToken": CSRF_SECRET},
    )
    assert response.status_code == 413, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert b"too much to send" in response.content.lower()


def test_an_oversize_body_without_content_length_is_413_too_large(
    workspace, without_size_middleware
):
    """A chunked body carries no Content-Length for the middleware to check: the server's
    entry point reads it up to the limit and refuses the rest."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/v1/memories",
        "CONTENT_TYPE": "application/json",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "HTTP_AUTHORIZATION": f"Bearer {make_key(workspace)}",
        "wsgi.input": io.BytesIO(OVERSIZE.encode()),
    }
    setup_testing_defaults(environ)
    statuses = []
    body = b"".join(
        dewee.wsgi.application(environ, lambda status, headers: statuses.append(status))
    )
    assert statuses == ["413 Content Too Large"]
    assert json.loads(body)["error"]["code"] == "too_large"
    assert not Agent.objects.exclude(agent_id="support-bot").exists()
    assert not Memory.objects.exists()
