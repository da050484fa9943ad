"""Reads of an agent's memory graph: traversal from a memory and the shortest path between
two. Nothing here writes.

Every query starts from memories of one agent (loaded through the access helper, or
reached from one), so it runs on the edge indexes (source, target, type) and (target, type)
and reads no other agent's rows; edges join two memories of one agent (the services check
it), and the agent is checked again on each edge read.
The work is bounded: at most DEPTH_MAX levels (PATH_DEPTH_MAX for a path), each one query
for the edges (at most EDGE_SCAN_MAX rows) and one for the memories reached. Expired
memories (waiting for the expiry pass) are not reached, as they are not listed or recalled.
"""

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db.models.functions import Substr
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.exceptions import MemoryNotFound, PathNotFound
from memory.models import EdgeType, Memory, MemoryEdge
from tenancy.validation import DB_ID_MAX, clean_choice

DEPTH_MAX = 3
TRAVERSE_LIMIT = 50
TRAVERSE_LIMIT_MAX = 500
PATH_DEPTH = 6
PATH_DEPTH_MAX = 6
# Edges read per level: built edges are a few per memory, but a memory can be the target
# of many (an old turn that later ones resemble), so a level reads at most this many.
EDGE_SCAN_MAX = 10_000
PREVIEW_CHARS = 200

# (source, target, type, weight)
Edge = tuple[int, int, str, float]


class Direction(StrEnum):
    OUT = "out"
    IN = "in"
    BOTH = "both"


def clean_memory_id(value: object, *, field: str = "memory_id") -> int:
    """A memory id given as text (a URL or a command line): a positive integer."""
    text = str(value).strip()
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= DB_ID_MAX:
        raise InvalidInput(field, f"must be a memory id (a positive integer); got {value!r}")
    return int(text)


