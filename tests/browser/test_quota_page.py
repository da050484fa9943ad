"""The Quotas page in a real browser: a manager sees the agent flagged over its soft quota,
sets its quotas in place (htmx, no reload), and the same form works without JavaScript."""

import pytest
from playwright.sync_api import Browser, expect

from memory.services import MemoryInput, store_memories
from tenancy.models import MemberRole, WorkspaceMember
from tenancy.quotas import QuotaLimit, quota_limits, set_quotas
from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def over_soft(agent):
    set_quotas(
        workspace=agent.workspace,
        agent=agent,
        limits={"memories": QuotaLimit(1, "soft")},
        actor="test",
    )
    store_memories(agent=agent, items=[MemoryInput(content="one"), MemoryInput(content="two")])
    return agent


def test_a_manager_sees_the_flag_and_sets_an_agents_quota_in_place(
    sign_in, live_server, workspace, over_soft
):
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    page.get_by_role("link", name="Quotas").click()
    row = page.locator("#agent-quotas tbody tr", has_text="support-bot")
    expect(row).to_contain_text("over quota")
    expect(row).to_contain_text("of 1 (soft)")
    page.evaluate("window.notReloaded = true")

    row.get_by_role("link", name="Set the quotas of support-bot").click()
    expect(page.locator("#quota-form-heading")).to_have_text("Quotas of agent support-bot")
    page.get_by_label("Max memories").fill("10")
    page.get_by_label("Memories mode").select_option("hard")
    page.get_by_role("button", name="Save quotas").click()

    expect(page.get_by_role("status")).to_have_text("Quotas of agent support-bot saved.")
    expect(row).not_to_contain_text("over quota")
    expect(row).to_contain_text("of 10 (hard)")
    assert page.evaluate("window.notReloaded") is True
    assert quota_limits(workspace=workspace, agent=over_soft) == {"memories": QuotaLimit(10)}


def test_the_workspace_quota_form_works_without_javascript(
    browser: Browser, live_server, workspace, agent, django_user_model
):
    user = django_user_model.objects.create_user(username="mia", password=PASSWORD)
    WorkspaceMember.objects.create(user=user, workspace=workspace, role=MemberRole.MANAGER)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("mia")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{live_server.url}/app/memory/quotas/")
    expect(page.locator("#quota-form-heading")).to_contain_text("Quotas of workspace acme")
    page.get_by_label("Max storage bytes").fill("1000000")
    page.get_by_label("Storage bytes mode").select_option("soft")
    page.get_by_role("button", name="Save quotas").click()
    expect(page.get_by_role("status").first).to_contain_text("Quotas of workspace acme saved.")
    expect(page.locator("#workspace-storage_bytes")).to_contain_text("soft")
    context.close()
    assert quota_limits(workspace=workspace) == {"storage_bytes": QuotaLimit(1_000_000, "soft")}


def test_a_hard_quota_below_usage_warns_and_is_set_only_when_confirmed(
    sign_in, live_server, workspace, over_soft
):
    page = sign_in("mia", workspace=workspace, role=MemberRole.MANAGER)
    page.goto(f"{live_server.url}/app/memory/quotas/?agent=support-bot#quota-form")
    page.get_by_label("Max memories").fill("1")
    page.get_by_label("Memories mode").select_option("hard")
    page.get_by_role("button", name="Save quotas").click()

    warning = page.locator("#quota-below-usage")
    expect(warning).to_contain_text("Below what is already held")
    expect(warning).to_contain_text("Memories: limit 1, 2 held")
    assert quota_limits(workspace=workspace, agent=over_soft) == {"memories": QuotaLimit(1, "soft")}

    page.get_by_role("button", name="Set below usage anyway").click()
    expect(page.get_by_role("status")).to_have_text("Quotas of agent support-bot saved.")
    expect(page.locator("#quota-below-usage")).to_have_count(0)
    assert quota_limits(workspace=workspace, agent=over_soft) == {"memories": QuotaLimit(1)}
