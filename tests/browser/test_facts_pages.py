"""The Facts pages in a real browser: filters, point in time, delete, isolation, roles."""

from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from facts.models import Fact
from tenancy.models import MemberRole
from tests.browser.conftest import PASSWORD
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_status_filter_updates_the_table_without_a_reload(sign_in, live_server, disputed):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/")
    page.evaluate("window.notReloaded = true")
    page.get_by_role("combobox", name="Status").select_option("disputed")
    rows = page.locator("#facts-table tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Globex")
    assert page.evaluate("window.notReloaded") is True
    assert "status=disputed" in page.url  # shareable, and the back button works
    page.go_back()
    expect(page.locator("#facts-table tbody tr")).to_have_count(2)


def test_fact_page_shows_sources_and_history(sign_in, live_server, disputed):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/?status=disputed")
    page.get_by_role("link", name="Globex").first.click()
    expect(page.locator("body")).to_contain_text("said so")  # the source excerpt
    expect(page.locator("body")).to_contain_text("conv-1")
    history = page.locator("body")
    expect(history).to_contain_text("Acme")
    expect(history).to_contain_text("current")


def test_point_in_time_shows_what_was_believed_then(sign_in, live_server, agent):
    old = state(agent, "Acme").fact
    new = state(agent, "Globex").fact
    change = datetime(2026, 6, 1, tzinfo=UTC)
    Fact.objects.filter(pk=old.pk).update(
        believed_from=datetime(2026, 1, 1, tzinfo=UTC), believed_until=change
    )
    Fact.objects.filter(pk=new.pk).update(believed_from=change)
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/")
    as_of = page.get_by_label("As of")
    as_of.fill("2026-03-01T12:00")
    as_of.dispatch_event("input")
    expect(page.locator("#facts-table tbody tr")).to_have_count(1)
    expect(page.locator("#facts-table tbody")).to_contain_text("Acme")
    as_of.fill("2026-07-01T12:00")
    as_of.dispatch_event("input")
    # Then Globex was current and Acme its history: each row with the status it had then.
    rows = page.locator("#facts-table tbody tr")
    expect(rows).to_have_count(2)
    # Rows are told apart by their value's link: each row also names its agent, acme/….
    expect(rows.filter(has=page.get_by_role("link", name="Globex"))).to_contain_text("current")
    expect(rows.filter(has=page.get_by_role("link", name="Acme", exact=True))).to_contain_text(
        "history"
    )


def test_delete_requires_a_reason(sign_in, live_server, agent):
    fact = state(agent, "Acme").fact
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/{fact.pk}/")
    page.get_by_role("button", name="Delete fact").click()
    # The browser refuses to send the form; the server refuses it too (tests/dashboard).
    assert page.get_by_label("Reason").evaluate("el => el.validity.valueMissing") is True
    assert Fact.objects.get(pk=fact.pk).status == "current"
    page.get_by_label("Reason").fill("entered for the wrong user")
    page.get_by_role("button", name="Delete fact").click()
    expect(page.get_by_text("Fact deleted; its record stays.")).to_be_visible()
    fact.refresh_from_db()
    assert (fact.status, fact.status_reason) == ("deleted", "entered for the wrong user")


def test_a_manager_cannot_open_another_workspaces_fact(
    sign_in, live_server, workspace, other_agent
):
    foreign = state(other_agent, "Globex secret").fact
    page = sign_in("anna", workspace=workspace, role=MemberRole.MANAGER)
    response = page.goto(f"{live_server.url}/app/facts/{foreign.pk}/")
    assert response is not None
    assert response.status == 404
    expect(page.locator("body")).not_to_contain_text("Globex secret")


def test_a_viewer_sees_no_actions_and_a_forged_post_is_refused(
    sign_in, live_server, workspace, disputed
):
    page: Page = sign_in("vic", workspace=workspace, role=MemberRole.VIEWER)
    page.goto(f"{live_server.url}/app/facts/{disputed.pk}/")
    expect(page.locator("body")).to_contain_text("Globex")
    expect(page.get_by_role("button", name="Accept disputed value")).to_have_count(0)
    expect(page.get_by_role("button", name="Delete fact")).to_have_count(0)
    token = page.evaluate("JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']")
    forged = page.request.post(
        f"{live_server.url}/app/facts/{disputed.pk}/resolve/",
        form={"action": "accept"},
        headers={"X-CSRFToken": token, "Referer": live_server.url},
    )
    assert forged.status == 403
    assert Fact.objects.get(pk=disputed.pk).status == "disputed"


