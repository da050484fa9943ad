"""Restoring a deleted fact, then seeing both changes on the Changes page, in a real
browser, as a workspace manager."""

import pytest
from playwright.sync_api import expect

from facts.models import Fact
from tenancy.models import MemberRole
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_delete_restore_then_both_changes_are_listed(sign_in, live_server, workspace, agent):
    fact = state(agent, "Acme").fact
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    page.goto(f"{live_server.url}/app/facts/{fact.pk}/")
    page.locator("#delete").get_by_label("Reason").fill("entered for the wrong user")
    page.get_by_role("button", name="Delete fact").click()
    expect(page.get_by_text("Fact deleted; its record stays.")).to_be_visible()

    restore = page.get_by_role("button", name="Restore fact")
    restore.click()
    # The box must be ticked: the browser does not send the form without it.
    assert page.locator("#restore-confirm").evaluate("el => el.validity.valueMissing") is True
    assert Fact.objects.get(pk=fact.pk).status == "deleted"
    page.locator("#delete").get_by_label("Reason (optional)").fill(
        "it was the right user after all"
    )
    page.get_by_label("Yes, restore this fact").check()
    restore.click()
    expect(page.get_by_text("it is the current value again")).to_be_visible()
    expect(page.locator("#fact-detail .status").first).to_have_text("current")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Changes").click()
    rows = page.locator("#changes tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("restored")
    expect(rows.nth(1)).to_contain_text("deleted")
    expect(rows.nth(2)).to_contain_text("added")
    page.get_by_role("combobox", name="Kind").select_option("deleted")
    expect(rows).to_have_count(1)
    assert "kind=deleted" in page.url
    rows.first.get_by_role("link", name="Acme").click()
    expect(page.locator("h1")).to_have_text("Acme")
    assert page.url.endswith(f"/app/facts/{fact.pk}/")
