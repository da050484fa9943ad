"""In a real browser: an operator types into the search box of the top navigation, follows
a user it found, then narrows the facts with a suggestion of the user filter."""

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def people(agent):
    for user in ("ana", "andre", "bob"):
        state(agent, f"Works at {user.title()} Corp", user=user)


def rows(page: Page):
    return page.locator("#facts-table tbody tr")


def test_search_a_user_then_filter_with_a_suggestion(sign_in, live_server, people):
    page = sign_in("ops", staff=True)
    box = page.get_by_role("searchbox", name="Find")
    box.fill("AN")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/dashboard/search/\?q=AN"))
    users = page.locator("#search-users a.search-user")
    expect(users).to_have_text(["ana", "andre"])
    users.filter(has_text="andre").click()
    # A user found leads to their person page: what the agents hold about them.
    expect(page).to_have_url(re.compile(r"/dashboard/memory/people/\?user=andre$"))
    expect(page.locator("main")).to_contain_text("Works at Andre Corp")
    expect(page.locator("main")).not_to_contain_text("Works at Bob Corp")

    # The filter's suggestions: its datalist fills in as the person types.
    page.goto(f"{live_server.url}/dashboard/facts/")
    expect(rows(page)).to_have_count(3)
    user = page.get_by_label("User", exact=True)
    user.press_sequentially("B")
    options = page.locator("#suggest-user option")
    expect(options).to_have_count(1)
    suggestion = options.first.get_attribute("value")
    assert suggestion == "bob"
    user.fill(suggestion)
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("Works at Bob Corp")
    expect(page).to_have_url(re.compile(r"user=bob"))
    # What the list shows, exported with its filters.
    with page.expect_download() as download:
        page.get_by_role("link", name="Export CSV").click()
    text = download.value.path().read_text(encoding="utf-8-sig")
    assert [r["value"] for r in csv.DictReader(io.StringIO(text))] == ["Works at Bob Corp"]
    # Clear keeps the agent picked (none here: all agents) and drops the user.
    page.get_by_role("link", name="Clear").click()
    expect(rows(page)).to_have_count(3)
