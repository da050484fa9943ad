"""Sorting a list by its headers and saving a list's view, in a real browser: with htmx (the
table alone is replaced, the URL follows) and without JavaScript (plain links and forms).

Every step waits for something that only the step's own answer puts on the page."""

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tenancy.models import SavedView
from tests.browser.conftest import PASSWORD
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONFIDENCES = [("a", 0.5), ("b", 0.9), ("c", 0.1), ("d", 0.7), ("e", 0.3)]


@pytest.fixture
def facts(agent, monkeypatch):
    """Five facts whose confidence is not their order, two to a page."""
    for value, confidence in CONFIDENCES:
        state(agent, value, predicate=f"p-{value}", confidence=confidence)
    monkeypatch.setattr("facts.views.PAGE_SIZE", 2)


def values(page: Page):
    return page.locator("#facts-table tbody td[data-label=Value] a:first-child")


def header(page: Page, name: str):
    return page.locator("#facts-table thead th", has_text=name)


def test_headers_sort_with_htmx_and_the_pager_and_filters_keep_the_order(
    sign_in, live_server, facts
):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/?agent=support-bot")
    expect(values(page)).to_have_text(["e", "d"])
    expect(header(page, "Recorded")).to_have_attribute("aria-sort", "descending")
    page.evaluate("window.notReloaded = true")

    page.get_by_role("link", name="Confidence").click()
    expect(values(page)).to_have_text(["b", "d"])
    expect(header(page, "Confidence")).to_have_attribute("aria-sort", "descending")
    expect(header(page, "Confidence")).to_contain_text("▼")
    expect(header(page, "Recorded")).not_to_have_attribute("aria-sort", re.compile(".*"))
    expect(page).to_have_url(re.compile(r"sort=-confidence"))

    page.get_by_role("link", name="Confidence").click()
    expect(values(page)).to_have_text(["c", "e"])
    expect(header(page, "Confidence")).to_have_attribute("aria-sort", "ascending")
    expect(page).to_have_url(re.compile(r"sort=confidence"))

    page.get_by_role("link", name="Next page").click()
    expect(values(page)).to_have_text(["a", "d"])
    expect(page).to_have_url(re.compile(r"sort=confidence&cursor="))

    # A filter typed keeps the order (the filter form carries it), and so does clearing it.
    page.get_by_label("Value contains").fill("e")
    expect(values(page)).to_have_text(["e"])
    expect(page).to_have_url(re.compile(r"q=e"))
    assert "sort=confidence" in page.url
    page.get_by_label("Value contains").fill("")
    expect(values(page)).to_have_text(["c", "e"])
    expect(header(page, "Confidence")).to_have_attribute("aria-sort", "ascending")
    assert page.evaluate("window.notReloaded") is True

    page.go_back()  # htmx's history: the filtered list, in its order
    expect(values(page)).to_have_text(["e"])


def plain_browser(browser: Browser, live_server, django_user_model, username: str) -> Page:
    """A staff member in a browser with JavaScript off."""
    django_user_model.objects.create_user(username=username, password=PASSWORD, is_staff=True)
    page = browser.new_context(java_script_enabled=False).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/dashboard/"))
    return page


def test_headers_pager_and_filters_without_javascript(
    live_server, browser: Browser, django_user_model, facts
):
    page = plain_browser(browser, live_server, django_user_model, "ops")
    page.goto(f"{live_server.url}/dashboard/facts/?agent=support-bot")
    page.get_by_role("link", name="Confidence").click()
    expect(values(page)).to_have_text(["b", "d"])
    expect(header(page, "Confidence")).to_have_attribute("aria-sort", "descending")
    page.get_by_role("link", name="Next page").click()
    expect(values(page)).to_have_text(["a", "e"])
    # The filter form sends the order along (a hidden input of that form).
    page.get_by_label("Value contains").fill("e")
    page.get_by_role("button", name="Filter").click()
    expect(values(page)).to_have_text(["e"])
    assert "sort=-confidence" in page.url
    page.get_by_label("Value contains").fill("")
    page.get_by_role("button", name="Filter").click()
    expect(values(page)).to_have_text(["b", "d"])
    page.context.close()


