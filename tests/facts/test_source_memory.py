"""A fact asserted through the API or the CLI can cite the stored memory it came from, so
that erasing the memory erases the facts learned only from it."""

import pytest

from dewee.cli import main
from facts.models import Fact, FactSource
from memory.services import MemoryInput, store_memories
from tenancy.services import default_workspace
from tests.factories import make_agent
from tests.facts.test_api import assert_error, body

pytestmark = pytest.mark.django_db


def remember(agent, content="Ana said she moved to Lisbon"):
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=content)])
    return memory


def test_a_fact_cites_its_memory_and_goes_when_the_memory_goes(api, agent):
    memory = remember(agent)
    source = {"kind": "memory_document", "memory_id": memory.pk}
    response = api.post("/v1/facts", body(predicate="city", value="Lisbon", source=source))
    assert response.status_code == 200, response.content
    (cited,) = FactSource.objects.all()
    assert (cited.memory_id, cited.reference) == (memory.pk, f"memory:{memory.pk}")
    assert api.delete(f"/v1/memories/{memory.pk}").status_code in (200, 204)
    assert not Fact.objects.exists()


def test_another_agents_or_an_unknown_memory_is_404_and_nothing_is_written(
    api, agent, workspace, other_agent
):
    for memory_id in (
        remember(make_agent(workspace, "elsewhere")).pk,
        remember(other_agent).pk,
        10**9,
    ):
        source = {"kind": "memory_document", "memory_id": memory_id}
        response = api.post("/v1/facts", body(source=source))
        assert_error(response, 404, "memory_not_found")
    assert not Fact.objects.exists()


def test_the_cli_asserts_a_fact_citing_a_memory(capsys):
    agent = make_agent(default_workspace(), "cli-bot")
    memory = remember(agent)
    argv = [
        "memory",
        "facts",
        "assert",
        "--agent",
        agent.agent_id,
        "--user",
        "u1",
        "--subject",
        "user",
        "--predicate",
        "city",
        "--value",
        "Lisbon",
        "--memory-id",
        str(memory.pk),
    ]
    assert main(argv) == 0
    assert FactSource.objects.get().memory_id == memory.pk
    assert main([*argv[:-1], str(memory.pk + 1000)]) != 0
    assert "not found" in capsys.readouterr().err.lower()
    assert Fact.objects.count() == 1
