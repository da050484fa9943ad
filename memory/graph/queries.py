"""Reads of an agent's memory graph: traversal from a memory, and what every walk shares
(cleaning its arguments, the edge reads, the memories it may see); the shortest path
between two memories is memory.graph.paths. Nothing here writes.

Every query starts from memories of one agent (loaded through the access helper, or
reached from one), so it runs on the edge indexes (source, target, type) and (target, type)
and reads no other agent's rows; edges join two memories of one agent (the services check
it), and the agent is checked again on each edge read.
The work is bounded: at most DEPTH_MAX levels (graph_paths.PATH_DEPTH_MAX for a path), each
one query for the edges at both ends (at most EDGE_SCAN_MAX rows), and for a traversal one
for the memories reached (a path search loads only the memories of the path it finds, and
from a large frontier first asks whether it meets the other side). Expired memories
(waiting for the expiry pass) are not reached, as they are not listed or recalled.

Given a ``user``, a walk sees only that user's memories and the shared ones (no user): it
never reaches, nor steps through, another user's memory, and starting (or ending) at one is
MemoryNotFound, as for a memory of another agent. The graph build never joins two users'
memories (memory.services.graph_edges); this keeps a walk apart from them whatever edges exist
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
from memory.exceptions import MemoryNotFound
from memory.models import EdgeType, Memory, MemoryEdge
from memory.sql import any_of
from tenancy.validation import DB_ID_MAX, clean_choice, clean_user

DEPTH_MAX = 3
TRAVERSE_LIMIT = 50
TRAVERSE_LIMIT_MAX = 500
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


def clean_walk_user(user: object) -> str | None:
    """A walk's ``user`` (None: every memory; see the module's docstring)."""
    if user is None:
        return None
    return clean_user(user) or None


def visible_to(user: str | None) -> Q:
    """The memories a walk for ``user`` may reach: theirs and the shared ones."""
    if user is None:
        return Q()
    return Q(user_ref=user) | Q(user_ref__isnull=True) | Q(user_ref="")


def check_visible(memory: Memory, user: str | None) -> None:
    if user is not None and memory.user_ref and memory.user_ref != user:
        raise MemoryNotFound(f"Memory {memory.pk} not found for this user")


def live_nodes(
    agent_id: int, ids: Iterable[int], now: datetime, user: str | None = None
) -> dict[int, dict[str, Any]]:
    """The live memories among ``ids`` (of ``user`` or shared, when given), as graph nodes
    (a preview of their content)."""
    rows = (
        Memory.objects.filter(agent_id=agent_id, pk__in=list(ids))
        .live(now)
        .filter(visible_to(user))
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


def edges_touching(
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


def edges_between(
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
        for source, target, _, _ in edges_touching(agent_id, frontier, kinds, way):
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
    check_visible(memory, user)
    now = timezone.now()
    agent_id = memory.agent_id
    walked = _reach(agent_id, memory.pk, depth, limit, (kinds, way), None)
    nodes = live_nodes(agent_id, walked, now, user)
    if len(nodes) < len(walked):
        # An expired memory, or another user's, was reached: walk again around them.
        walked = _reach(
            agent_id,
            memory.pk,
            depth,
            limit,
            (kinds, way),
            lambda ids: live_nodes(agent_id, ids, now, user),
        )
        nodes = {node_id: node for node_id, (_, node) in walked.items() if node is not None}
    reached = [{**nodes[node_id], "depth": level} for node_id, (level, _) in walked.items()]
    edges = _edges_among(agent_id, [memory.pk, *walked], kinds)
    return {
        "start": {**node_of(memory), "depth": 0},
        "nodes": sorted(reached, key=lambda n: (n["depth"], -n["id"])),
        "edges": [edge_to_dict(e) for e in sorted(edges)],
    }
