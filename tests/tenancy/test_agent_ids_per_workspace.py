"""Agent ids are unique per workspace, not across the deployment: two workspaces may each
have a "support-bot", neither can tell the other has one, and where every workspace is
visible (staff, the CLI) an agent is named ``<workspace-slug>/<agent-id>``; a bare id two
workspaces use is refused as ``agent_ambiguous``, naming the qualified forms."""

import json

import pytest
from django.db import IntegrityError, transaction

from dewee.cli import main
from dewee.errors import InvalidInput
from facts.models import Fact
from memory.services import MemoryInput, store_memories
from tenancy.access import Access
from tenancy.exceptions import AgentAmbiguous, AgentExists, AgentNotFound
from tenancy.models import Agent
from tenancy.services import create_agent, ensure_agent
from tests.factories import make_agent, make_workspace
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def remember(agent: Agent, content: str) -> None:
    store_memories(agent=agent, items=[MemoryInput(content=content)])


def recalled(api, agent_id: str, query: str) -> list[str]:
    response = api.post("/v1/memory/recall", {"agent_id": agent_id, "query": query, "top_k": 50})
    assert response.status_code == 200, response.content
    return [item["content"] for item in response.json()["items"]]


@pytest.fixture
def twins(workspace, other_workspace) -> tuple[Agent, Agent]:
    """A "support-bot" in acme and another in globex."""
    return make_agent(workspace, "support-bot"), make_agent(other_workspace, "support-bot")


# --- the API: each workspace's ids are its own ---


def test_two_workspaces_each_create_the_same_agent_id_and_see_only_their_own(api, other_api):
    for client, workspace in ((api, "acme"), (other_api, "globex")):
        created = client.post("/v1/agents", {"agent_id": "support-bot", "name": workspace})
        assert created.status_code == 201, created.content
        assert created.json()["workspace"] == workspace
    assert Agent.objects.filter(agent_id="support-bot").count() == 2

    stored = api.post("/v1/memories", {"agent_id": "support-bot", "content": "Acme ships tea"})
    assert stored.status_code == 201, stored.content
    stored = other_api.post(
        "/v1/memories", {"agent_id": "support-bot", "content": "Globex ships coffee"}
    )
    assert stored.status_code == 201, stored.content

    assert recalled(api, "support-bot", "what ships") == ["Acme ships tea"]
    assert recalled(other_api, "support-bot", "what ships") == ["Globex ships coffee"]
    listed = other_api.get("/v1/agents/support-bot/memories").json()["items"]
    assert [m["content"] for m in listed] == ["Globex ships coffee"]
    assert api.get("/v1/agents/support-bot").json()["name"] == "acme"
    assert other_api.get("/v1/agents/support-bot").json()["name"] == "globex"
    assert [a["workspace"] for a in api.get("/v1/agents").json()] == ["acme"]


def test_the_first_store_under_an_id_another_workspace_uses_creates_an_agent_of_its_own(
    api, other_api, other_agent
):
    other_api.post("/v1/memories", {"agent_id": "globex-bot", "content": "Globex secret"})
    stored = api.post("/v1/memories", {"agent_id": "globex-bot", "content": "Acme note"})
    assert stored.status_code == 201, stored.content
    batch = api.post(
        "/v1/memories/batch", {"agent_id": "globex-bot", "items": [{"content": "Acme two"}]}
    )
    assert batch.status_code == 201, batch.content
    mine = Agent.objects.get(workspace__slug="acme", agent_id="globex-bot")
    assert sorted(mine.memories.values_list("content", flat=True)) == ["Acme note", "Acme two"]
    assert list(other_agent.memories.values_list("content", flat=True)) == ["Globex secret"]
    assert "Globex secret" not in recalled(api, "globex-bot", "Globex secret note")


def test_an_id_taken_in_the_same_workspace_is_still_a_conflict(api, agent, other_workspace):
    make_agent(other_workspace, "planner")
    assert_error(api.post("/v1/agents", {"agent_id": "support-bot"}), 409, "agent_exists")
    assert api.post("/v1/agents", {"agent_id": "planner"}).status_code == 201


def test_no_error_tells_one_workspace_which_ids_another_uses(api, other_agent):
    """Asking for another workspace's id answers exactly as asking for an id nobody uses."""

    def errors(agent_id: str) -> list[dict]:
        answers = [
            api.get(f"/v1/agents/{agent_id}"),
            api.get(f"/v1/agents/{agent_id}/memories"),
            api.post("/v1/memory/recall", {"agent_id": agent_id, "query": "x"}),
            api.get("/v1/facts", agent_id=agent_id),
        ]
        found = []
        for answer in answers:
            assert answer.status_code == 404, answer.content
            found.append(json.loads(answer.content.decode().replace(agent_id, "AGENT")))
        return found

    assert errors("globex-bot") == errors("nobody-uses-this")
    created = api.post("/v1/agents", {"agent_id": "globex-bot"})
    assert created.status_code == 201, created.content
    assert "globex" not in created.content.decode().replace("globex-bot", "")


def test_services_look_only_in_the_workspace_they_are_given(workspace, other_workspace):
    theirs = make_agent(other_workspace, "bot")
    mine = ensure_agent(workspace=workspace, agent_id="bot")
    assert mine != theirs
    assert mine.workspace == workspace
    assert ensure_agent(workspace=workspace, agent_id="bot") == mine
    assert ensure_agent(workspace=other_workspace, agent_id="bot") == theirs
    with pytest.raises(AgentExists):
        create_agent(workspace=workspace, agent_id="bot")