def test_check_text_previews_two_contradictions_then_applies_them(sign_in, live_server, agent):
    state(agent, "Google", user="ana")
    state(agent, "Jakarta", user="ana", predicate="city")
    page = sign_in("ops", staff=True)
    # Text is checked against one agent's facts: the link shows once an agent is picked.
    page.goto(f"{live_server.url}/dashboard/facts/?user=ana")
    expect(page.get_by_role("link", name="Check text against these facts")).to_have_count(0)
    page.get_by_label("Agent").select_option(agent.qualified_id)
    page.get_by_role("link", name="Check text against these facts").click()
    page.get_by_label("Text").fill("I just moved to Surabaya for my new job at Anthropic")
    page.evaluate("window.notReloaded = true")
    page.get_by_role("button", name="Check").click()
    contradicted = page.locator("table.check-contradicted tbody tr")
    expect(contradicted).to_have_count(2)
    expect(contradicted.filter(has_text="employer")).to_contain_text("Google → Anthropic")
    expect(contradicted.filter(has_text="city")).to_contain_text("Jakarta → Surabaya")
    assert Fact.objects.filter(agent=agent, value__in=["Anthropic", "Surabaya"]).count() == 0
    page.get_by_role("button", name="Apply these changes").click()
    applied = page.locator("table.check-applied tbody tr")
    expect(applied).to_have_count(2)
    expect(applied.filter(has_text="Anthropic")).to_contain_text("superseded")
    expect(applied.filter(has_text="Surabaya")).to_contain_text("superseded")
    assert page.evaluate("window.notReloaded") is True  # both steps were htmx swaps
    page.get_by_role("link", name="See the facts of user ana").click()
    rows = page.locator("#facts-table tbody tr")
    expect(rows.filter(has_text="Anthropic")).to_contain_text("current")
    expect(rows.filter(has_text="Surabaya")).to_contain_text("current")
    expect(rows.filter(has_text="Google")).to_contain_text("history")


def test_times_are_typed_in_the_viewers_zone_and_a_copied_row_time_finds_its_row(
    browser, live_server, agent, django_user_model
):
    acme, globex = state(agent, "Acme").fact, state(agent, "Globex").fact
    change = datetime(2026, 6, 1, tzinfo=UTC)  # 09:00 in Tokyo
    Fact.objects.filter(pk=acme.pk).update(
        believed_from=datetime(2026, 1, 1, tzinfo=UTC),
        recorded_at=datetime(2026, 1, 1, tzinfo=UTC),
        believed_until=change,
    )
    Fact.objects.filter(pk=globex.pk).update(believed_from=change, recorded_at=change)
    django_user_model.objects.create_user(username="ops", password=PASSWORD, is_staff=True)
    context = browser.new_context(timezone_id="Asia/Tokyo")
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")  # its script sets the zone's cookie
    page.get_by_label("Username").fill("ops")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/dashboard/facts/")
    rows = page.locator("#facts-table tbody tr")
    recorded = rows.filter(has=page.get_by_role("link", name="Globex")).locator(
        "td[data-label='Recorded'] time"
    )
    expect(recorded).to_have_text("2026-06-01 09:00:00 JST")

    as_of = page.get_by_label("As of")
    as_of.fill(recorded.inner_text())  # copied from the row as shown
    as_of.dispatch_event("input")
    expect(rows.filter(has=page.get_by_role("link", name="Globex"))).to_contain_text("current")
    # 08:30 in Tokyo is before the change (it would be after it read as UTC).
    as_of.fill("2026-06-01 08:30")
    as_of.dispatch_event("input")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Acme")
    # UTC stays available: 08:30 UTC is after the change.
    as_of.fill("2026-06-01 08:30 UTC")
    as_of.dispatch_event("input")
    expect(rows.filter(has=page.get_by_role("link", name="Globex"))).to_contain_text("current")
    context.close()
