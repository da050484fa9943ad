"""The review queue's side panel in a real browser: it follows the dispute the keys select,
and from it a dispute is assigned, snoozed out of the queue and commented on, without a
reload; on a narrow screen, and without JavaScript, its Details link opens it as a page."""

import pytest
from playwright.sync_api import expect

from facts.models import DisputeTriage, FactComment
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _disputes(agent) -> None:
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred", confidence=0.6)
    state(agent, "Paris", predicate="city")
    state(agent, "Rome", predicate="city", verification="inferred", confidence=0.5)


def test_the_panel_follows_the_keys_and_assigns_snoozes_and_comments(sign_in, live_server, agent):
    _disputes(agent)
    page = sign_in("ops", staff=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/dashboard/review/")
    page.evaluate("window.notReloaded = true")
    panel = page.locator("#review-panel")
    expect(panel).to_be_visible()

    page.keyboard.press("j")
    expect(panel.locator("#dispute-panel h2")).to_contain_text("Globex")
    expect(panel).to_contain_text("History of the slot")
    page.keyboard.press("j")
    expect(panel.locator("#dispute-panel h2")).to_contain_text("Rome")

    panel.get_by_label("Assign to").select_option(label="ops")
    panel.get_by_role("button", name="Assign", exact=True).click()
    expect(panel.locator("#panel-assignee")).to_contain_text("Assigned to ops")
    assignee = DisputeTriage.objects.get(fact__value="Rome").assignee
    assert assignee is not None
    assert assignee.username == "ops"

    panel.get_by_label("Comment").fill("Asked the user which city")
    panel.get_by_role("button", name="Comment", exact=True).click()
    expect(panel.locator(".comments")).to_contain_text("Asked the user which city")
    assert FactComment.objects.get().author_name == "ops"

    panel.get_by_role("button", name="1 week").click()
    expect(panel).to_contain_text("Snoozed: hidden from the queue")
    expect(page.locator(".review-item")).to_have_count(1)  # Rome left the list
    expect(page.locator(".review-item")).to_contain_text("Globex")
    assert page.evaluate("window.notReloaded") is True

    page.goto(f"{live_server.url}/dashboard/review/?snoozed=only")
    expect(page.locator(".review-item")).to_have_count(1)
    expect(page.locator(".review-item")).to_contain_text("Rome")
    expect(page.locator(".review-item")).to_contain_text("→ ops")


def test_on_a_phone_details_open_the_panel_as_a_page(sign_in, live_server, agent):
    _disputes(agent)
    page = sign_in("ops", staff=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/dashboard/review/")
    expect(page.locator("#review-panel")).to_be_hidden()
    page.keyboard.press("j")
    page.keyboard.press("o")
    expect(page.locator("#dispute-panel h2")).to_contain_text("Globex")
    expect(page.get_by_role("link", name="← Review queue")).to_be_visible()


def test_without_javascript_the_panel_page_assigns_and_comments(
    browser, live_server, django_user_model, agent
):
    _disputes(agent)
    django_user_model.objects.create_user(username="ops", password="pw", is_staff=True)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("ops")
    page.get_by_label("Password").fill("pw")
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/dashboard/review/")
    page.locator(".review-item").first.get_by_role("link", name="Details").click()
    expect(page.locator("#dispute-panel h2")).to_contain_text("Globex")
    page.get_by_label("Assign to").select_option(label="ops")
    page.get_by_role("button", name="Assign", exact=True).click()
    expect(page.locator("#panel-assignee")).to_contain_text("Assigned to ops")
    page.get_by_label("Comment").fill("Checked with sales")
    page.get_by_role("button", name="Comment", exact=True).click()
    expect(page.locator(".comments")).to_contain_text("Checked with sales")
    context.close()
