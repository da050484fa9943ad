"""Members, invitations, the workspace switcher and the audit log in a real browser: a
manager of two workspaces invites a new person, who opens the one-time link in their own
browser, chooses a password and lands in that workspace; the manager switches workspaces
from the header and finds the invitation in the audit log."""

import json
import re

import pytest
from playwright.sync_api import Browser, expect

from facts.services import forget_facts, forget_scope
from tenancy.models import MemberRole, WorkspaceMember
from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_invite_sign_in_switch_and_audit(
    sign_in, live_server, browser: Browser, workspace, other_workspace, agent, other_agent
):
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    WorkspaceMember.objects.create(
        user=WorkspaceMember.objects.get(workspace=workspace).user,
        workspace=other_workspace,
        role=MemberRole.VIEWER,
    )
    page.get_by_role("link", name="Members").click()
    expect(page.get_by_role("heading", name="Members", level=1)).to_be_visible()
    page.evaluate("window.notReloaded = true")
    page.get_by_label("Username or email").fill("nina")
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Add to acme").click()
    expect(page.locator("#invite-link")).to_contain_text("works once")
    link = page.get_by_label("Link").input_value()
    assert link.startswith(f"{live_server.url}/accounts/invite/")
    expect(page.locator("#members")).to_contain_text("nina")
    assert page.evaluate("window.notReloaded") is True

    # Nina, in a browser of her own.
    theirs = browser.new_context()
    nina = theirs.new_page()
    nina.goto(link)
    expect(nina.get_by_role("heading", name="Welcome, nina")).to_be_visible()
    nina.locator("#id_new_password1").fill(PASSWORD)
    nina.locator("#id_new_password2").fill(PASSWORD)
    nina.get_by_role("button", name="Set password and sign in").click()
    nina.wait_for_url(re.compile(r"/app/facts/"))
    expect(nina.locator(".account")).to_contain_text("nina · acme · read only")
    nina.goto(link)
    expect(nina.get_by_role("heading", name="This link no longer works")).to_be_visible()
    theirs.close()

    # Mia belongs to two workspaces: the header switches between them.
    page.get_by_label("Workspace").select_option("globex")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url(re.compile(r"/app/facts/"))
    expect(page.locator(".account")).to_contain_text("globex · read only")
    expect(page.get_by_role("link", name="Audit")).to_have_count(0)
    page.get_by_label("Workspace").select_option("acme")
    page.get_by_role("button", name="Switch").click()
    page.get_by_role("link", name="Audit").click()
    expect(page.get_by_role("heading", name="Audit log")).to_be_visible()
    row = page.locator("tbody tr").first
    expect(row).to_contain_text("Member added")
    expect(row).to_contain_text("user nina")
    # The log as it is filtered, exported.
    with page.expect_download() as download:
        page.get_by_role("link", name="Export JSON").click()
    exported = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert {(e["action"], e["workspace"]) for e in exported} == {("member.add", "acme")}
    page.get_by_label("Action").select_option("fact.delete")
    expect(page.locator("#audit-table")).to_contain_text("No audit events match")

    # The erasure receipts: listed with their counts, each opening its receipt.
    receipt = forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="operator:mia")
    page.get_by_role("link", name="Erasure receipts").click()
    expect(page.get_by_role("heading", name="Erasure receipts")).to_be_visible()
    page.locator("tbody tr").first.get_by_role("link").first.click()
    page.wait_for_url(re.compile(rf"/app/receipts/{receipt.pk}/"))
    expect(page.locator("main")).to_contain_text("Audit events")
    expect(page.locator("main")).not_to_contain_text("Audit_events")
