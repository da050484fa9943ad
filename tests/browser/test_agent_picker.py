"""Two workspaces each have a "support-bot": in a real browser, an operator (who sees every
workspace) tells them apart in the agent picker, by workspace, and lands on the one picked;
the address bar names it with its workspace, so a reload or a shared link shows it again."""

import re

import pytest
from playwright.sync_api import Page, expect

from memory.services import MemoryInput, store_memories
from tests.factories import make_agent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def twins(workspace, other_workspace):
    for ws, note in ((workspace, "Acme ships tea"), (other_workspace, "Globex ships coffee")):
        store_memories(agent=make_agent(ws, "support-bot"), items=[MemoryInput(content=note)])


def rows(page: Page):
    return page.locator("#memories-table tbody tr")


def test_an_operator_picks_one_of_two_agents_with_the_same_id(sign_in, live_server, twins):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/")
    picker = page.get_by_label("Agent")
    expect(picker.locator("optgroup")).to_have_count(2)
    expect(picker.locator('optgroup[label="globex"] option')).to_have_text("support-bot")
    # An operator starts on every agent of every workspace, each row naming its agent.
    expect(picker).to_have_value("")
    expect(rows(page)).to_have_count(2)
    expect(rows(page).filter(has_text="Acme ships tea")).to_contain_text("acme/support-bot")

    picker.select_option("globex/support-bot")
    expect(rows(page).first).to_contain_text("Globex ships coffee")
    expect(rows(page)).to_have_count(1)
    expect(page).to_have_url(re.compile(r"agent=globex%2Fsupport-bot"))

    page.reload()
    expect(rows(page).first).to_contain_text("Globex ships coffee")
    expect(page.get_by_label("Agent")).to_have_value("globex/support-bot")

    page.goto(f"{live_server.url}/dashboard/memory/?agent=support-bot")
    expect(page.get_by_role("heading", name="Which agent?")).to_be_visible()
    page.get_by_role("link", name="globex/support-bot").click()
    expect(rows(page).first).to_contain_text("Globex ships coffee")
