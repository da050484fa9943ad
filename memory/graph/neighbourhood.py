"""A memory's neighbourhood as the memory page shows it: the memories and edges
memory.graph.queries.traverse_graph reaches, placed for an SVG by memory.graph.layout, and
the same edges as a list (which needs no JavaScript, nor even the picture). Nothing here
writes."""

from typing import Any

from memory.graph.layout import layout
from memory.graph.queries import traverse_graph
from memory.models import EdgeType, Memory

NEIGHBOURHOOD_DEPTHS = (1, 2)
NEIGHBOURHOOD_LIMIT = 30


def memory_neighbourhood(memory: Memory, *, depth: int = 1) -> dict[str, Any]:
    """The memories within ``depth`` edges of ``memory`` (at most NEIGHBOURHOOD_LIMIT),
    drawn and listed. ``drawing``: the layout with each node's preview; ``rows``: each edge
    with both ends (the nearer end first), ``types``: the edge types drawn, for a legend."""
    graph = traverse_graph(memory=memory, depth=depth, limit=NEIGHBOURHOOD_LIMIT)
    start = graph["start"]
    nodes = {node["id"]: node for node in [start, *graph["nodes"]]}
    drawing = layout(start["id"], graph["nodes"], graph["edges"])
    for placed in drawing["nodes"]:
        placed["preview"] = nodes[placed["id"]]["preview"]
    rows = [
        {**edge, "source": nodes[edge["source"]], "target": nodes[edge["target"]]}
        for edge in graph["edges"]
    ]
    rows.sort(
        key=lambda r: (
            min(r["source"]["depth"], r["target"]["depth"]),
            max(r["source"]["depth"], r["target"]["depth"]),
            r["source"]["id"],
            r["target"]["id"],
            r["type"],
        )
    )
    present = {edge["type"] for edge in graph["edges"]}
    return {
        "depth": depth,
        "depths": NEIGHBOURHOOD_DEPTHS,
        "limit": NEIGHBOURHOOD_LIMIT,
        "reached": len(graph["nodes"]),
        "drawing": drawing,
        "rows": rows,
        "types": [kind for kind in EdgeType if kind in present],
    }
