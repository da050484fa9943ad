"""The rough edges of a first walk through the dashboard: an htmx request after the session
expired, the error pages, times with their zone, the breadcrumb back to a filtered list, the
favicon, Run now in place, and the decay preview's wording."""

import pytest
from django.test import Client

from tests.dashboard.conftest import app
from tests.factories import state

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def test_an_htmx_request_after_sign_out_redirects_the_page_to_sign_in(client: Client, agent):
    fact = state(agent, "Acme").fact
    page = "http://testserver/dashboard/facts/?user=u1"
    response = client.post(
        f"/dashboard/facts/{fact.id}/delete/",
        {"reason": "stale"},
        headers={**HTMX, "HX-Current-URL": page},
    )
    # htmx follows a 302 itself and would swap the sign-in page into the row: the browser
    # is told to go there instead, with nothing to swap.
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/accounts/login/?next=/dashboard/facts/%3Fuser%3Du1"
    assert response.content == b""


def test_an_htmx_request_from_another_site_is_not_sent_back_there(client: Client):
    response = client.get(
        "/dashboard/facts/", headers={**HTMX, "HX-Current-URL": "https://evil.example/x"}
    )
    assert response["HX-Redirect"] == "/accounts/login/"


def test_a_plain_request_after_sign_out_is_still_a_redirect(client: Client):
    response = client.get("/dashboard/facts/")
    assert (response.status_code, response["Location"]) == (
        302,
        "/accounts/login/?next=/dashboard/facts/",
    )
    assert "HX-Redirect" not in response


def test_the_404_page_has_the_layout_and_a_way_back(manager_client, other_agent):
    other = state(other_agent, "Globex").fact
    for url in (app(f"/dashboard/facts/{other.id}/"), "/app/facts/999999/", "/nowhere/"):
        response = manager_client.get(url)
        assert response.status_code == 404
        assert 'class="site-header"' in response.text
        assert "Page not found" in response.text
        assert 'href="/"' in response.text
    # Another workspace's fact and a missing one read the same.
    assert (
        manager_client.get(app(f"/dashboard/facts/{other.id}/")).text
        == manager_client.get("/app/facts/999999/").text.replace("999999", str(other.id))
    )


def test_the_viewers_403_says_what_they_may_not_do(viewer_client, agent):
    fact = state(agent, "Acme").fact
    response = viewer_client.post(app(f"/dashboard/facts/{fact.id}/delete/"), {"reason": "x"})
    assert response.status_code == 403
    assert 'class="site-header"' in response.text
    assert "Viewers may read but not change anything." in response.text
    assert 'href="/"' in response.text


def test_api_errors_stay_json(client: Client):
    response = client.get("/v1/nowhere")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
