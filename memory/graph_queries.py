"""Reads of an agent's memory graph: traversal from a memory and the shortest path between
two. Nothing here writes.

Every query starts from memories of one agent (loaded through the access helper, or
reached from one), so it runs on the edge indexes (source, target, type) and (target, type)
and reads no other agent's rows; edges join two memories of one agent (the services check
it), and the agent is checked again on each edge read.
The work is bounded: at most DEPTH_MAX levels (PATH_DEPTH_MAX for a path), each one query
for the edges at both ends (at most EDGE_SCAN_MAX rows), and for a traversal one for the
memories reached (a path search loads only the memories of the path it finds, and from a
large frontier first asks whether it meets the other side). Expired memories (waiting for the expiry
pass) are not reached, as they are not listed or recalled.

Given a ``user``, a walk sees only that user's memories and the shared ones (no user): it
never reaches, nor steps through, another user's memory, and starting (or ending) at one is
MemoryNotFound, as for a memory of another agent. The graph build never joins two users'
memories (memory.services.graph); this keeps a walk apart from them whatever edges exist
(a link made by hand, edges built before that rule).
"""

from collections.abc import Callable, Iterable
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db import connection
from django.db.models import Q
from django.db.models.functions import Substr
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.exceptions import MemoryNotFound, PathNotFound
from memory.models import EdgeType, Memory, MemoryEdge
from memory.sql import any_of
from tenancy.validation import DB_ID_MAX, clean_choice, clean_user

DEPTH_MAX = 3
TRAVERSE_LIMIT = 50
TRAVERSE_LIMIT_MAX = 500
PATH_DEPTH = 6
PATH_DEPTH_MAX = 6
# Edges read per level: built edges are a few per memory, but a memory can be the target
# of many (an old turn that later ones resemble), so a level reads at most this many.
EDGE_SCAN_MAX = 10_000
# Expired memories a path search reads once and steps around; beyond this many (the expiry
# pass is far behind) it checks each level's memories instead.
EXPIRED_MAX = 1000
# From a frontier this large, a path search first asks whether it meets the other side.
PROBE_FROM = 32
PREVIEW_CHARS = 200

# (source, target, type, weight)
Edge = tuple[int, int, str, float]
# How a path search reached each memory: its level and the edge from the level before.
Reached = dict[int, tuple[int, Edge | None]]


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


def clean_walk_user(user: object) -> str | None:
    """A walk's ``user`` (None: every memory; see the module's docstring)."""
    if user is None:
        return None
    return clean_user(user) or None


def _visible(user: str | None) -> Q:
    """The memories a walk for ``user`` may reach: theirs and the shared ones."""
    if user is None:
        return Q()
    return Q(user_ref=user) | Q(user_ref__isnull=True) | Q(user_ref="")


def _check_visible(memory: Memory, user: str | None) -> None:
    if user is not None and memory.user_ref and memory.user_ref != user:
        raise MemoryNotFound(f"Memory {memory.pk} not found for this user")


