"""Where to draw a memory's neighbourhood (memory.graph.queries.traverse_graph) as an SVG:
the memory at the centre, each depth on a ring around it. No writes, no randomness: the same
neighbourhood is always drawn the same way, so the page is stable.

A ring is wide enough for its nodes to sit at least NODE_GAP apart, and each ring lies
RING_STEP beyond the one inside it; a node of depth 2 is placed next to the node of depth 1
it hangs from (its ring turned to sit nearest them), so edges cross little. Parallel edges
(two types between one pair) are drawn side by side.
"""

import math
from collections import defaultdict
from typing import Any

NODE_RADIUS = 18
NODE_GAP = 12
RING_STEP = 110
MARGIN = 8
PARALLEL_OFFSET = 5


def _ring_radii(counts: list[int]) -> list[float]:
    """The radius of each depth's ring (counts[0] is depth 1): wide enough that adjacent
    nodes' centres are 2 * NODE_RADIUS + NODE_GAP apart along the chord."""
    radii: list[float] = []
    spacing = 2 * NODE_RADIUS + NODE_GAP
    for count in counts:
        needed = spacing / (2 * math.sin(math.pi / count)) if count > 1 else 0.0
        inner = radii[-1] if radii else 0.0
        radii.append(max(inner + RING_STEP, needed))
    return radii


def _parents(start: int, depths: dict[int, int], edges: list[dict[str, Any]]) -> dict[int, int]:
    """For each node, the smallest id among the nodes one level nearer that it touches."""
    parents: dict[int, int] = {}
    for edge in edges:
        for here, there in ((edge["source"], edge["target"]), (edge["target"], edge["source"])):
            if here in depths and there in depths and depths[there] == depths[here] - 1:
                parents[here] = min(parents.get(here, there), there)
    parents.pop(start, None)
    return parents


def layout(start: int, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    """Positions for ``start`` and ``nodes`` (each with its ``id`` and ``depth``) and lines
    for ``edges`` between them: ``{"size", "nodes": [{id, depth, x, y}], "edges": [{source,
    target, type, x1, y1, x2, y2}]}`` in a square viewBox of side ``size``."""
    depths = {start: 0} | {node["id"]: node["depth"] for node in nodes}
    parents = _parents(start, depths, edges)
    levels: dict[int, list[int]] = defaultdict(list)
    for node_id, depth in depths.items():
        if depth:
            levels[depth].append(node_id)
    radii = _ring_radii([len(levels[d]) for d in sorted(levels)])
    size = 2 * ((radii[-1] if radii else 0) + NODE_RADIUS + MARGIN)
    centre = size / 2
    place: dict[int, tuple[float, float]] = {start: (centre, centre)}
    angle_of: dict[int, float] = {start: 0.0}
    for depth, radius in zip(sorted(levels), radii, strict=True):
        wanted = {n: angle_of.get(parents.get(n, start), 0.0) for n in levels[depth]}
        ring = sorted(levels[depth], key=lambda n: (wanted[n], n))
        step = 2 * math.pi / len(ring)
        # Evenly spaced, turned as a whole to sit nearest the parents (a circular mean).
        # Around the start every node wants the same angle: no mean, the ring starts on top.
        sin = sum(math.sin(wanted[n] - i * step) for i, n in enumerate(ring))
        cos = sum(math.cos(wanted[n] - i * step) for i, n in enumerate(ring))
        turn = math.atan2(sin, cos) if math.hypot(sin, cos) > 1e-6 else 0.0
        for index, node_id in enumerate(ring):
            angle = round(index * step + turn, 9)
            angle_of[node_id] = angle
            place[node_id] = (
                round(centre + radius * math.sin(angle), 2),
                round(centre - radius * math.cos(angle), 2),
            )
    return {
        "size": round(size, 2),
        "radius": NODE_RADIUS,
        "nodes": [{"id": n, "depth": depths[n], "x": place[n][0], "y": place[n][1]} for n in place],
        "edges": _lines(edges, place),
    }


def _lines(edges: list[dict[str, Any]], place: dict[int, tuple[float, float]]) -> list[dict]:
    """Each edge as a line from the rim of its source to the rim of its target (where an
    arrowhead fits); edges between one pair are spread apart."""
    pairs: dict[frozenset[int], list[dict[str, Any]]] = defaultdict(list)
    for edge in edges:
        if edge["source"] in place and edge["target"] in place:
            pairs[frozenset((edge["source"], edge["target"]))].append(edge)
    lines = []
    for group in pairs.values():
        for index, edge in enumerate(group):
            (x1, y1), (x2, y2) = place[edge["source"]], place[edge["target"]]
            length = math.hypot(x2 - x1, y2 - y1) or 1.0
            ux, uy = (x2 - x1) / length, (y2 - y1) / length
            shift = (index - (len(group) - 1) / 2) * PARALLEL_OFFSET
            # Perpendicular to the pair's line in a fixed sense (from the smaller id), so
            # two edges of opposite directions still separate.
            sense = 1 if edge["source"] < edge["target"] else -1
            px, py = -uy * shift * sense, ux * shift * sense
            rim = NODE_RADIUS + 2
            lines.append(
                {
                    **edge,
                    "x1": round(x1 + ux * rim + px, 2),
                    "y1": round(y1 + uy * rim + py, 2),
                    "x2": round(x2 - ux * rim + px, 2),
                    "y2": round(y2 - uy * rim + py, 2),
                }
            )
    return lines