def clean_bounded(value: object, *, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(field, f"must be an integer between {low} and {high}; got {value!r}")
    return value


def clean_edge_types(value: str | Iterable[str] | None) -> list[str]:
    """Edge types from "a,b" or a list; none given means every type."""
    if value is None:
        return list(EdgeType.values)
    parts = value.split(",") if isinstance(value, str) else list(value)
    names = [part.strip() for part in parts if part.strip()]
    if not names:
        raise InvalidInput("types", f"must name edge types: {', '.join(EdgeType.values)}")
    for name in names:
        clean_choice(name, field="types", choices=EdgeType.values)
    return sorted(set(names))


def _nodes(agent_id: int, ids: Iterable[int], now: datetime) -> dict[int, dict[str, Any]]:
    """The live memories among ``ids``, as graph nodes (a preview of their content)."""
    rows = (
        Memory.objects.filter(agent_id=agent_id, pk__in=list(ids))
        .live(now)
        .annotate(preview=Substr("content", 1, PREVIEW_CHARS))
        .values("id", "preview", "speaker", "memory_type", "created_at")
    )
    return {row["id"]: dict(row) for row in rows}


def node_of(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.pk,
        "preview": memory.content[:PREVIEW_CHARS],
        "speaker": memory.speaker,
        "memory_type": memory.memory_type,
        "created_at": memory.created_at,
    }


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    source, target, kind, weight = edge
    return {"source": source, "target": target, "type": kind, "weight": weight}


def _edges_touching(
    agent_id: int, ids: list[int], kinds: list[str], direction: Direction
) -> list[Edge]:
    """The edges at ``ids`` (memories of ``agent_id``). One query per end, each on its own
    index ((source, target, type) or (target, type)). The agent is checked on the rows, not
    in the query: given it, SQLite plans a scan of the agent's edges (its agent index)."""
    ends = []
    if direction in (Direction.OUT, Direction.BOTH):
        ends.append("source_id__in")
    if direction in (Direction.IN, Direction.BOTH):
        ends.append("target_id__in")
    found: list[Edge] = []
    for end in ends:
        rows = MemoryEdge.objects.filter(type__in=kinds, **{end: ids}).order_by()
        fields = ("agent_id", "source_id", "target_id", "type", "weight")
        for agent, *edge in rows.values_list(*fields)[: EDGE_SCAN_MAX - len(found)]:
            if agent == agent_id:
                found.append((edge[0], edge[1], edge[2], edge[3]))
        if len(found) >= EDGE_SCAN_MAX:
            break
    return found


def traverse_graph(
    *,
    memory: Memory,
    depth: int = 1,
    types: str | Iterable[str] | None = None,
    limit: int = TRAVERSE_LIMIT,
    direction: str = Direction.BOTH,
) -> dict[str, Any]:
    """The memories reached from ``memory`` (already loaded through the access helper)
    along edges of ``types``, breadth-first to ``depth`` (1..DEPTH_MAX), at most ``limit``
    of them (1..TRAVERSE_LIMIT_MAX; within a level, the newest first), each with the level
    it was reached at, and every edge of those types among them and the start.
    ``direction``: follow edges out of a memory, into it, or both."""
    depth = clean_bounded(depth, field="depth", low=1, high=DEPTH_MAX)
    limit = clean_bounded(limit, field="limit", low=1, high=TRAVERSE_LIMIT_MAX)
    kinds = clean_edge_types(types)
    way = Direction(clean_choice(direction, field="direction", choices=list(Direction)))
    now = timezone.now()
    agent_id = memory.agent_id
    reached: dict[int, dict[str, Any]] = {}
    seen = {memory.pk}
    frontier = [memory.pk]
    for level in range(1, depth + 1):
        room = limit - len(reached)
        if not frontier or room <= 0:
            break
        found = set()
        for source, target, _, _ in _edges_touching(agent_id, frontier, kinds, way):
            if way != Direction.IN and source in frontier:
                found.add(target)
            if way != Direction.OUT and target in frontier:
                found.add(source)
        nodes = _nodes(agent_id, sorted(found - seen, reverse=True)[: room * 4], now)
        taken = sorted(nodes, reverse=True)[:room]
        for node_id in taken:
            reached[node_id] = {**nodes[node_id], "depth": level}
        seen |= found
        frontier = taken
    ids = [memory.pk, *reached]
    # Both ends among this agent's memories: the agent's edges (not in the query: above).
    edges = (
        MemoryEdge.objects.filter(type__in=kinds, source_id__in=ids, target_id__in=ids)
        .order_by("source_id", "target_id", "type")
        .values_list("source_id", "target_id", "type", "weight")
    )
    return {
        "start": {**node_of(memory), "depth": 0},
        "nodes": sorted(reached.values(), key=lambda n: (n["depth"], -n["id"])),
        "edges": [edge_to_dict(e) for e in edges],
    }


def _expand(
    agent_id: int,
    frontier: list[int],
    kinds: list[str],
    mine: dict[int, tuple[int, Edge | None]],
    now: datetime,
) -> list[int]:
    """One level of a path search from one end: record how each new memory was reached
    (the memory before it and the edge) in ``mine``; the new level, newest first."""
    level = mine[frontier[0]][0] + 1
    on_frontier = set(frontier)
    via: dict[int, Edge] = {}
    for edge in _edges_touching(agent_id, frontier, kinds, Direction.BOTH):
        source, target = edge[0], edge[1]
        for here, there in ((source, target), (target, source)):
            if here in on_frontier and there not in mine and there not in via:
                via[there] = edge
    live = _nodes(agent_id, via, now)
    for node_id in live:
        edge = via[node_id]
        mine[node_id] = (level, edge)
    return sorted(live, reverse=True)


def _walk(node_id: int, mine: dict[int, tuple[int, Edge | None]]) -> tuple[list[int], list[Edge]]:
    """From ``node_id`` back to the end ``mine`` started at: the memories and edges."""
    ids, edges = [node_id], []
    while (edge := mine[node_id][1]) is not None:
        node_id = edge[0] if edge[1] == node_id else edge[1]
        ids.append(node_id)
        edges.append(edge)
    return ids, edges


def shortest_path(
    *,
    source: Memory,
    target: Memory,
    types: str | Iterable[str] | None = None,
    max_depth: int = PATH_DEPTH,
) -> dict[str, Any]:
    """The shortest chain of edges of ``types`` between two memories of one agent (edges
    followed either way; each returned with its own direction), at most ``max_depth``
    (1..PATH_DEPTH_MAX) edges long: a breadth-first search from both ends, the smaller
    side expanded first, until they meet. PathNotFound when there is none within reach;
    a memory of another agent is MemoryNotFound, as the access helper answers."""
    max_depth = clean_bounded(max_depth, field="max_depth", low=1, high=PATH_DEPTH_MAX)
    kinds = clean_edge_types(types)
    if source.agent_id != target.agent_id:
        raise MemoryNotFound(f"Memory {target.pk} not found for this agent")
    now = timezone.now()
    agent_id = source.agent_id
    start: dict[int, tuple[int, Edge | None]] = {source.pk: (0, None)}
    end: dict[int, tuple[int, Edge | None]] = {target.pk: (0, None)}
    fronts = [[source.pk], [target.pk]]
    meeting = [source.pk] if source.pk == target.pk else []
    length = 0
    while not meeting and fronts[0] and fronts[1] and length < max_depth:
        side = 0 if len(fronts[0]) <= len(fronts[1]) else 1
        mine, theirs = (start, end) if side == 0 else (end, start)
        fronts[side] = _expand(agent_id, fronts[side], kinds, mine, now)
        length += 1
        meeting = sorted((n for n in fronts[side] if n in theirs), key=lambda n: (theirs[n][0], -n))
    if not meeting:
        raise PathNotFound(
            f"No path of at most {max_depth} edges from memory {source.pk} to memory {target.pk}"
        )
    middle = meeting[0]
    head_ids, head_edges = _walk(middle, start)
    tail_ids, tail_edges = _walk(middle, end)
    ids = [*reversed(head_ids), *tail_ids[1:]]
    edges = [*reversed(head_edges), *tail_edges]
    nodes = _nodes(agent_id, ids, now) | {m.pk: node_of(m) for m in (source, target)}
    return {
        "length": len(edges),
        "memories": [nodes[i] for i in ids],
        "edges": [edge_to_dict(e) for e in edges],
    }