def _nodes(
    agent_id: int, ids: Iterable[int], now: datetime, user: str | None = None
) -> dict[int, dict[str, Any]]:
    """The live memories among ``ids`` (of ``user`` or shared, when given), as graph nodes
    (a preview of their content)."""
    rows = (
        Memory.objects.filter(agent_id=agent_id, pk__in=list(ids))
        .live(now)
        .filter(_visible(user))
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
    """The edges at ``ids`` (memories of ``agent_id``), at most EDGE_SCAN_MAX: one query, a
    SELECT per end, each on its own index ((source, target, type) or (target, type)); an
    edge with both ends in ``ids`` comes twice. In SQL, not the ORM: building its IN lists
    and converting its rows took two to three times the query itself on PostgreSQL
    (bench/graph.py). The agent is checked on the rows, not in the
    query: given it, SQLite plans a scan of the agent's edges (its agent index)."""
    ends: list[str] = []
    if direction in (Direction.OUT, Direction.BOTH):
        ends.append("source_id")
    if direction in (Direction.IN, Direction.BOTH):
        ends.append("target_id")
    return _select_edges(agent_id, [any_of(end, ids) for end in ends], kinds)


def _edges_among(agent_id: int, ids: list[int], kinds: list[str]) -> list[Edge]:
    """The edges with both ends among ``ids`` (memories of ``agent_id``), with weights."""
    sources, source_args = any_of("source_id", ids)
    targets, target_args = any_of("target_id", ids)
    return _select_edges(agent_id, [(f"{sources} AND {targets}", source_args + target_args)], kinds)


def _edges_between(
    agent_id: int, ones: list[int], others: list[int], kinds: list[str]
) -> list[Edge]:
    """The edges with one end among ``ones`` and the other among ``others``, either way."""
    wheres = []
    for one, other in (("source_id", "target_id"), ("target_id", "source_id")):
        near, near_args = any_of(one, ones)
        far, far_args = any_of(other, others)
        wheres.append((f"{near} AND {far}", near_args + far_args))
    return _select_edges(agent_id, wheres, kinds)


def _select_edges(
    agent_id: int, wheres: list[tuple[str, list[Any]]], kinds: list[str]
) -> list[Edge]:
    """The edges of ``kinds`` each ``where`` selects, one SELECT each in one query, at most
    EDGE_SCAN_MAX in all; only those of ``agent_id``."""
    columns = "agent_id, source_id, target_id, type, weight"
    selects: list[str] = []
    params: list[Any] = []
    for where, args in wheres:
        if len(kinds) < len(EdgeType.values):
            of_kinds, kind_args = any_of("type", kinds)
            where, args = f"{where} AND {of_kinds}", args + kind_args
        selects.append(f"SELECT {columns} FROM {MemoryEdge._meta.db_table} WHERE {where}")
        params += args
    with connection.cursor() as cursor:
        cursor.execute(f"{' UNION ALL '.join(selects)} LIMIT {EDGE_SCAN_MAX}", params)
        rows = cursor.fetchall()
    return [
        (source, target, kind, weight)
        for agent, source, target, kind, weight in rows
        if agent == agent_id
    ]


def _reach(
    agent_id: int,
    start: int,
    depth: int,
    limit: int,
    step: tuple[list[str], Direction],
    live: Callable[[list[int]], dict[int, dict[str, Any]]] | None,
) -> dict[int, tuple[int, dict[str, Any] | None]]:
    """Breadth-first from ``start``: each memory reached, with its level (and its node when
    ``live`` loaded it). ``live``: loads the live memories among candidates, level by
    level; None: every memory is taken as live (checked by the caller afterwards)."""
    kinds, way = step
    reached: dict[int, tuple[int, dict[str, Any] | None]] = {}
    seen = {start}
    frontier = [start]
    for level in range(1, depth + 1):
        room = limit - len(reached)
        if not frontier or room <= 0:
            break
        found = set()
        on_frontier = set(frontier)
        for source, target, _, _ in _edges_touching(agent_id, frontier, kinds, way):
            if way != Direction.IN and source in on_frontier:
                found.add(target)
            if way != Direction.OUT and target in on_frontier:
                found.add(source)
        candidates = sorted(found - seen, reverse=True)
        nodes = live(candidates[: room * 4]) if live else dict.fromkeys(candidates[:room])
        frontier = sorted(nodes, reverse=True)[:room]
        for node_id in frontier:
            reached[node_id] = (level, nodes[node_id])
        seen |= found
    return reached


def traverse_graph(
    *,
    memory: Memory,
    depth: int = 1,
    types: str | Iterable[str] | None = None,
    limit: int = TRAVERSE_LIMIT,
    direction: str = Direction.BOTH,
    user: str | None = None,
) -> dict[str, Any]:
    """The memories reached from ``memory`` (already loaded through the access helper)
    along edges of ``types``, breadth-first to ``depth`` (1..DEPTH_MAX), at most ``limit``
    of them (1..TRAVERSE_LIMIT_MAX; within a level, the newest first), each with the level
    it was reached at, and every edge of those types among them and the start.
    ``direction``: follow edges out of a memory, into it, or both. ``user``: only that
    user's memories and shared ones are reached or walked through (module docstring).

    Expired memories are few (the expiry pass deletes them), so the walk first takes every
    memory as live and loads the ones it reached at the end; only when one of them has
    expired does it walk again, loading each level's live memories as it goes."""
    depth = clean_bounded(depth, field="depth", low=1, high=DEPTH_MAX)
    limit = clean_bounded(limit, field="limit", low=1, high=TRAVERSE_LIMIT_MAX)
    kinds = clean_edge_types(types)
    way = Direction(clean_choice(direction, field="direction", choices=list(Direction)))
    user = clean_walk_user(user)
    _check_visible(memory, user)
    now = timezone.now()
    agent_id = memory.agent_id
    walked = _reach(agent_id, memory.pk, depth, limit, (kinds, way), None)
    nodes = _nodes(agent_id, walked, now, user)
    if len(nodes) < len(walked):
        # An expired memory, or another user's, was reached: walk again around them.
        walked = _reach(
            agent_id,
            memory.pk,
            depth,
            limit,
            (kinds, way),
            lambda ids: _nodes(agent_id, ids, now, user),
        )
        nodes = {node_id: node for node_id, (_, node) in walked.items() if node is not None}
    reached = [{**nodes[node_id], "depth": level} for node_id, (level, _) in walked.items()]
    edges = _edges_among(agent_id, [memory.pk, *walked], kinds)
    return {
        "start": {**node_of(memory), "depth": 0},
        "nodes": sorted(reached, key=lambda n: (n["depth"], -n["id"])),
        "edges": [edge_to_dict(e) for e in sorted(edges)],
    }


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
        met = _meeting(_edges_between(agent_id, frontier, their_front, kinds), on_frontier, theirs)
        if met is not None:
            mine[met[0]] = (level, met[1])
            return [met[0]], met[0]
    edges = _edges_touching(agent_id, frontier, kinds, Direction.BOTH)
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
        seen = Memory.objects.filter(pk__in=list(via)).live(now).filter(_visible(user))
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
    level (module docstring)."""
    max_depth = clean_bounded(max_depth, field="max_depth", low=1, high=PATH_DEPTH_MAX)
    kinds = clean_edge_types(types)
    user = clean_walk_user(user)
    if source.agent_id != target.agent_id:
        raise MemoryNotFound(f"Memory {target.pk} not found for this agent")
    _check_visible(source, user)
    _check_visible(target, user)
    now = timezone.now()
    agent_id = source.agent_id
    ends = (source.pk, target.pk)
    if user is not None:
        found = _search(agent_id, ends, kinds, max_depth, None, now, user)
        nodes = _nodes(agent_id, found[0], now, user) if found else {}
    else:
        found = _search(agent_id, ends, kinds, max_depth, set(), now)
        nodes = _nodes(agent_id, found[0], now) if found else {}
    if user is None and found and not set(found[0][1:-1]) <= set(nodes):
        found = _search(agent_id, ends, kinds, max_depth, _expired(agent_id, now), now)
        nodes = _nodes(agent_id, found[0], now) if found else {}
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
