"""The inbox in a real browser: staff land on what needs them, reorder the agents without a
reload, and reach the review queue of one agent from its row."""

import re

import pytest
from playwright.sync_api import expect

from tests.factories import make_agent, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_land_on_the_inbox_and_go_from_an_agent_to_its_disputes(
    sign_in, live_server, workspace, agent
):
    sales = make_agent(workspace, "sales-bot")
    for bot, (current, disputed) in ((agent, ("Acme", "Globex")), (sales, ("Hooli", "Initech"))):
        state(bot, current)
        state(bot, disputed, verification="inferred")
    page = sign_in("ops", staff=True)
    expect(page).to_have_url(re.compile(r"/dashboard/inbox/$"))
    expect(page.get_by_role("link", name="Inbox")).to_have_attribute("aria-current", "page")
    rows = page.locator("#inbox-disputes tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("support-bot")  # its dispute has waited longest

    page.evaluate("window.notReloaded = true")
    page.get_by_role("link", name="Newest first").click()
    expect(rows.first).to_contain_text("sales-bot")
    assert page.evaluate("window.notReloaded") is True
    assert "order=newest" in page.url

    rows.first.get_by_role("link", name="sales-bot").click()
    expect(page).to_have_url(re.compile(r"/dashboard/review/\?agent="))
    expect(page.locator(".review-item")).to_have_count(1)
    expect(page.locator(".review-item")).to_contain_text("Initech")
