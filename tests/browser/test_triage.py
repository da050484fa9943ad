"""Triage in a real browser: filter the queue, accept two disputes at once, then Undo from
the toast and find them back in review."""

import pytest
from playwright.sync_api import expect

from facts.models import Fact
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_filter_bulk_accept_then_undo_puts_both_back(sign_in, live_server, agent):
    slots = {
        "employer": ("Acme", "Globex"),
        "email": ("a@x.io", "b@x.io"),
        "city": ("Paris", "Rome"),
    }
    for predicate, (current, disputed) in slots.items():
        state(agent, current, predicate=predicate)
        state(agent, disputed, predicate=predicate, verification="inferred")
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    page.get_by_label("Predicate").fill("E")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator(".review-item")).to_have_count(2)
    expect(page.locator("#review-queue")).not_to_contain_text("Rome")
    assert "predicate=E" in page.url

    page.get_by_role("link", name="Select all on this page").click()
    expect(page.locator('input[form="bulk-form"]:checked')).to_have_count(2)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Accept selected").click()
    toast = page.locator("#toast")
    expect(toast).to_contain_text("Accepted 2 disputed values.")
    expect(page.locator("#review-badge")).to_have_text("1")
    assert set(Fact.objects.current().values_list("value", flat=True)) == {
        "Globex",
        "b@x.io",
        "Paris",
    }

    toast.get_by_role("button", name="Undo").click()
    expect(toast).to_contain_text("Undone: 2 disputed values back in review.")
    expect(page.locator(".review-item")).to_have_count(2)  # the filter still applies
    expect(page.locator(".group-current")).to_contain_text(["Acme", "a@x.io"])
    expect(page.locator("#review-badge")).to_have_text("3")
    assert set(Fact.objects.current().values_list("value", flat=True)) == {
        "Acme",
        "a@x.io",
        "Paris",
    }


def test_reject_then_find_it_in_resolved_by_me_and_reopen_it(sign_in, live_server, agent):
    state(agent, "Paris", predicate="city")
    rome = state(agent, "Rome", predicate="city", verification="inferred").fact
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    page.get_by_role("button", name="Reject it, keep the current value").click()
    expect(page.locator("#toast")).to_contain_text("Rome")
    expect(page.locator("#review-badge")).to_have_text("0")

    page.get_by_role("link", name="Resolved by me").click()
    row = page.locator("tbody tr").first
    expect(row).to_contain_text("Rejected")
    expect(row).to_contain_text("rejected")
    row.get_by_role("link", name="Rome").click()

    reopen = page.locator("#reopen")
    reopen.get_by_label("Reason (optional)").fill("Rome was right after all")
    reopen.get_by_role("button", name="Reopen").click()
    expect(page.locator("#reopen")).to_have_count(0)
    expect(page.locator("#fact-detail")).to_contain_text("disputed")
    assert Fact.objects.get(pk=rome.pk).status == "disputed"
    page.goto(f"{live_server.url}/dashboard/review/mine/")
    expect(page.locator("tbody tr").first).to_contain_text("Reopened")


def test_undo_stays_in_sight_after_moving_down_the_queue_by_keyboard(sign_in, live_server, agent):
    for number in range(10):
        state(agent, f"Acme {number}", predicate=f"employer_{number}")
        state(agent, f"Globex {number}", predicate=f"employer_{number}", verification="inferred")
    page = sign_in("ops", staff=True)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{live_server.url}/dashboard/review/")
    for _ in range(7):
        page.keyboard.press("j")
    page.keyboard.press("r")
    expect(page.locator("#review-badge")).to_have_text("9")
    undo = page.locator("#toast").get_by_role("button", name="Undo")
    expect(undo).to_be_in_viewport()
    undo.click()
    expect(page.locator("#review-badge")).to_have_text("10")
    assert not Fact.objects.filter(status="rejected").exists()


def test_keys_select_filter_undo_and_list_themselves(sign_in, live_server, agent):
    for predicate, (current, disputed) in {
        "employer": ("Acme", "Globex"),
        "city": ("Paris", "Rome"),
    }.items():
        state(agent, current, predicate=predicate)
        state(agent, disputed, predicate=predicate, verification="inferred")
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    keys = page.locator("#review-keys")
    expect(keys).not_to_have_attribute("open", "")
    page.keyboard.press("?")
    expect(keys).to_have_attribute("open", "")
    expect(keys).to_contain_text("select the dispute for a bulk action")
    page.keyboard.press("?")
    expect(keys).not_to_have_attribute("open", "")

    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(page.locator('input[form="bulk-form"]:checked')).to_have_count(1)
    page.keyboard.press("x")
    expect(page.locator('input[form="bulk-form"]:checked')).to_have_count(0)

    page.evaluate("window.notReloaded = true")
    page.keyboard.press("r")
    expect(page.locator("#review-badge")).to_have_text("1")
    page.keyboard.press("u")
    expect(page.locator("#toast")).to_contain_text("Undone: 1 disputed value back in review.")
    expect(page.locator("#review-badge")).to_have_text("2")
    assert page.evaluate("window.notReloaded") is True
    assert not Fact.objects.filter(status="rejected").exists()
    expect(page.locator(".review-item").first).to_be_focused()  # the queue came back whole

    page.keyboard.press("/")
    expect(page.locator("#id_predicate")).to_be_focused()
    page.keyboard.type("ci")
    expect(page.locator(".review-item")).to_have_count(1)
    expect(page.locator(".review-item")).to_contain_text("Rome")


def test_every_matching_dispute_beyond_the_page_is_rejected_after_one_confirmation(
    sign_in, live_server, agent
):
    from facts.triage import GROUPED_QUEUE_LIMIT

    count = GROUPED_QUEUE_LIMIT + 2
    for n in range(count):
        state(agent, f"Acme {n}", predicate=f"employer_{n}")
        state(agent, f"Globex {n}", predicate=f"employer_{n}", verification="inferred")
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    page.evaluate("window.notReloaded = true")
    page.get_by_role("button", name="Reject all matching…").click()
    expect(page.get_by_role("heading", name=f"Reject {count} disputed values?")).to_be_visible()
    assert not Fact.objects.filter(status="rejected").exists()
    page.get_by_role("button", name=f"Yes, reject {count}").click()
    expect(page.locator("#toast")).to_contain_text(f"Rejected {count} disputed values.")
    expect(page.locator("#review-badge")).to_have_text("0")
    assert Fact.objects.filter(status="rejected").count() == count

    page.locator("#toast").get_by_role("button", name="Undo").click()
    expect(page.locator("#review-badge")).to_have_text(str(count))
    assert page.evaluate("window.notReloaded") is True
    assert not Fact.objects.filter(status="rejected").exists()


def test_the_queue_is_dense_enough_to_read_at_a_glance(sign_in, live_server, agent):
    """23 disputes (the walk's queue): the first shows whole in the first screen, and the
    page stays within about two screens per ten disputes."""
    for n in range(23):
        state(agent, f"Acme {n}", predicate=f"employer_{n}")
        state(agent, f"Globex {n}", predicate=f"employer_{n}", verification="inferred")
    page = sign_in("ops", staff=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/dashboard/review/")
    first = page.locator(".review-item").first.bounding_box()
    assert first is not None
    assert first["y"] + first["height"] <= 900, first
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= 5_000, height
