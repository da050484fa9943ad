"""The API keys page in a real browser: a manager creates a key limited to an agent and
sees its secret once, the key works against the API with its scopes, and revoking it asks
first and then stops it, all without a reload; without JavaScript the same forms work."""

import pytest
from django.test import Client
from playwright.sync_api import Browser, expect

from tenancy.models import ApiKey
from tests.browser.conftest import PASSWORD, MemberRole
from tests.factories import make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_manager_creates_uses_and_revokes_a_key(sign_in, live_server, workspace, agent):
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    page.get_by_role("link", name="API keys").click()
    expect(page.get_by_role("heading", name="API keys", level=1)).to_be_visible()
    page.evaluate("window.notReloaded = true")

    page.get_by_label("Name").fill("support reader")
    page.get_by_label("write").uncheck()
    page.get_by_label("Agents").fill(agent.agent_id)
    page.get_by_label("Expires").fill("30d")
    page.get_by_role("button", name="Create key for acme").click()
    expect(page.locator("#new-key")).to_contain_text("support reader created")
    secret = page.get_by_label("Secret").input_value()
    assert secret.startswith("dw_")
    row = page.locator(f"#key-{ApiKey.objects.get().pk}")
    expect(row).to_contain_text("read")
    expect(row).to_contain_text(agent.agent_id)
    expect(row).to_contain_text("active")

    # The key works against the API, with exactly what it was given.
    api = Client(headers={"Authorization": f"Bearer {secret}"})
    assert api.get(f"/v1/agents/{agent.agent_id}").status_code == 200
    stored = api.post(
        "/v1/memories", {"agent_id": agent.agent_id, "content": "x"}, "application/json"
    )
    assert stored.json()["error"]["code"] == "insufficient_scope"

    row.get_by_role("link", name="Revoke…").click()
    expect(row.get_by_role("alert")).to_contain_text("cannot be undone")
    row.get_by_role("button", name="Revoke support reader").click()
    expect(page.get_by_role("status").first).to_contain_text("revoked")
    expect(page.locator(f"#key-{ApiKey.objects.get().pk}")).to_contain_text("revoked")
    assert page.evaluate("window.notReloaded") is True
    assert api.get(f"/v1/agents/{agent.agent_id}").status_code == 401


def test_the_page_works_without_javascript(live_server, browser: Browser, django_user_model):
    django_user_model.objects.create_user(username="ops", password=PASSWORD, is_staff=True)
    make_workspace("acme")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("ops")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/dashboard/keys/")
    page.get_by_label("Name").fill("nightly")
    page.get_by_label("admin").check()
    page.get_by_role("button", name="Create key for acme").click()
    expect(page.locator("#new-key")).to_contain_text("nightly created")
    assert page.get_by_label("Secret").input_value().startswith("dw_")
    page.get_by_role("link", name="Revoke…").click()
    page.get_by_role("button", name="Revoke nightly").click()
    expect(page.get_by_role("status").first).to_contain_text("revoked")
    assert ApiKey.objects.get().revoked_at is not None
    context.close()
