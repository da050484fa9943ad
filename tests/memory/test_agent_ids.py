"""Agent ids and '/': a new agent's id may not hold one (it is part of URL paths, where
'x/memories' could not be told from the memories of 'x'), through every way agents are
created; an agent that already has one stays reachable, and can be renamed or deleted."""

import json

import pytest

from dewee.cli import main
from facts.models import Fact
from memory.models import Memory
from tenancy.models import Agent
from tests.facts.test_api import assert_error, body

pytestmark = pytest.mark.django_db

SLASHED = ["team/bot", "x/memories", "/lead", "trail/"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused_for_its_slash(response):
    error = assert_error(response, 400, "invalid_agent_id")
    assert error["details"] == {"field": "agent_id"}
    assert "must not contain '/'" in error["message"]
    assert "URL paths" in error["message"]


@pytest.mark.parametrize("agent_id", SLASHED)
def test_the_api_refuses_a_new_agent_id_with_a_slash_and_says_why(api, workspace, agent_id):
    assert_refused_for_its_slash(api.post("/v1/agents", {"agent_id": agent_id}))
    assert_refused_for_its_slash(
        api.post("/v1/memories", {"agent_id": agent_id, "content": "hello"})
    )
    assert_refused_for_its_slash(
        api.post("/v1/memories/batch", {"agent_id": agent_id, "items": [{"content": "hello"}]})
    )
    assert not Agent.objects.exists()
    assert not Memory.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_cli_refuses_a_new_agent_id_with_a_slash(capsys, tmp_path, workspace):
    code, _, err = run(capsys, "agents", "create", "team/bot", "--workspace", "acme")
    assert (code, "must not contain '/'" in err) == (1, True)
    fact = ["--subject", "user", "--predicate", "employer", "--value", "Acme"]
    code, _, err = run(capsys, "memory", "facts", "assert", "--agent", "team/bot", *fact)
    assert (code, "must not contain '/'" in err) == (1, True)
    path = tmp_path / "memories.jsonl"
    path.write_text('{"kind": "memory", "content": "hello"}\n')
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "team/bot")
    assert (code, "must not contain '/'" in err) == (1, True)
    assert not Agent.objects.exists()
    assert not Fact.objects.exists()
    assert not Memory.objects.exists()


@pytest.fixture
def slashed_agent(workspace):
    """An agent stored before ids with '/' were refused."""
    return Agent.objects.create(workspace=workspace, agent_id="team/bot")


def test_an_existing_agent_with_a_slash_stays_reachable(api, slashed_agent):
    stored = api.post("/v1/memories", {"agent_id": "team/bot", "content": "Ann likes tea"})
    assert stored.status_code == 201, stored.content
    assert api.post("/v1/facts", body(agent_id="team/bot")).status_code == 200
    assert api.get("/v1/agents/team%2Fbot").json()["agent_id"] == "team/bot"
    memories = api.get("/v1/agents/team%2Fbot/memories").json()["items"]
    assert [m["content"] for m in memories] == ["Ann likes tea"]
    assert api.get("/v1/agents/team%2Fbot/memory_policy").status_code == 200
    assert len(api.get("/v1/facts", agent_id="team/bot").json()["items"]) == 1
    recalled = api.post("/v1/memory/recall", {"agent_id": "team/bot", "query": "tea"})
    assert recalled.status_code == 200, recalled.content
    assert [a["agent_id"] for a in api.get("/v1/agents").json()] == ["team/bot"]


def test_an_operator_can_rename_an_agent_with_a_slash_in_the_admin(
    admin_client, slashed_agent, workspace
):
    change = f"/admin/tenancy/agent/{slashed_agent.pk}/change/"
    form = {
        "workspace": workspace.pk,
        "agent_id": "team/bot",
        "name": "",
        "metadata": "{}",
        "memory_policy": "{}",
        "memory_version": "0",
    }
    assert admin_client.post(change, {**form, "name": "Team"}).status_code == 302
    assert Agent.objects.get(pk=slashed_agent.pk).name == "Team"
    refused = admin_client.post(change, {**form, "agent_id": "team/lead"})
    assert refused.status_code == 200
    assert "must not contain" in refused.content.decode()
    assert admin_client.post(change, {**form, "agent_id": "team-bot"}).status_code == 302
    assert Agent.objects.get(pk=slashed_agent.pk).agent_id == "team-bot"
    added = admin_client.post("/admin/tenancy/agent/add/", {**form, "agent_id": "a/b"})
    assert added.status_code == 200
    assert not Agent.objects.filter(agent_id="a/b").exists()
    delete = f"/admin/tenancy/agent/{slashed_agent.pk}/delete/"
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403  # erased by forgetting
    assert Agent.objects.filter(pk=slashed_agent.pk).exists()


def test_a_lookup_by_an_id_with_a_slash_is_a_404_not_a_400(api, agent):
    assert_error(api.get("/v1/facts", agent_id="no/such"), 404, "agent_not_found")
    assert_error(
        api.post("/v1/memory/recall", {"agent_id": "no/such", "query": "tea"}),
        404,
        "agent_not_found",
    )
    assert json.loads(api.get("/v1/agents/support-bot/").content)["error"]["code"] == (
        "agent_not_found"
    )
