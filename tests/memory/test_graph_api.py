"""The graph's read API: traverse, path, export (streamed JSON and GraphML) and the
cross-agent network; bad input, isolation, and reads that write nothing."""

import json
import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext

from memory.models import EdgeType, Entity, EntityMention, Memory, MemoryEdge
from memory.services import link_memories
from tests.factories import make_agent

pytestmark = pytest.mark.django_db

GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def counts():
    return (
        Memory.objects.count(),
        MemoryEdge.objects.count(),
        Entity.objects.count(),
        EntityMention.objects.count(),
    )


@pytest.fixture
def chat(agent, remember, session):
    """Four turns of a session (a precedes chain a->b->c->d); d shares Boston with a and
    Melanie with b."""
    return remember(
        "Caroline: I moved to Boston last spring",
        "Melanie: how was the move?",
        "Caroline: long, but the new flat is lovely",
        "Melanie: I visited Boston once, in winter",
        session_id=session.pk,
    )


def test_traverse_reaches_the_neighbours_breadth_first(api, chat):
    a, b, c, d = chat
    body = api.get(f"/v1/memories/{b.pk}/graph", types="precedes").json()
    assert body["start"]["id"] == b.pk
    assert body["start"]["speaker"] == "Melanie"
    assert [(n["id"], n["depth"]) for n in body["nodes"]] == [(c.pk, 1), (a.pk, 1)]
    assert {(e["source"], e["target"], e["type"]) for e in body["edges"]} == {
        (a.pk, b.pk, "precedes"),
        (b.pk, c.pk, "precedes"),
    }
    deeper = api.get(f"/v1/memories/{b.pk}/graph", types="precedes", depth=2).json()
    assert [(n["id"], n["depth"]) for n in deeper["nodes"]] == [(c.pk, 1), (a.pk, 1), (d.pk, 2)]


