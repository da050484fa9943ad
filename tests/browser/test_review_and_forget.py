"""The review queue and forget in a real browser: settle disputes without a reload, with the
mouse and with the keyboard; forget behind a typed confirmation, then the receipt."""

import pytest
from playwright.sync_api import expect

from facts.models import Fact
from tenancy.models import ErasureReceipt
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_accepting_in_the_queue_updates_the_item_and_badge_without_a_reload(
    sign_in, live_server, agent, disputed
):
    state(agent, "Paris", predicate="city")
    state(agent, "Lyon", predicate="city", verification="inferred")
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    page.evaluate("window.notReloaded = true")
    badge = page.locator("#review-badge")
    expect(badge).to_have_text("2")
    page.locator(f"#review-{disputed.pk}").get_by_role(
        "button", name="Accept disputed value"
    ).click()
    expect(badge).to_have_text("1")
    expect(page.locator("#toast")).to_contain_text("“Globex” accepted")
    expect(page.locator(f"#review-{disputed.pk}")).to_have_count(0)
    assert page.evaluate("window.notReloaded") is True
    assert Fact.objects.get(pk=disputed.pk).status == "current"


def test_keyboard_rejects_the_focused_dispute(sign_in, live_server, disputed):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    page.keyboard.press("j")
    expect(page.locator(f"#review-{disputed.pk}")).to_be_focused()
    page.keyboard.press("r")
    expect(page.locator("#review-badge")).to_have_text("0")
    assert Fact.objects.get(pk=disputed.pk).status == "rejected"
    assert Fact.objects.get(value="Acme").status == "current"


def test_keyboard_moves_between_disputes_and_accepts_the_focused_one(
    sign_in, live_server, agent, disputed
):
    state(agent, "Paris", predicate="city")
    lyon = state(agent, "Lyon", predicate="city", verification="inferred").fact
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/review/")
    first, second = page.locator(f"#review-{disputed.pk}"), page.locator(f"#review-{lyon.pk}")
    page.keyboard.press("j")
    expect(first).to_be_focused()
    page.keyboard.press("j")
    expect(second).to_be_focused()
    page.keyboard.press("k")
    expect(first).to_be_focused()
    page.keyboard.press("j")
    expect(second).to_be_focused()
    page.keyboard.press("a")
    expect(page.locator("#toast")).to_contain_text("“Lyon” accepted")
    expect(page.locator("#review-badge")).to_have_text("1")
    assert Fact.objects.get(pk=lyon.pk).status == "current"
    assert Fact.objects.get(value="Paris").status == "history"
    assert Fact.objects.get(pk=disputed.pk).status == "disputed"  # j/k changed nothing


def test_forget_needs_the_typed_confirmation_then_shows_the_receipt(
    sign_in, live_server, agent, disputed
):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/{disputed.pk}/")
    page.get_by_role("link", name="Forget user “u1” (2 facts)…").click()
    expect(page.get_by_role("heading", name="Forget user")).to_be_visible()
    expect(page.locator("#forget-panel .meta")).to_contain_text("2")  # the counts to be erased
    confirmation = page.get_by_label("to confirm")
    confirmation.fill("someone else")
    page.get_by_role("button", name="Erase for good").click()
    expect(page.locator(".field-error")).to_contain_text("exactly to erase")
    assert Fact.objects.filter(agent=agent).count() == 2
    assert not ErasureReceipt.objects.exists()
    page.get_by_label("to confirm").fill("u1")
    page.get_by_role("button", name="Erase for good").click()
    page.wait_for_url("**/receipts/**")
    expect(page.locator("body")).to_contain_text("Receipt")
    receipt = ErasureReceipt.objects.get()
    assert receipt.counts["facts"] == 2
    assert not Fact.objects.filter(agent=agent).exists()
    expect(page.locator("body")).not_to_contain_text("Globex")


def test_forget_subject_user_from_a_fact_erases_that_users_facts_only(sign_in, live_server, agent):
    """The subject "user" stands for each fact's own user: its button offers this user's
    facts, names how many, and the erasure leaves every other user's facts alone."""
    fact = state(agent, "Acme").fact
    state(agent, "Paris", predicate="city")
    others = [state(agent, "Hooli", user=f"u{n}").fact.pk for n in range(2, 6)]
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/{fact.pk}/")
    offers = page.locator(".forget-offers")
    expect(offers).not_to_contain_text("6 facts")  # never "subject user" of every user
    expect(offers).to_contain_text("2 facts with subject “user” about user “u1” only.")
    page.get_by_role("link", name="Forget subject “user” of user “u1” only (2 facts)…").click()
    expect(
        page.get_by_role("heading", name="Forget subject “user” of user “u1” only")
    ).to_be_visible()
    expect(page.locator("#forget-covers")).to_contain_text(
        "2 facts with subject “user” about user “u1” only"
    )
    page.get_by_label("to confirm").fill("user")
    page.get_by_role("button", name="Erase for good").click()
    expect(page.locator(".field-error")).to_contain_text("Type 'u1' exactly to erase.")
    assert Fact.objects.count() == 6
    page.get_by_label("to confirm").fill("u1")
    page.get_by_role("button", name="Erase for good").click()
    page.wait_for_url("**/receipts/**")
    expect(page.locator("#receipt")).to_contain_text("subject user of one user is gone")
    assert ErasureReceipt.objects.get().counts["facts"] == 2
    assert sorted(Fact.objects.values_list("pk", flat=True)) == others
