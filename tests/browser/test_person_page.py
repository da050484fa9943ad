"""A person's page in a real browser: from a fact's user to everything the workspace's
agents hold about them, another person looked up in place, and the export download."""

import json

import pytest
from playwright.sync_api import expect

from memory.services import MemoryInput, start_session, store_memories
from tests.browser.conftest import MemberRole
from tests.factories import make_agent, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

USER = "ana/7"


@pytest.fixture
def person(agent, workspace):
    session = start_session(agent=agent, user=USER)
    store_memories(agent=agent, items=[MemoryInput(content="Ana asked", session_id=session.pk)])
    sales = make_agent(workspace, "sales-bot")
    state(sales, "tea", user=USER, predicate="drink", category="preference")
    state(agent, "Lisbon", user="bob", predicate="city")
    employer = state(agent, "Acme", user=USER).fact
    state(agent, "Globex", user=USER, verification="inferred", confidence=0.6)
    return employer


def test_from_a_facts_user_to_their_page_another_person_and_the_export(
    sign_in, live_server, person, workspace
):
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    page.goto(f"{live_server.url}/app/facts/{person.pk}/")
    page.get_by_role("link", name=USER, exact=True).click()
    page.wait_for_url("**/app/memory/people/?user=ana/7")
    expect(page.get_by_role("heading", name=f"Person “{USER}”")).to_be_visible()
    section = page.locator("#person-workspace-acme")
    expect(section.locator('[data-agent="support-bot"] caption')).to_contain_text("support-bot")
    expect(section.locator(".person-facts tbody tr")).to_have_count(2)
    expect(section.locator('.person-facts[data-agent="sales-bot"]')).to_contain_text("tea")
    expect(section.locator(".person-disputes")).to_contain_text("Globex")
    expect(section.locator(".person-disputes")).to_contain_text("(now Acme)")
    expect(section.locator(".person-memories")).to_contain_text("Ana asked")
    expect(section.locator(".person-sessions tbody tr")).to_have_count(1)

    # Another person, looked up with the form: the panel is swapped in place (htmx).
    page.evaluate("window.notReloaded = true")
    page.get_by_label("User id").fill("bob")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", name="Person “bob”")).to_be_visible()
    expect(page.locator("#person")).to_contain_text("Lisbon")
    assert page.evaluate("window.notReloaded") is True
    page.wait_for_url("**/app/memory/people/?user=bob")

    page.go_back()
    expect(page.get_by_role("heading", name=f"Person “{USER}”")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name=f"Export everything about {USER} (JSON)").click()
    data = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert sorted(f["value"] for f in data["facts"]) == ["Acme", "Globex", "tea"]
