"""``dewee memory graph traverse|path|export|network``: reading an agent's memory graph."""

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from memory.graph.export import FORMATS, export_graph
from memory.graph.network import NETWORK_TOP, agent_network, network_workspace
from memory.graph.paths import PATH_DEPTH, shortest_path
from memory.graph.queries import TRAVERSE_LIMIT, Direction, clean_memory_id, traverse_graph
from memory.queries import get_memory
from tenancy.models import DEFAULT_WORKSPACE_SLUG

# Progress goes to stderr once this many bytes have been written since the last report.
_PROGRESS_EVERY = 1 << 20


def register(memory_commands: Any) -> None:
    p = memory_commands.add_parser("graph", help="Read an agent's memory graph.")
    sub = p.add_subparsers(dest="graph_command", required=True, metavar="WHAT")
    q = sub.add_parser("traverse", help="The memories reached from one, breadth-first.")
    q.add_argument("--memory", required=True)
    q.add_argument("--depth", type=int, default=1)
    q.add_argument("--types", help="Edge types, comma-separated (default: all).")
    q.add_argument("--limit", type=int, default=TRAVERSE_LIMIT)
    q.add_argument("--direction", choices=list(Direction), default=Direction.BOTH)
    add_json_flag(q)
    q.set_defaults(handler=traverse)
    q = sub.add_parser("path", help="The shortest path between two memories of one agent.")
    q.add_argument("--from", dest="source", required=True)
    q.add_argument("--to", dest="target", required=True)
    q.add_argument("--types", help="Edge types, comma-separated (default: all).")
    q.add_argument("--max-depth", type=int, default=PATH_DEPTH)
    add_json_flag(q)
    q.set_defaults(handler=path)
    q = sub.add_parser("export", help="An agent's whole graph as JSON or GraphML.")
    q.add_argument("--agent", required=True)
    q.add_argument("--format", choices=FORMATS, default="json")
    q.add_argument("--types", help="Edge types, comma-separated (default: all).")
    q.add_argument("--entities", action="store_true", help="Entities and mentions too.")
    q.add_argument("--output", help="A file to write (default: standard output).")
    q.set_defaults(handler=export)
    q = sub.add_parser("network", help="The entities a workspace's agents share.")
    q.add_argument("--workspace", default=DEFAULT_WORKSPACE_SLUG)
    q.add_argument("--top", type=int, default=NETWORK_TOP)
    add_json_flag(q)
    q.set_defaults(handler=network)


_NODE_COLUMNS = [
    ("id", "ID"),
    ("depth", "DEPTH"),
    ("speaker", "SPEAKER"),
    ("created_at", "CREATED"),
    ("preview", "CONTENT"),
]
_EDGE_COLUMNS = [("source", "FROM"), ("target", "TO"), ("type", "TYPE"), ("weight", "WEIGHT")]


def traverse(args: argparse.Namespace) -> None:
    memory = get_memory(access=cli_access(), memory_id=clean_memory_id(args.memory))
    found = traverse_graph(
        memory=memory,
        depth=args.depth,
        types=args.types,
        limit=args.limit,
        direction=args.direction,
    )
    if args.json:
        print_json(found)
        return
    print_table([found["start"], *found["nodes"]], _NODE_COLUMNS, widths={"preview": 60})
    print()
    print_table(found["edges"], _EDGE_COLUMNS, empty="No edges.")


def path(args: argparse.Namespace) -> None:
    access = cli_access()
    source = get_memory(access=access, memory_id=clean_memory_id(args.source, field="from"))
    target_id = clean_memory_id(args.target, field="to")
    target = get_memory(access=access, memory_id=target_id, agent=source.agent)
    found = shortest_path(source=source, target=target, types=args.types, max_depth=args.max_depth)
    if args.json:
        print_json(found)
        return
    print(f"{found['length']} edges:")
    print_table(
        found["memories"], [c for c in _NODE_COLUMNS if c[0] != "depth"], widths={"preview": 60}
    )
    print()
    print_table(found["edges"], _EDGE_COLUMNS, empty="No edges.")


def _write(chunks: Any, out: TextIO, *, report: bool) -> int:
    written = reported = 0
    for chunk in chunks:
        out.write(chunk)
        written += len(chunk)
        if report and written - reported >= _PROGRESS_EVERY:
            sys.stderr.write(f"\r{written / 1e6:.1f} MB written ")
            sys.stderr.flush()
            reported = written
    return written


def export(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    found = export_graph(agent=agent, format=args.format, types=args.types, entities=args.entities)
    if args.output is None:
        _write(found.chunks, sys.stdout, report=False)
        return
    with Path(args.output).open("w", encoding="utf-8") as out:
        written = _write(found.chunks, out, report=True)
    sys.stderr.write(f"\rWrote {written / 1e6:.1f} MB to {args.output}\n")


def network(args: argparse.Namespace) -> None:
    workspace = network_workspace(access=cli_access(), slug=args.workspace)
    found = agent_network(workspace=workspace, top=args.top)
    if args.json:
        print_json(found)
        return
    print_table(found["agents"], [("agent_id", "AGENT"), ("entity_count", "ENTITIES")])
    print()
    rows = [
        {
            "a": pair["agents"][0],
            "b": pair["agents"][1],
            "shared": pair["shared_count"],
            "top": ", ".join(e["name"] for e in pair["entities"]),
        }
        for pair in found["pairs"]
    ]
    columns = [("a", "AGENT"), ("b", "AGENT"), ("shared", "SHARED"), ("top", "TOP ENTITIES")]
    print_table(rows, columns, widths={"top": 60}, empty="No shared entities.")