def test_traverse_follows_a_direction_types_and_a_limit(api, chat):
    a, b, c, d = chat
    out = api.get(f"/v1/memories/{b.pk}/graph", types="precedes", direction="out", depth=3)
    assert [n["id"] for n in out.json()["nodes"]] == [c.pk, d.pk]
    into = api.get(f"/v1/memories/{b.pk}/graph", types="precedes", direction="in", depth=3)
    assert [n["id"] for n in into.json()["nodes"]] == [a.pk]
    shared = api.get(f"/v1/memories/{d.pk}/graph", types="shares_entity").json()
    assert [n["id"] for n in shared["nodes"]] == [b.pk, a.pk]  # Melanie, Boston
    assert {e["type"] for e in shared["edges"]} == {"shares_entity"}
    one = api.get(f"/v1/memories/{a.pk}/graph", depth=3, limit=1).json()
    assert len(one["nodes"]) == 1


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 4}, "depth"),
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"types": "related_to,friend_of"}, "types"),
        ({"types": ","}, "types"),
        ({"direction": "sideways"}, "direction"),
        ({"depth": "deep"}, "depth"),
    ],
)
def test_traverse_refuses_bad_input_and_writes_nothing(api, chat, params, field):
    before = counts()
    response = api.get(f"/v1/memories/{chat[0].pk}/graph", **params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input"
    assert field in error["message"]
    assert counts() == before


@pytest.mark.parametrize("bad", ["abc", "0", "-1", "99999999999999999999999", "1.5"])
def test_a_malformed_memory_id_is_a_400(api, bad):
    response = api.get(f"/v1/memories/{bad}/graph")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["field"] == "memory_id"
    response = api.get(f"/v1/memories/1/path/{bad}")
    assert response.status_code in (400, 404)


def test_another_workspaces_memory_is_not_found(other_api, chat):
    for path in (f"/v1/memories/{chat[0].pk}/graph", f"/v1/memories/{chat[0].pk}/path/1"):
        response = other_api.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "memory_not_found"


def test_a_traversal_never_leaves_its_agent(api, agent, workspace, chat, remember):
    sibling = make_agent(workspace, "sibling")
    (theirs,) = remember("Caroline: Boston again", target=sibling)
    body = api.get(f"/v1/memories/{chat[0].pk}/graph", depth=3, limit=500).json()
    assert theirs.pk not in {n["id"] for n in body["nodes"]}
    assert {n["id"] for n in body["nodes"]} <= set(
        Memory.objects.filter(agent=agent).values_list("id", flat=True)
    )


def test_the_shortest_path_follows_edges_either_way(api, chat):
    a, b, c, d = chat
    body = api.get(f"/v1/memories/{c.pk}/path/{a.pk}", types="precedes").json()
    assert body["length"] == 2
    assert [m["id"] for m in body["memories"]] == [c.pk, b.pk, a.pk]
    assert [(e["source"], e["target"]) for e in body["edges"]] == [(b.pk, c.pk), (a.pk, b.pk)]
    short = api.get(f"/v1/memories/{a.pk}/path/{d.pk}").json()
    assert short["length"] == 1
    assert short["edges"][0]["type"] == "shares_entity"
    itself = api.get(f"/v1/memories/{a.pk}/path/{a.pk}").json()
    assert (itself["length"], [m["id"] for m in itself["memories"]]) == (0, [a.pk])


def test_no_path_within_reach_is_a_404(api, chat, remember):
    a, _, c, _ = chat
    (alone,) = remember("a note about nothing in particular")
    before = counts()
    response = api.get(f"/v1/memories/{a.pk}/path/{alone.pk}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "no_path"
    too_far = api.get(f"/v1/memories/{a.pk}/path/{c.pk}", types="precedes", max_depth=1)
    assert too_far.json()["error"]["code"] == "no_path"
    assert api.get(f"/v1/memories/{a.pk}/path/{c.pk}", max_depth=7).status_code == 400
    assert counts() == before


def test_a_path_never_crosses_agents(api, agent, workspace, chat, remember):
    a = chat[0]
    sibling = make_agent(workspace, "sibling")
    x, y = remember("Caroline: Boston", "Caroline: Boston still", target=sibling)
    link_memories(agent=sibling, source=x, target=y, actor="test")
    response = api.get(f"/v1/memories/{a.pk}/path/{x.pk}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "memory_not_found"
    # Same names on both agents, yet no edge joins them: a path stays in one agent.
    assert not MemoryEdge.objects.filter(source__agent=agent, target__agent=sibling).exists()


def _streamed(response):
    assert isinstance(response, StreamingHttpResponse)
    return response.getvalue().decode()


def test_export_as_json_streams_the_whole_graph(api, agent, chat):
    a, b, c, d = chat
    before = counts()
    response = api.get(f"/v1/agents/{agent.agent_id}/graph", entities="true")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="support-bot-graph.json"'
    body = json.loads(_streamed(response))
    assert [m["id"] for m in body["memories"]] == [a.pk, b.pk, c.pk, d.pk]
    assert body["memories"][0]["speaker"] == "Caroline"
    assert len(body["edges"]) == MemoryEdge.objects.filter(agent=agent).count()
    assert {e["key"] for e in body["entities"]} == {"caroline", "melanie", "boston"}
    assert len(body["mentions"]) == EntityMention.objects.filter(agent=agent).count()
    only = json.loads(_streamed(api.get(f"/v1/agents/{agent.agent_id}/graph", types="precedes")))
    assert {e["type"] for e in only["edges"]} == {"precedes"}
    assert "entities" not in only
    assert counts() == before


def test_export_as_graphml_is_valid_xml_with_declared_keys(api, agent, remember):
    remember('Caroline: <b>"tea" & cake</b>\x01', "Caroline: more tea & cake")
    response = api.get(f"/v1/agents/{agent.agent_id}/graph", format="graphml", entities="true")
    assert response["Content-Type"] == "application/graphml+xml"
    root = ET.fromstring(_streamed(response))
    declared = {k.get("id") for k in root.iter(f"{GRAPHML}key")}
    used = {d.get("key") for d in root.iter(f"{GRAPHML}data")}
    assert used <= declared
    assert {"type", "weight", "preview", "speaker"} <= declared
    nodes = {n.get("id") for n in root.iter(f"{GRAPHML}node")}
    for edge in root.iter(f"{GRAPHML}edge"):
        assert {edge.get("source"), edge.get("target")} <= nodes
    previews = [d.text for d in root.iter(f"{GRAPHML}data") if d.get("key") == "preview"]
    assert 'Caroline: <b>"tea" & cake</b>\ufffd' in previews


def test_export_refuses_bad_input_and_other_workspaces(api, other_api, agent, other_agent):
    bad = api.get(f"/v1/agents/{agent.agent_id}/graph", format="csv")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid_input")
    assert api.get(f"/v1/agents/{agent.agent_id}/graph", types="nope").status_code == 400
    hidden = other_api.get(f"/v1/agents/{agent.agent_id}/graph")
    assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "agent_not_found")


def test_export_reads_pages_not_rows(api, agent, remember, monkeypatch):
    monkeypatch.setattr("memory.graph.export.EXPORT_PAGE", 10)
    remember("one", "two")

    def queries():
        """The export's reads of memories and edges (not the API key's use, recorded once a
        minute: a minute turning between two calls is one write more)."""
        with CaptureQueriesContext(connection) as captured:
            _streamed(api.get(f"/v1/agents/{agent.agent_id}/graph", format="graphml"))
        tables = ('FROM "memory_memory"', 'FROM "memory_memoryedge"')
        return sum(1 for q in captured if any(t in q["sql"] for t in tables))

    def pages():
        edges = MemoryEdge.objects.filter(agent=agent).count()
        return Memory.objects.filter(agent=agent).count() // 10 + 1 + edges // 10 + 1

    few, few_pages = queries(), pages()
    remember(*[f"note number {i} about tea" for i in range(40)])
    assert queries() - few == pages() - few_pages
    assert pages() - few_pages >= 4


def test_the_network_shows_shared_entities_within_the_workspace(
    api, agent, workspace, other_agent, remember
):
    sibling = make_agent(workspace, "sibling")
    remember("Caroline: I moved to Boston", "Caroline: Boston is cold")
    remember("Caroline: I moved to Boston with Priya", target=sibling)
    remember("Caroline: I moved to Boston", target=other_agent)
    before = counts()
    body = api.get("/v1/graph/network").json()
    assert body["workspace"] == "acme"
    assert {a["agent_id"] for a in body["agents"]} == {"support-bot", "sibling"}
    (pair,) = body["pairs"]
    assert pair["agents"] == ["sibling", "support-bot"]
    assert pair["shared_count"] == 2
    assert [(e["key"], e["mentions"]) for e in pair["entities"]] == [
        ("caroline", {"sibling": 1, "support-bot": 2}),  # as many mentions: by type
        ("boston", {"sibling": 1, "support-bot": 2}),
    ]
    top = api.get("/v1/graph/network", top=1).json()["pairs"][0]
    assert (top["shared_count"], len(top["entities"])) == (2, 1)
    assert counts() == before


def test_the_network_of_another_workspace_is_not_found(api, other_agent):
    response = api.get("/v1/graph/network", workspace="globex")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "workspace_not_found")
    assert api.get("/v1/graph/network", top=0).status_code == 400


def test_a_linked_memory_is_reached_through_its_link(api, agent, remember):
    a, b = remember("tea notes", "unrelated coffee notes")
    link_memories(agent=agent, source=a, target=b, actor="test")
    body = api.get(f"/v1/memories/{a.pk}/graph", types=EdgeType.LINKED_BY).json()
    assert [n["id"] for n in body["nodes"]] == [b.pk]
