"""`dewee memory graph traverse|path|export|network` through the CLI's entry point."""

import json
import xml.etree.ElementTree as ET

import pytest

from dewee.cli import main
from memory.models import Entity, Memory, MemoryEdge
from tests.factories import make_agent

pytestmark = pytest.mark.django_db(transaction=True)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chat(remember, session):
    return remember(
        "Caroline: I moved to Boston last spring",
        "Melanie: how was the move?",
        "Caroline: long, but the new flat is lovely",
        session_id=session.pk,
    )


def counts():
    return Memory.objects.count(), MemoryEdge.objects.count(), Entity.objects.count()


def test_traverse_prints_the_neighbourhood(capsys, chat):
    a, b, c = chat
    args = ("memory", "graph", "traverse", "--memory", str(b.pk), "--types", "precedes")
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    body = json.loads(out)
    assert [n["id"] for n in body["nodes"]] == [c.pk, a.pk]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "precedes" in out
    assert "how was the move?" in out


def test_traverse_refuses_bad_input(capsys, chat):
    before = counts()
    for extra in (["--depth", "4"], ["--limit", "0"], ["--types", "friend_of"]):
        code, _, err = run(
            capsys, "memory", "graph", "traverse", "--memory", str(chat[0].pk), *extra
        )
        assert code == 1
        assert "must" in err
    code, _, err = run(capsys, "memory", "graph", "traverse", "--memory", "abc")
    assert (code, "memory_id" in err) == (1, True)
    assert counts() == before


def test_path_between_two_memories_and_none_across_agents(capsys, agent, workspace, chat, remember):
    a, _, c = chat
    code, out, _ = run(
        capsys,
        "memory",
        "graph",
        "path",
        "--from",
        str(c.pk),
        "--to",
        str(a.pk),
        "--types",
        "precedes",
        "--json",
    )
    assert code == 0
    assert [m["id"] for m in json.loads(out)["memories"]] == [c.pk, chat[1].pk, a.pk]
    (theirs,) = remember("Caroline: Boston", target=make_agent(workspace, "sibling"))
    code, _, err = run(
        capsys, "memory", "graph", "path", "--from", str(a.pk), "--to", str(theirs.pk)
    )
    assert code == 1
    assert "not found" in err


def test_export_writes_graphml_to_a_file(capsys, tmp_path, agent, chat):
    target = tmp_path / "graph.graphml"
    code, out, err = run(
        capsys,
        "memory",
        "graph",
        "export",
        "--agent",
        agent.agent_id,
        "--format",
        "graphml",
        "--entities",
        "--output",
        str(target),
    )
    assert code == 0
    assert "Wrote" in err
    root = ET.parse(target).getroot()
    nodes = root.findall(".//{http://graphml.graphdrawing.org/xmlns}node")
    assert {n.get("id") for n in nodes} >= {f"m{m.pk}" for m in chat}
    code, out, _ = run(capsys, "memory", "graph", "export", "--agent", agent.agent_id)
    assert len(json.loads(out)["memories"]) == 3


def test_network_of_a_workspace(capsys, agent, workspace, other_agent, remember):
    remember("Caroline: I moved to Boston")
    remember("Caroline: I moved to Boston", target=make_agent(workspace, "sibling"))
    remember("Caroline: I moved to Boston", target=other_agent)
    code, out, _ = run(capsys, "memory", "graph", "network", "--workspace", "acme", "--json")
    assert code == 0
    body = json.loads(out)
    assert [p["agents"] for p in body["pairs"]] == [["sibling", "support-bot"]]
    code, out, _ = run(capsys, "memory", "graph", "network", "--workspace", "acme")
    assert "Boston" in out
    assert "globex-bot" not in out
    code, _, err = run(capsys, "memory", "graph", "network", "--workspace", "nowhere")
    assert (code, "No workspace 'nowhere'" in err) == (1, True)
