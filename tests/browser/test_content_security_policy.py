"""The Content-Security-Policy in a real browser: the main pages (dashboard, admin, API docs)
load with nothing refused, the policy really is enforced, and the API docs need nothing from
outside this host.

Every browser test fails on a refused resource (the autouse `csp_violations` fixture); this
one walks the pages no other test opens."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from memory.models import Entity
from memory.services import MemoryInput, store_memories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def test_the_main_pages_load_under_the_policy_and_an_inline_script_is_refused(
    sign_in, live_server, agent, disputed, django_user_model, csp_violations
):
    [memory] = store_memories(
        agent=agent, items=[MemoryInput(content="Ana Lopez moved to Lisbon in May")]
    )
    entity = Entity.objects.filter(agent=agent).first()
    page = sign_in("ops", staff=True)
    django_user_model.objects.filter(username="ops").update(is_superuser=True)
    paths = [
        "/dashboard/facts/",
        f"/dashboard/facts/{disputed.pk}/",
        "/dashboard/review/",
        "/dashboard/facts/check/",
        "/dashboard/memory/",
        f"/dashboard/memory/{memory.pk}/",
        "/dashboard/memory/entities/",
        *([f"/dashboard/memory/entities/{entity.pk}/"] if entity else []),
        "/dashboard/memory/sessions/",
        "/dashboard/memory/maintenance/",
        "/dashboard/members/",
        "/dashboard/keys/",
        "/admin/",
        "/admin/facts/fact/",
        f"/admin/facts/fact/{disputed.pk}/change/",
        "/admin/tenancy/agent/add/",
        "/v1/docs",
    ]
    for path in paths:
        response = page.goto(live_server.url + path)
        assert response is not None
        assert response.ok, path
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        page.wait_for_load_state("networkidle")
        assert csp_violations == [], path

    # The policy is enforced, and a refusal is seen: an injected inline script does not run.
    page.goto(f"{live_server.url}/dashboard/facts/")
    with page.expect_console_message(lambda message: "script-src" in message.text):
        page.evaluate(
            """() => {
                const script = document.createElement("script");
                script.textContent = "window.injected = true";
                document.head.append(script);
            }"""
        )
    assert page.evaluate("window.injected") is None
    assert any("script-src" in text for text in csp_violations), csp_violations
    csp_violations.clear()


def test_the_api_docs_render_their_operations_with_no_request_leaving_this_host(
    live_server, page: Page
):
    outside: list[str] = []

    def only_local(route):
        url = urlsplit(route.request.url)
        if url.scheme in ("data", "blob") or url.hostname in LOOPBACK:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(f"{live_server.url}/v1/docs")
    recall = page.locator(".opblock-summary-path", has_text="/v1/memory/recall")
    expect(recall).to_be_visible()
    expect(page.locator(".opblock")).not_to_have_count(0)
    recall.click()
    expect(page.get_by_text("Try it out")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert outside == []