def test_the_database_keeps_ids_unique_within_a_workspace(workspace, other_workspace):
    Agent.objects.create(workspace=workspace, agent_id="raw")
    Agent.objects.create(workspace=other_workspace, agent_id="raw")
    with pytest.raises(IntegrityError), transaction.atomic():
        Agent.objects.create(workspace=workspace, agent_id="raw")
    assert Agent.objects.filter(agent_id="raw").count() == 2


# --- where every workspace is visible: qualified ids ---


def test_access_of_every_workspace_names_agents_by_qualified_id(twins, workspace):
    acme, globex = twins
    everyone = Access(actor="test")
    assert everyone.agent("acme/support-bot") == acme
    assert everyone.agent("globex/support-bot") == globex
    with pytest.raises(AgentAmbiguous) as refused:
        everyone.agent("support-bot")
    assert refused.value.code == "agent_ambiguous"
    assert refused.value.status == 400
    assert refused.value.details["choices"] == ["acme/support-bot", "globex/support-bot"]
    assert "'acme/support-bot' or 'globex/support-bot'" in refused.value.message
    with pytest.raises(AgentNotFound):
        everyone.agent("initech/support-bot")
    # A workspace's own view has no ambiguity and no qualified names.
    assert Access(actor="test", workspace=workspace).agent("support-bot") == acme
    assert everyone.agent_ref(acme) == "acme/support-bot"
    assert Access(actor="test", workspace=workspace).agent_ref(acme) == "support-bot"


def test_a_bare_id_one_workspace_uses_still_names_its_agent(agent, other_workspace):
    make_agent(other_workspace, "planner")
    everyone = Access(actor="test")
    assert everyone.agent("support-bot") == agent
    assert everyone.agent("planner").workspace == other_workspace


def test_an_agent_stored_with_a_slash_is_found_by_its_id_and_qualified(workspace):
    legacy = Agent.objects.create(workspace=workspace, agent_id="team/bot")
    everyone = Access(actor="test")
    assert everyone.agent("team/bot") == legacy
    assert everyone.agent("acme/team/bot") == legacy
    assert everyone.agent_ref(legacy) == "acme/team/bot"


# --- the CLI runs where every workspace is visible ---


def test_the_cli_reaches_each_agent_by_its_qualified_id(capsys, twins):
    acme, globex = twins
    remember(acme, "Acme ships tea")
    remember(globex, "Globex ships coffee")
    expected = {"acme/support-bot": "Acme ships tea", "globex/support-bot": "Globex ships coffee"}
    for ref, content in expected.items():
        code, out, err = run(capsys, "memory", "export", "--agent", ref)
        assert code == 0, err
        records = [json.loads(line) for line in out.splitlines()]
        assert [r["content"] for r in records if r.get("kind") == "memory"] == [content]


def test_the_cli_refuses_a_bare_id_two_workspaces_use_naming_both(capsys, twins):
    code, out, err = run(
        capsys, "memory", "search", "--agent", "support-bot", "--query", "x", "--json"
    )
    assert code == 1
    error = json.loads(out)["error"]
    assert error["code"] == "agent_ambiguous"
    assert error["details"]["choices"] == ["acme/support-bot", "globex/support-bot"]
    assert "'acme/support-bot' or 'globex/support-bot'" in err


def test_the_cli_still_takes_a_bare_id_only_one_workspace_uses(capsys, agent):
    remember(agent, "Acme ships tea")
    code, out, err = run(capsys, "memory", "export", "--agent", "support-bot")
    assert code == 0, err
    assert "Acme ships tea" in out


def test_cli_writes_go_into_the_agent_the_reference_names(capsys, tmp_path, twins):
    acme, globex = twins
    fact = ["--subject", "user", "--predicate", "employer", "--value", "Initech"]
    code, _, err = run(capsys, "memory", "facts", "assert", "--agent", "globex/support-bot", *fact)
    assert code == 0, err
    assert list(Fact.objects.values_list("agent", flat=True)) == [globex.pk]
    code, _, err = run(capsys, "memory", "facts", "assert", "--agent", "support-bot", *fact)
    assert (code, "agent_id: 'support-bot' names agents in 2 workspaces" in err) == (1, True)

    path = tmp_path / "memories.jsonl"
    path.write_text('{"kind": "memory", "content": "imported"}\n')
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "acme/support-bot")
    assert code == 0, err
    assert list(acme.memories.values_list("content", flat=True)) == ["imported"]
    # A qualified id that is new is created in the workspace it names.
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "globex/new-bot")
    assert code == 0, err
    assert Agent.objects.get(agent_id="new-bot").workspace.slug == "globex"
    # --workspace picks that workspace's agent, or makes one there.
    code, _, err = run(
        capsys, "memory", "import", str(path), "--agent", "new-bot", "--workspace", "acme"
    )
    assert code == 0, err
    assert sorted(Agent.objects.filter(agent_id="new-bot").values_list("workspace__slug")) == [
        ("acme",),
        ("globex",),
    ]
    assert not globex.memories.exists()


def test_the_cli_lists_agents_with_their_workspaces(capsys, twins):
    code, out, err = run(capsys, "agents", "list", "--json")
    assert code == 0, err
    assert [(a["workspace"], a["agent_id"]) for a in json.loads(out)] == [
        ("acme", "support-bot"),
        ("globex", "support-bot"),
    ]


def test_a_workspace_slug_never_holds_a_slash(db):
    """Qualified ids rely on it: the first '/' ends the slug."""
    with pytest.raises(InvalidInput):
        make_workspace("team/x")
