"""The command palette in a real browser: Ctrl-K from any page, the nav's pages filtered as
one types (Enter opens the first), and what the search box finds, without leaving the page."""

import re

import pytest
from playwright.sync_api import expect

from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_ctrl_k_goes_to_a_page_or_finds_an_agent(sign_in, live_server, agent):
    state(agent, "Acme", user="ana")
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/")
    palette = page.locator("#palette")
    expect(palette).not_to_be_visible()

    page.keyboard.press("Control+k")
    expect(palette).to_be_visible()
    expect(page.locator("#palette-q")).to_be_focused()
    page.keyboard.type("quo")
    expect(page.locator("#palette-pages a")).to_have_text(["Quotas"])
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/dashboard/memory/quotas/$"))

    page.keyboard.press("Control+k")
    page.keyboard.type("ana")
    results = page.locator("#palette-results")
    expect(results.get_by_role("link", name="ana", exact=True)).to_be_visible()
    assert "/quotas/" in page.url  # found without leaving the page
    page.keyboard.press("Escape")
    expect(palette).not_to_be_visible()