def test_save_open_and_delete_a_view_and_find_it_in_the_palette(
    sign_in, live_server, browser: Browser, facts, workspace
):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/?agent=support-bot")
    page.get_by_role("link", name="Confidence").click()
    expect(values(page)).to_have_text(["b", "d"])
    page.get_by_role("link", name="Confidence").click()
    expect(values(page)).to_have_text(["c", "e"])
    page.get_by_label("Save this view as").fill("Least sure first")
    page.get_by_role("button", name="Save view").click()
    expect(page.get_by_role("status").first).to_contain_text("“Least sure first” saved")
    view = SavedView.objects.get()
    assert (view.page, view.query) == ("facts:list", "agent=support-bot&sort=confidence")

    page.goto(f"{live_server.url}/dashboard/facts/")
    expect(values(page)).to_have_text(["e", "d"])
    saved = page.locator("#saved-views")
    saved.get_by_role("link", name="Least sure first", exact=True).click()
    expect(values(page)).to_have_text(["c", "e"])
    expect(saved.get_by_role("link", name="Least sure first", exact=True)).to_have_attribute(
        "aria-current", "true"
    )

    # The same name again is refused on the form, and nothing more is saved.
    page.get_by_label("Save this view as").fill("least SURE first")
    page.get_by_role("button", name="Save view").click()
    expect(page.locator("#save-view-error")).to_contain_text("already have a view named")
    assert SavedView.objects.count() == 1
    page.get_by_role("link", name="Cancel").click()

    # From any page, Ctrl-K finds it.
    page.goto(f"{live_server.url}/dashboard/memory/maintenance/")
    page.keyboard.press("Control+k")
    page.keyboard.type("least")
    expect(page.locator("#palette-pages a")).to_have_text(["Least sure first (Facts)"])
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/dashboard/facts/\?agent=support-bot&sort=confidence$"))
    expect(values(page)).to_have_text(["c", "e"])

    # Someone else sees none of it.
    other = browser.new_context().new_page()
    other.goto(f"{live_server.url}/accounts/login/")
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username="ida", password=PASSWORD, is_staff=True)
    other.get_by_label("Username").fill("ida")
    other.get_by_label("Password").fill(PASSWORD)
    other.get_by_role("button", name="Sign in").click()
    other.wait_for_url(re.compile(r"/dashboard/"))
    other.goto(f"{live_server.url}/dashboard/facts/")
    expect(other.locator("#save-view")).to_be_visible()
    expect(other.locator("#saved-views")).not_to_contain_text("Least sure first")
    other.goto(f"{live_server.url}/dashboard/views/{view.pk}/delete/")
    expect(other.get_by_role("heading", name="Delete the saved view")).to_have_count(0)
    other.context.close()

    # Deleting asks first.
    page.locator("#saved-views").get_by_role("link", name="Delete the saved view").click()
    expect(
        page.get_by_role("heading", name="Delete the saved view “Least sure first”?")
    ).to_be_visible()
    assert SavedView.objects.count() == 1
    page.get_by_role("button", name="Delete “Least sure first”").click()
    expect(page.get_by_role("status").first).to_contain_text("deleted")
    expect(page.locator("#saved-views")).not_to_contain_text("Least sure first")
    assert SavedView.objects.count() == 0


def test_save_and_delete_a_view_without_javascript(
    live_server, browser: Browser, django_user_model, agent
):
    state(agent, "Acme")
    page = plain_browser(browser, live_server, django_user_model, "ops")
    page.goto(f"{live_server.url}/dashboard/audit/?sort=-actor")
    page.get_by_label("Save this view as").fill("By actor")
    page.get_by_role("button", name="Save view").click()
    expect(page.get_by_role("status").first).to_contain_text("“By actor” saved")
    assert page.url.endswith("/dashboard/audit/?sort=-actor")
    assert SavedView.objects.get().query == "sort=-actor"
    page.goto(f"{live_server.url}/dashboard/audit/")
    page.locator("#saved-views").get_by_role("link", name="Delete the saved view By actor").click()
    page.get_by_role("button", name="Delete “By actor”").click()
    expect(page.get_by_role("status").first).to_contain_text("deleted")
    assert SavedView.objects.count() == 0
    page.context.close()
