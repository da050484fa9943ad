"""The dashboard's Quotas page: usage against limits and the over-quota flag, setting quotas
with and without htmx, who may, and isolation."""

import pytest

from memory.services import MemoryInput, store_memories
from tenancy.models import AuditAction, AuditEvent
from tenancy.quotas import QuotaLimit, quota_limits, set_quotas
from tests.dashboard.conftest import app

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/memory/quotas/"
SET = "/dashboard/memory/quotas/set/"
HTMX = {"HX-Request": "true"}


def form(**fields):
    data = {
        "memories_limit": "",
        "memories_mode": "hard",
        "storage_bytes_limit": "",
        "storage_bytes_mode": "hard",
        "metadata_bytes_limit": "",
        "metadata_bytes_mode": "hard",
    }
    return {**data, **fields}


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


def test_staff_see_usage_bars_and_the_soft_quota_flag(staff_client, over_soft):
    page = staff_client.get(PAGE, {"workspace": "acme"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "support-bot" in html
    assert "over quota" in html
    assert '<meter min="0" max="1" value="2"' in html
    assert "of 1 (soft)" in html


def test_a_manager_sees_their_workspace_and_a_viewer_may_not(
    manager_client, viewer_client, over_soft, other_agent
):
    page = manager_client.get(app(PAGE))
    assert page.status_code == 200
    html = page.content.decode()
    assert "support-bot" in html
    assert "globex-bot" not in html
    assert viewer_client.get(app(PAGE)).status_code == 403


def test_a_manager_cannot_reach_another_workspaces_agent(manager_client, agent, other_agent):
    assert manager_client.get(app(PAGE), {"agent": "globex-bot"}).status_code == 404
    refused = manager_client.post(
        app(SET), form(agent="globex-bot", memories_limit="0", workspace="globex")
    )
    assert refused.status_code == 404
    assert quota_limits(workspace=other_agent.workspace, agent=other_agent) == {}


def test_setting_an_agents_quotas_without_javascript_redirects_back(staff_client, agent):
    response = staff_client.post(
        SET,
        form(
            workspace="acme",
            agent="support-bot",
            memories_limit="100",
            storage_bytes_limit="5000",
            storage_bytes_mode="soft",
        ),
    )
    assert response.status_code == 302
    assert response["Location"] == f"{PAGE}?workspace=acme&agent=support-bot"
    assert quota_limits(workspace=agent.workspace, agent=agent) == {
        "memories": QuotaLimit(100, "hard"),
        "storage_bytes": QuotaLimit(5000, "soft"),
    }
    assert AuditEvent.objects.filter(action=AuditAction.QUOTA_SET, actor="operator:ops").exists()
    page = staff_client.get(response["Location"]).content.decode()
    assert "Quotas of agent support-bot saved." in page
    assert 'name="memories_limit" value="100"' in page


def test_setting_the_workspaces_quotas_with_htmx_returns_the_section(manager_client, agent):
    response = manager_client.post(
        app(SET), form(workspace="acme", metadata_bytes_limit="2048"), headers=HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert "Quotas of workspace acme saved." in html
    assert quota_limits(workspace=agent.workspace) == {"metadata_bytes": QuotaLimit(2048, "hard")}


def test_a_bad_limit_is_shown_next_to_its_field_and_saves_nothing(staff_client, agent):
    response = staff_client.post(SET, form(workspace="acme", memories_limit="-5"))
    assert response.status_code == 200
    assert "greater than or equal to 0" in response.content.decode()
    assert quota_limits(workspace=agent.workspace) == {}


def test_the_page_changes_nothing(staff_client, over_soft):
    events = AuditEvent.objects.count()
    staff_client.get(PAGE, {"workspace": "acme", "agent": "support-bot"})
    staff_client.get(PAGE, headers=HTMX)
    assert AuditEvent.objects.count() == events


def test_counts_show_as_numbers_and_only_sizes_as_bytes(staff_client, agent):
    set_quotas(
        workspace=agent.workspace,
        agent=agent,
        limits={"facts": QuotaLimit(3, "hard"), "storage_bytes": QuotaLimit(2048, "hard")},
        actor="test",
    )
    html = staff_client.get(PAGE, {"workspace": "acme"}).content.decode()
    assert "of 3 (hard)" in html
    assert "3\xa0bytes" not in html
    assert "2.0\xa0KB" in html
