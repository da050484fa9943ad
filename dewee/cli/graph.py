"""``dewee memory graph-rebuild|entities|link|unlink``: an agent's entities and graph (reading
the graph: dewee.cli.graph_read)."""

import argparse
import time
from typing import Any

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.progress import following, progress_bar
from dewee.cli.runner import cli_access
from dewee.errors import InvalidInput
from memory.graph.entities import entity_to_dict, list_entities, memory_entities, preview_extraction
from memory.models import EntityType
from memory.queries import get_memory
from memory.services import link_memories, rebuild_graph, unlink_memories
from memory.services.graph_rebuild import REBUILD_BATCH
from tenancy.models import Agent


def register(memory_commands: Any) -> None:
    p = memory_commands.add_parser(
        "graph-rebuild", help="Rebuild the entities, mentions and edges of existing memories."
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--agent")
    which.add_argument("--all", action="store_true", help="Every agent of every workspace.")
    p.add_argument("--batch-size", type=int, default=REBUILD_BATCH)
    add_json_flag(p)
    p.set_defaults(handler=graph_rebuild)

    p = memory_commands.add_parser("entities", help="An agent's entities; what a text holds.")
    entity_commands = p.add_subparsers(dest="entities_command", required=True, metavar="WHAT")
    q = entity_commands.add_parser("list", help="An agent's entities, newest first.")
    q.add_argument("--agent", required=True)
    q.add_argument("--q", help="Names or aliases starting with this (any case).")
    q.add_argument("--type", choices=EntityType.values)
    q.add_argument("--limit", type=int, default=50)
    q.add_argument("--cursor")
    add_json_flag(q)
    q.set_defaults(handler=entities_list)
    q = entity_commands.add_parser("memory", help="The entities one memory mentions.")
    q.add_argument("memory_id", type=int)
    add_json_flag(q)
    q.set_defaults(handler=entities_of_memory)
    q = entity_commands.add_parser("extract", help="What storing a text would find (no store).")
    q.add_argument("--text", required=True)
    add_json_flag(q)
    q.set_defaults(handler=entities_extract)

    for name, handler, text in (
        ("link", link, "Link a memory to another of its agent."),
        ("unlink", unlink, "Remove a manual link."),
    ):
        p = memory_commands.add_parser(name, help=text)
        p.add_argument("source_id", type=int)
        p.add_argument("target_id", type=int)
        add_json_flag(p)
        p.set_defaults(handler=handler)


def graph_rebuild(args: argparse.Namespace) -> None:
    if args.batch_size < 1:
        raise InvalidInput("batch-size", "must be at least 1")
    access = cli_access()
    agents = list(Agent.objects.order_by("id")) if args.all else [access.agent(args.agent)]
    results = []
    for agent in agents:
        started = time.monotonic()
        with progress_bar(
            total=None, unit="memories", description=agent.agent_id, json_output=args.json
        ) as bar:
            built = rebuild_graph(agent=agent, batch_size=args.batch_size, progress=following(bar))
        seconds = time.monotonic() - started
        results.append({"agent_id": agent.agent_id, **vars(built), "seconds": seconds})
        if not args.json:
            print(
                f"{agent.agent_id}: {built.memories} memories, {built.entities} entities, "
                f"{built.mentions} mentions, {built.edges} edges in {seconds:.1f}s"
            )
    if args.json:
        print_json({"agents": results})


_ENTITY_COLUMNS = [
    ("id", "ID"),
    ("type", "TYPE"),
    ("name", "NAME"),
    ("mention_count", "MEMORIES"),
    ("last_seen", "LAST SEEN"),
]


def entities_list(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    items, next_cursor = list_entities(
        agent=agent, q=args.q, type=args.type, cursor=args.cursor, limit=args.limit
    )
    rows = [entity_to_dict(e) for e in items]
    if args.json:
        print_json({"items": rows, "next_cursor": next_cursor})
        return
    print_table(rows, _ENTITY_COLUMNS, widths={"name": 40}, empty="No entities.")
    if next_cursor:
        print(f"More: --cursor {next_cursor}")


def entities_of_memory(args: argparse.Namespace) -> None:
    rows = memory_entities(get_memory(access=cli_access(), memory_id=args.memory_id))
    if args.json:
        print_json(rows)
        return
    print_table(rows, [*_ENTITY_COLUMNS[:3], ("as_speaker", "SPEAKER")], empty="No entities.")


def entities_extract(args: argparse.Namespace) -> None:
    found = preview_extraction(args.text)
    if args.json:
        print_json(found)
        return
    print(f"speaker: {found['speaker'] or '-'}")
    print_table(found["entities"], [("type", "TYPE"), ("value", "VALUE")], empty="No entities.")


def _pair(args: argparse.Namespace) -> tuple[Any, Any, str]:
    access = cli_access()
    source = get_memory(access=access, memory_id=args.source_id)
    target = get_memory(access=access, memory_id=args.target_id, agent=source.agent)
    return source, target, access.actor


def link(args: argparse.Namespace) -> None:
    source, target, actor = _pair(args)
    link_memories(agent=source.agent, source=source, target=target, actor=actor)
    if args.json:
        print_json({"source_id": source.pk, "target_id": target.pk, "type": "linked_by"})
        return
    print(f"Linked memory {source.pk} to memory {target.pk}.")


def unlink(args: argparse.Namespace) -> None:
    source, target, actor = _pair(args)
    unlink_memories(agent=source.agent, source=source, target=target, actor=actor)
    if args.json:
        print_json({"source_id": source.pk, "target_id": target.pk, "unlinked": True})
        return
    print(f"Unlinked memory {source.pk} from memory {target.pk}.")
