"""The dashboard when two workspaces use the same agent id: staff, who see every workspace,
pick and link agents by ``<workspace-slug>/<agent-id>``; a bare id both use is a 400 that
offers both; a bare id one workspace uses still works; members see their own ids only."""

import re

import pytest

from facts.services import forget_facts, forget_scope
from memory.services import MemoryInput, store_memories
from tenancy.models import Agent
from tests.dashboard.conftest import app
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

LIST = "/dashboard/memory/"
FACTS = "/dashboard/facts/"


def remember(agent: Agent, content: str) -> int:
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=content)])
    return memory.pk


@pytest.fixture
def twins(workspace, other_workspace) -> tuple[Agent, Agent]:
    acme, globex = make_agent(workspace, "support-bot"), make_agent(other_workspace, "support-bot")
    remember(acme, "Acme ships tea")
    remember(globex, "Globex ships coffee")
    return acme, globex


def test_staff_reach_each_agent_by_its_qualified_id(staff_client, twins):
    acme, globex = twins
    for agent, mine, theirs in ((acme, "tea", "coffee"), (globex, "coffee", "tea")):
        page = staff_client.get(LIST, {"agent": f"{agent.workspace.slug}/support-bot"})
        assert page.status_code == 200
        assert page.context["agent"] == agent
        assert f"ships {mine}" in page.text
        assert f"ships {theirs}" not in page.text


def test_staff_asking_for_a_bare_id_two_workspaces_use_are_offered_both(staff_client, twins):
    page = staff_client.get(LIST, {"agent": "support-bot", "q": "ships"})
    assert page.status_code == 400
    assert "Which agent?" in page.text
    assert "ships" not in page.text.replace("q=ships", "")
    for ref in ("acme%2Fsupport-bot", "globex%2Fsupport-bot"):
        link = f"{LIST}?agent={ref}&amp;q=ships"
        assert f'href="{link}"' in page.text
        assert staff_client.get(link.replace("&amp;", "&")).status_code == 200


def test_the_staff_picker_groups_agents_by_workspace_and_selects_the_one_shown(
    staff_client, twins, other_workspace
):
    make_agent(other_workspace, "planner")
    page = staff_client.get(LIST, {"agent": "globex/support-bot"}).text
    assert '<optgroup label="acme">' in page
    assert '<optgroup label="globex">' in page
    assert '<option value="acme/support-bot">support-bot</option>' in page
    assert '<option value="globex/support-bot" selected>support-bot</option>' in page
    # A bare id only one workspace uses still works, and the picker shows its agent.
    page = staff_client.get(LIST, {"agent": "planner"})
    assert page.status_code == 200
    assert page.context["agent"].workspace == other_workspace
    assert '<option value="globex/planner" selected>planner</option>' in page.text


def test_staff_links_name_the_agent_with_its_workspace(staff_client, twins):
    _acme, globex = twins
    memory_id = globex.memories.get().pk
    detail = staff_client.get(f"{LIST}{memory_id}/").text
    assert f'href="{LIST}?agent=globex/support-bot"' in detail
    deleted = staff_client.post(f"{LIST}{memory_id}/delete/", {"confirm": "on"})
    assert deleted.status_code == 302
    assert deleted["Location"] == f"{LIST}?agent=globex%2Fsupport-bot"
    state(globex, "Globex")
    facts = staff_client.get(FACTS, {"agent": "globex/support-bot", "user": "u1"}).text
    assert "?agent=globex/support-bot&amp;user=u1" in facts
    receipt = forget_facts(agent=globex, scope=forget_scope(user="u1"), actor="test")
    page = staff_client.get(f"/dashboard/receipts/{receipt.pk}/").text
    assert f'href="{FACTS}?agent=globex/support-bot"' in page


def test_the_review_queue_tells_staff_whose_agent_a_fact_is(staff_client, twins):
    _acme, globex = twins
    state(globex, "Globex")
    state(globex, "Initech", verification="inferred")
    page = staff_client.get("/dashboard/review/").text
    assert "Initech" in page
    queue = page.split('<ol class="review-groups">', 1)[1]  # (the agent filter offers both)
    assert re.search(r"· globex/support-bot\s+·", queue)
    assert "acme/support-bot" not in queue


def test_members_pick_their_own_agents_by_bare_id(manager_client, twins):
    acme, _globex = twins
    page = manager_client.get(app(LIST), {"agent": "support-bot"})
    assert page.status_code == 200
    assert page.context["agent"] == acme
    assert '<option value="support-bot" selected>support-bot</option>' in page.text
    assert "optgroup" not in page.text
    assert "coffee" not in page.text
    assert manager_client.get(app(LIST), {"agent": "globex/support-bot"}).status_code == 404


def test_staff_forget_erases_only_the_agent_named_with_its_workspace(staff_client, twins):
    acme, globex = twins
    state(acme, "Acme")
    state(globex, "Globex")
    forget = "/dashboard/facts/forget/"
    refused = staff_client.post(
        forget, {"agent": "support-bot", "user": "u1", "confirmation": "u1"}
    )
    assert refused.status_code == 400
    assert "<code>acme/support-bot</code>" in refused.text
    assert acme.facts.count() == globex.facts.count() == 1
    page = staff_client.get(forget, {"agent": "globex/support-bot", "user": "u1"})
    assert 'name="agent" value="globex/support-bot"' in page.text
    erased = staff_client.post(
        forget, {"agent": "globex/support-bot", "user": "u1", "confirmation": "u1"}
    )
    assert erased.status_code == 302
    assert not globex.facts.exclude(status="deleted").filter(value="Globex").exists()
    assert acme.facts.get().value == "Acme"


def test_a_check_for_a_bare_id_two_workspaces_use_names_both_on_the_form(staff_client, twins):
    acme, globex = twins
    state(globex, "Globex")
    answer = staff_client.post(
        "/dashboard/facts/check/apply/",
        {"agent": "support-bot", "user": "u1", "text": "I work at Initech now"},
    )
    assert answer.status_code == 400
    assert "&#x27;acme/support-bot&#x27; or &#x27;globex/support-bot&#x27;" in answer.text
    assert globex.facts.get().value == "Globex"
    assert not acme.facts.exists()
