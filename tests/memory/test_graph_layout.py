"""The neighbourhood's drawing: every node inside the picture, no two nodes of one depth on
top of each other, the same picture for the same neighbourhood, edges from rim to rim."""

import math
from itertools import combinations

import pytest

from memory.graph.layout import NODE_RADIUS, layout


def neighbourhood(first: int, second: int) -> tuple[list[dict], list[dict]]:
    """``first`` memories one edge from memory 1, and ``second`` more, each hanging from
    one of the first level in turn."""
    nodes = [{"id": 100 + i, "depth": 1} for i in range(first)]
    nodes += [{"id": 500 + i, "depth": 2} for i in range(second)]
    edges = [{"source": n["id"], "target": 1, "type": "related_to"} for n in nodes[:first]]
    edges += [
        {"source": 500 + i, "target": 100 + i % max(first, 1), "type": "precedes"}
        for i in range(second)
    ]
    return nodes, edges


@pytest.mark.parametrize(("first", "second"), [(1, 0), (2, 0), (5, 3), (12, 18), (30, 0), (1, 29)])
def test_every_node_sits_inside_the_picture(first, second):
    nodes, edges = neighbourhood(first, second)
    drawing = layout(1, nodes, edges)
    assert {n["id"] for n in drawing["nodes"]} == {1} | {n["id"] for n in nodes}
    for node in drawing["nodes"]:
        assert NODE_RADIUS <= node["x"] <= drawing["size"] - NODE_RADIUS
        assert NODE_RADIUS <= node["y"] <= drawing["size"] - NODE_RADIUS


@pytest.mark.parametrize(("first", "second"), [(2, 0), (7, 9), (30, 0), (3, 27)])
def test_no_two_nodes_overlap(first, second):
    nodes, edges = neighbourhood(first, second)
    placed = layout(1, nodes, edges)["nodes"]
    for a, b in combinations(placed, 2):
        assert math.dist((a["x"], a["y"]), (b["x"], b["y"])) >= 2 * NODE_RADIUS + 1, (a, b)


def test_the_start_is_at_the_centre_and_each_depth_on_its_own_ring():
    nodes, edges = neighbourhood(4, 6)
    drawing = layout(1, nodes, edges)
    centre = drawing["size"] / 2
    start = next(n for n in drawing["nodes"] if n["id"] == 1)
    assert (start["x"], start["y"]) == (centre, centre)
    rings = {
        depth: {
            round(math.dist((n["x"], n["y"]), (centre, centre)))
            for n in drawing["nodes"]
            if n["depth"] == depth
        }
        for depth in (1, 2)
    }
    assert len(rings[1]) == len(rings[2]) == 1
    assert min(rings[2]) > min(rings[1]) + 2 * NODE_RADIUS


def test_the_same_neighbourhood_is_drawn_the_same_whatever_the_order():
    nodes, edges = neighbourhood(6, 8)
    one = layout(1, nodes, edges)
    other = layout(1, list(reversed(nodes)), list(reversed(edges)))
    assert sorted(one["nodes"], key=lambda n: n["id"]) == sorted(
        other["nodes"], key=lambda n: n["id"]
    )
    assert one["size"] == other["size"]


def test_a_second_level_node_is_drawn_beside_the_node_it_hangs_from():
    nodes = [{"id": 10, "depth": 1}, {"id": 20, "depth": 1}, {"id": 30, "depth": 2}]
    edges = [
        {"source": 10, "target": 1, "type": "related_to"},
        {"source": 20, "target": 1, "type": "related_to"},
        {"source": 30, "target": 20, "type": "precedes"},
    ]
    at = {n["id"]: (n["x"], n["y"]) for n in layout(1, nodes, edges)["nodes"]}
    assert math.dist(at[30], at[20]) < math.dist(at[30], at[10])


def test_edges_run_from_rim_to_rim_and_parallel_ones_apart():
    nodes = [{"id": 2, "depth": 1}]
    edges = [
        {"source": 2, "target": 1, "type": "related_to"},
        {"source": 1, "target": 2, "type": "precedes"},
    ]
    drawing = layout(1, nodes, edges)
    at = {n["id"]: (n["x"], n["y"]) for n in drawing["nodes"]}
    one, two = drawing["edges"]
    assert math.dist((one["x1"], one["y1"]), at[2]) == pytest.approx(NODE_RADIUS + 2, abs=4)
    assert math.dist((one["x2"], one["y2"]), at[1]) == pytest.approx(NODE_RADIUS + 2, abs=4)
    assert math.dist((one["x1"], one["y1"]), (two["x2"], two["y2"])) >= 4


def test_a_memory_without_neighbours_is_drawn_alone():
    drawing = layout(7, [], [])
    assert [n["id"] for n in drawing["nodes"]] == [7]
    assert drawing["edges"] == []


def test_the_first_ring_starts_on_top_in_order_of_id():
    nodes, edges = neighbourhood(4, 0)
    drawing = layout(1, nodes, edges)
    first = min((n for n in drawing["nodes"] if n["depth"] == 1), key=lambda n: n["y"])
    assert first["id"] == 100
    assert first["x"] == drawing["size"] / 2
