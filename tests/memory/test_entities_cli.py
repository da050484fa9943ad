"""`dewee memory graph-rebuild|entities|link|unlink` through the CLI's entry point."""

import json

import pytest

from dewee.cli import main
from memory.models import EdgeType, Entity, MemoryEdge

pytestmark = pytest.mark.django_db(transaction=True)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_graph_rebuild_reports_and_is_idempotent(capsys, agent, remember):
    remember("Caroline: I moved to Boston", "Melanie: How is Boston, Caroline?")
    code, out, _ = run(capsys, "memory", "graph-rebuild", "--agent", agent.agent_id, "--json")
    assert code == 0
    (first,) = json.loads(out)["agents"]
    assert (first["memories"], first["entities"]) == (2, 3)
    code, out, _ = run(capsys, "memory", "graph-rebuild", "--all", "--json")
    assert code == 0
    assert json.loads(out)["agents"][0]["edges"] == first["edges"]


def test_entities_list_extract_and_of_a_memory(capsys, agent, remember):
    (memory,) = remember("Caroline: I moved to Boston")
    code, out, _ = run(capsys, "memory", "entities", "list", "--agent", agent.agent_id, "--json")
    assert code == 0
    assert {e["name"] for e in json.loads(out)["items"]} == {"Caroline", "Boston"}
    code, out, _ = run(capsys, "memory", "entities", "list", "--agent", agent.agent_id, "--q", "bo")
    assert "Boston" in out
    assert "Caroline" not in out
    code, out, _ = run(capsys, "memory", "entities", "memory", str(memory.pk), "--json")
    assert [e["as_speaker"] for e in json.loads(out)] == [True, False]
    count = Entity.objects.count()
    code, out, _ = run(capsys, "memory", "entities", "extract", "--text", "Ana: in Porto")
    assert code == 0
    assert "speaker: Ana" in out
    assert "porto" in out
    assert Entity.objects.count() == count


def test_link_and_unlink(capsys, agent, remember):
    a, b = remember("tea notes", "coffee notes")
    assert run(capsys, "memory", "link", str(a.pk), str(b.pk))[0] == 0
    assert MemoryEdge.objects.filter(type=EdgeType.LINKED_BY).count() == 1
    code, _, err = run(capsys, "memory", "link", str(a.pk), str(b.pk))
    assert code == 1
    assert "already linked" in err
    assert run(capsys, "memory", "unlink", str(a.pk), str(b.pk))[0] == 0
    assert not MemoryEdge.objects.filter(type=EdgeType.LINKED_BY).exists()
