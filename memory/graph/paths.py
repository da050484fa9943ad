"""The shortest path between two memories of an agent's graph (shortest_path): a
breadth-first search from both ends, the smaller side expanded first, on the edge reads and
rules of memory.graph.queries (bounds, expiry, a walk's user). Nothing here writes.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory.exceptions import MemoryNotFound, PathNotFound
from memory.graph.queries import (
    Direction,
    Edge,
    check_visible,
    clean_bounded,
    clean_edge_types,
    clean_walk_user,
    edge_to_dict,
    edges_between,
    edges_touching,
    live_nodes,
    node_of,
    visible_to,
)
from memory.models import Memory

PATH_DEPTH = 6
PATH_DEPTH_MAX = 6
# Expired memories a path search reads once and steps around; beyond this many (the expiry
# pass is far behind) it checks each level's memories instead.
EXPIRED_MAX = 1000
# From a frontier this large, a path search first asks whether it meets the other side.
PROBE_FROM = 32

# How a path search reached each memory: its level and the edge from the level before.
Reached = dict[int, tuple[int, Edge | None]]


def _expired(agent_id: int, now: datetime) -> set[int] | None:
    """The agent's memories past their expiry, waiting for the expiry pass (few: the pass
    deletes them), read once for a whole search on the partial expiry index; None when
    there are more than EXPIRED_MAX, and the search checks each level instead."""
    ids = set(
        Memory.objects.filter(agent_id=agent_id)
        .expired(now)
        .order_by()
        .values_list("id", flat=True)[: EXPIRED_MAX + 1]
    )
    return None if len(ids) > EXPIRED_MAX else ids


def _meeting(edges: list[Edge], frontier: set[int], theirs: Reached) -> tuple[int, Edge] | None:
    """Where a level from ``frontier`` meets the other side, if it does: the newest memory
    of ``theirs`` it reaches, by the first of its edges in order. Every meeting on one level
    makes a path of the same, shortest, length (both sides searched every memory nearer)."""
    met: dict[int, Edge] = {}
    for edge in edges:
        for here, there in ((edge[0], edge[1]), (edge[1], edge[0])):
            if here in frontier and there in theirs:
                met[there] = min(edge, met.get(there, edge))
    if not met:
        return None
    middle = max(met)
    return middle, met[middle]


def _expand(
    agent_id: int,
    fronts: tuple[list[int], list[int]],
    kinds: list[str],
    sides: tuple[Reached, Reached],
    expired: set[int] | None,
    now: datetime,
    user: str | None = None,
) -> tuple[list[int], int | None]:
    """One level of a path search from one end (``fronts[0]``, reached as ``sides[0]``
    records): the new level, newest first, each new live memory recorded with the edge that
    reached it; or, where it meets the other side, that memory (the search stops there).
    From a large frontier it asks first for the edges that join the two frontiers (a few
    rows): the meeting level then never reads all its edges."""
    (frontier, their_front), (mine, theirs) = fronts, sides
    level = mine[frontier[0]][0] + 1
    on_frontier = set(frontier)
    if len(frontier) >= PROBE_FROM:
        met = _meeting(edges_between(agent_id, frontier, their_front, kinds), on_frontier, theirs)
        if met is not None:
            mine[met[0]] = (level, met[1])
            return [met[0]], met[0]
    edges = edges_touching(agent_id, frontier, kinds, Direction.BOTH)
    # Memories of the other side were checked live when it reached them.
    met = _meeting(edges, on_frontier, theirs)
    if met is not None:
        mine[met[0]] = (level, met[1])
        return [met[0]], met[0]
    via: dict[int, Edge] = {}
    for edge in edges:
        for here, there in ((edge[0], edge[1]), (edge[1], edge[0])):
            if here in on_frontier and there not in mine and there not in via:
                via[there] = edge
    if expired is None:
        # Checked level by level: live, and of the walk's user or shared.
        seen = Memory.objects.filter(pk__in=list(via)).live(now).filter(visible_to(user))
        visible = set(seen.values_list("id", flat=True))
        live = [node for node in via if node in visible]
    else:
        live = [node for node in via if node not in expired]
    for node in live:
        mine[node] = (level, via[node])
    return sorted(live, reverse=True), None


def _walk(node_id: int, mine: Reached) -> tuple[list[int], list[Edge]]:
    """From ``node_id`` back to the end ``mine`` started at: the memories and edges."""
    ids, edges = [node_id], []
    while (edge := mine[node_id][1]) is not None:
        node_id = edge[0] if edge[1] == node_id else edge[1]
        ids.append(node_id)
        edges.append(edge)
    return ids, edges


def _search(
    agent_id: int,
    ends: tuple[int, int],
    kinds: list[str],
    max_depth: int,
    expired: set[int] | None,
    now: datetime,
    user: str | None = None,
) -> tuple[list[int], list[Edge]] | None:
    """A shortest path between ``ends`` that steps around ``expired`` (None: check each
    level, for expiry and ``user``), as its memories and edges; None when there is none
    within ``max_depth``."""
    start: Reached = {ends[0]: (0, None)}
    end: Reached = {ends[1]: (0, None)}
    fronts = [[ends[0]], [ends[1]]]
    middle = ends[0] if ends[0] == ends[1] else None
    length = 0
    while middle is None and fronts[0] and fronts[1] and length < max_depth:
        side = 0 if len(fronts[0]) <= len(fronts[1]) else 1
        pair = (fronts[side], fronts[1 - side])
        sides = (start, end) if side == 0 else (end, start)
        fronts[side], middle = _expand(agent_id, pair, kinds, sides, expired, now, user)
        length += 1
    if middle is None:
        return None
    head_ids, head_edges = _walk(middle, start)
    tail_ids, tail_edges = _walk(middle, end)
    return [*reversed(head_ids), *tail_ids[1:]], [*reversed(head_edges), *tail_edges]


def shortest_path(
    *,
    source: Memory,
    target: Memory,
    types: str | Iterable[str] | None = None,
    max_depth: int = PATH_DEPTH,
    user: str | None = None,
) -> dict[str, Any]:
    """The shortest chain of edges of ``types`` between two memories of one agent (edges
    followed either way; each returned with its own direction), at most ``max_depth``
    (1..PATH_DEPTH_MAX) edges long: a breadth-first search from both ends, the smaller
    side expanded first, until they meet. PathNotFound when there is none within reach;
    a memory of another agent is MemoryNotFound, as the access helper answers.

    Expired memories wait for the expiry pass and are few, so the search first assumes
    there are none and checks the path it finds; only when one of its memories has expired
    does it search again around them (read once, or level by level when there are many).
    ``user``: the path goes only through that user's memories and shared ones, level by
    level (memory.graph.queries)."""
    max_depth = clean_bounded(max_depth, field="max_depth", low=1, high=PATH_DEPTH_MAX)
    kinds = clean_edge_types(types)
    user = clean_walk_user(user)
    if source.agent_id != target.agent_id:
        raise MemoryNotFound(f"Memory {target.pk} not found for this agent")
    check_visible(source, user)
    check_visible(target, user)
    now = timezone.now()
    agent_id = source.agent_id
    ends = (source.pk, target.pk)
    if user is not None:
        found = _search(agent_id, ends, kinds, max_depth, None, now, user)
        nodes = live_nodes(agent_id, found[0], now, user) if found else {}
    else:
        found = _search(agent_id, ends, kinds, max_depth, set(), now)
        nodes = live_nodes(agent_id, found[0], now) if found else {}
    if user is None and found and not set(found[0][1:-1]) <= set(nodes):
        found = _search(agent_id, ends, kinds, max_depth, _expired(agent_id, now), now)
        nodes = live_nodes(agent_id, found[0], now) if found else {}
    if found is None:
        raise PathNotFound(
            f"No path of at most {max_depth} edges from memory {source.pk} to memory {target.pk}"
        )
    ids, edges = found
    nodes |= {m.pk: node_of(m) for m in (source, target)}
    return {
        "length": len(edges),
        "memories": [nodes[i] for i in ids],
        "edges": [edge_to_dict(e) for e in edges],
    }
