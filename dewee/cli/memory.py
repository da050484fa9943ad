"""``dewee memory search|index-all|dedup|import|export``: an agent's memories from a terminal."""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.progress import following, progress_bar, set_total, shown, with_progress
from dewee.cli.runner import cli_access, cli_agent_to_write
from dewee.errors import ConfirmationRequired, InvalidInput
from memory.models import Memory, MemoryType
from memory.queries import memory_to_dict
from memory.recall import RecallFilters, RecallRequest, audience_of, recall
from memory.recall.routing import Routing
from memory.services import (
    DecayResult,
    DedupReport,
    ReindexProgress,
    deduplicate_memories,
    reindex_agent,
)
from memory.services.maintenance import run_maintenance
from memory.transfer import export_records, import_records


def register(memory_commands: Any) -> None:
    _register_search(memory_commands)
    _register_upkeep(memory_commands)
    _register_transfer(memory_commands)


def _register_search(memory_commands: Any) -> None:
    p = memory_commands.add_parser("search", help="Recall an agent's memories for a query.")
    p.add_argument("--agent", required=True)
    p.add_argument("--query", required=True)
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument(
        "--routing", default=Routing.AUTO.value, choices=[route.value for route in Routing]
    )
    p.add_argument("--explain", action="store_true", help="Show each result's scores.")
    whose = p.add_mutually_exclusive_group()
    whose.add_argument(
        "--user",
        help="Recall as for this user: their memories and the agent's shared ones, never "
        "another user's (default: the shared ones only).",
    )
    whose.add_argument(
        "--all-users", action="store_true", help="Search every user's memories as well."
    )
    add_json_flag(p)
    p.set_defaults(handler=search)


def _register_upkeep(memory_commands: Any) -> None:
    p = memory_commands.add_parser(
        "index-all", help="Re-embed every memory of an agent (resumable)."
    )
    p.add_argument("--agent", required=True)
    p.add_argument(
        "--only-stale",
        action="store_true",
        help="Only memories made by another model than the configured one.",
    )
    p.add_argument("--batch-size", type=int, default=256)
    add_json_flag(p)
    p.set_defaults(handler=index_all)

    p = memory_commands.add_parser(
        "dedup", help="Merge an agent's exact duplicates (same words, same entities)."
    )
    p.add_argument("--agent", required=True)
    p.add_argument("--memory-type", choices=MemoryType.values, help="Only memories of this type.")
    p.add_argument("--dry-run", action="store_true", help="Show the groups, change nothing.")
    p.add_argument("--yes", action="store_true", help="Confirm the merge; it cannot be undone.")
    add_json_flag(p)
    p.set_defaults(handler=dedup)

    p = memory_commands.add_parser(
        "decay", help="Bring an agent's importances to where their decay curves are now."
    )
    p.add_argument("--agent", required=True)
    p.add_argument(
        "--dry-run", action="store_true", help="Report what would change; write nothing."
    )
    add_json_flag(p)
    p.set_defaults(handler=decay)


def _register_transfer(memory_commands: Any) -> None:
    p = memory_commands.add_parser("export", help="Write an agent's memories as JSON Lines.")
    p.add_argument("--agent", required=True)
    p.add_argument("--output", "-o", type=Path, help="File to write (default: stdout).")
    p.set_defaults(handler=export)

    p = memory_commands.add_parser("import", help="Read memories from a JSON Lines export.")
    p.add_argument("file", type=Path, metavar="FILE.jsonl")
    p.add_argument("--agent", help="Import into this agent (default: the one in the file).")
    p.add_argument(
        "--workspace",
        help="Import into this workspace's agent, created if new (default: the agent the id "
        "names, as workspace/agent where several workspaces use the id; a new one goes into "
        "the default workspace).",
    )
    add_json_flag(p)
    p.set_defaults(handler=import_file)


def search(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    result = recall(
        agent=agent,
        request=RecallRequest(
            query=args.query,
            top_k=args.top_k,
            routing=args.routing,
            filters=RecallFilters(audience=audience_of(user=args.user, all_users=args.all_users)),
            explain=args.explain,
        ),
    )
    rows = [
        {**memory_to_dict(hit.memory), "score": hit.score, "explanation": hit.explanation}
        for hit in result.hits
    ]
    if args.json:
        print_json(
            {
                "query_class": result.query_class,
                "routing": result.routing,
                "items": rows
                if args.explain
                else [{k: v for k, v in r.items() if k != "explanation"} for r in rows],
            }
        )
        return
    columns = [("score", "SCORE"), ("id", "ID"), ("memory_type", "TYPE"), ("content", "CONTENT")]
    if args.explain:
        for row in rows:
            e = row["explanation"]
            row["why"] = (
                f"vec {e['vector'] or 0:.2f} kw {e['keyword'] or 0:.2f} "
                f"near {e['neighbour']:.2f} imp {e['importance']:.2f} "
                f"rec {e['recency']:.2f}"
            )
        columns.append(("why", "WHY"))
    print(f"query class: {result.query_class}")
    print_table(rows, columns, widths={"content": 70}, empty="No memories match.")


def index_all(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    if args.batch_size < 1:
        raise InvalidInput("batch-size", "must be at least 1")
    started = time.monotonic()
    with progress_bar(
        total=None, unit="memories", description="re-embedding", json_output=args.json
    ) as bar:

        def progress(step: ReindexProgress) -> None:
            set_total(bar, step.total)
            bar.update(step.done - bar.n)

        result = reindex_agent(
            agent=agent, force=not args.only_stale, batch_size=args.batch_size, progress=progress
        )
    seconds = time.monotonic() - started
    if args.json:
        print_json({"agent_id": agent.agent_id, "reindexed": result.done, "seconds": seconds})
        return
    rate = result.done / seconds if seconds else 0
    print(
        f"Re-embedded {result.done} memories of {agent.agent_id} in {seconds:.1f}s "
        f"({rate:.0f}/s) with {agent.embedding_model}."
    )


def dedup(args: argparse.Namespace) -> None:
    """Merging cannot be undone: without --yes it is a dry run that shows what would merge
    and, when anything would, asks for --yes (exit 2, like every destructive command)."""
    access = cli_access()
    agent = access.agent(args.agent)
    with progress_bar(
        total=None, unit="groups", description="merging", json_output=args.json
    ) as bar:
        report = deduplicate_memories(
            agent=agent,
            actor=access.actor,
            memory_type=args.memory_type,
            dry_run=args.dry_run or not args.yes,
            progress=following(bar),
        )
    if report.groups and not (args.yes or args.dry_run):
        if not args.json:
            _print_dedup(report)
        raise ConfirmationRequired(
            f"refusing to merge {report.merged} duplicates into {len(report.groups)} memories "
            f"of agent {agent.agent_id!r} without --yes; run it again with --yes to merge "
            "(this cannot be undone)",
            details=report.as_dict(),
        )
    if args.json:
        print_json(report.as_dict())
        return
    _print_dedup(report)


def _print_dedup(report: DedupReport) -> None:
    verb = "Would merge" if report.dry_run else "Merged"
    print(
        f"{verb} {report.merged} duplicates into {len(report.groups)} memories of "
        f"{report.agent_id} ({report.candidates} compared)."
    )
    for group in report.groups:
        print(f"  keep {group.kept} <- {', '.join(map(str, group.merged))}")


def decay(args: argparse.Namespace) -> None:
    """One decay pass over one agent, recorded like every run (the Maintenance page shows
    it, marked as a CLI run)."""
    agent = cli_access().agent(args.agent)
    with progress_bar(
        total=None, unit="memories", description="decaying", json_output=args.json
    ) as bar:
        _, result = run_maintenance(
            job="decay", agent=agent, trigger="cli", dry_run=args.dry_run, progress=following(bar)
        )
    assert isinstance(result, DecayResult)
    changed, memories = result.counts.get("changed", 0), result.counts.get("memories", 0)
    if args.json:
        print_json(
            {
                "agent_id": agent.agent_id,
                "dry_run": args.dry_run,
                "memories": memories,
                "changed": changed,
                "before": result.before,
                "after": result.after,
            }
        )
        return
    verb = "Dry run, nothing written: would change" if args.dry_run else "Changed"
    print(f"{verb} the importance of {changed} of {memories} memories of {agent.agent_id}.")
    rows = [
        {"band": f"{i / 10:.1f}-{(i + 1) / 10:.1f}", "before": before, "after": after}
        for i, (before, after) in enumerate(zip(result.before, result.after, strict=True))
    ]
    print_table(rows, [("band", "IMPORTANCE"), ("before", "BEFORE"), ("after", "AFTER")])


def export(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    out = args.output.open("w", encoding="utf-8") if args.output else sys.stdout
    count = 0
    # The bar counts memories (the records that take the time), on stderr: stdout may be
    # the export itself.
    bar = progress_bar(
        total=Memory.objects.filter(agent=agent).count() if shown(json_output=False) else None,
        unit="memories",
        description="exporting",
        json_output=False,
    )
    try:
        for record in export_records(agent):
            out.write(json.dumps(record, cls=DjangoJSONEncoder, ensure_ascii=False) + "\n")
            if record["kind"] == "memory":
                count += 1
                bar.update(1)
    finally:
        bar.close()
        if args.output:
            out.close()
    if args.output:
        print(f"Exported {count} memories of {agent.agent_id} to {args.output}.")


def _read_lines(path: Path) -> tuple[str | None, list[tuple[int, dict[str, Any]]]]:
    if not path.exists():
        raise InvalidInput("file", f"{path} does not exist")
    records, agent_id = [], None
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {number}", f"is not JSON: {exc.msg}") from None
            if isinstance(record, dict) and record.get("kind") == "dewee-export":
                agent_id = record.get("agent_id")
            records.append((number, record))
    return agent_id, records


def import_file(args: argparse.Namespace) -> None:
    agent_id, records = _read_lines(args.file)
    agent_id = args.agent or agent_id
    if not agent_id:
        raise InvalidInput("agent", "the file names no agent; pass --agent")
    # A new agent is created with what it imports, so a refused file leaves no agent behind.
    with transaction.atomic():
        agent = cli_agent_to_write(agent_id, workspace=args.workspace)
        result = import_records(
            agent,
            with_progress(
                records,
                total=len(records),
                unit="records",
                description="importing",
                json_output=args.json,
            ),
        )
    data = {
        "agent_id": agent.agent_id,
        "sessions": result.sessions,
        "memories": result.memories,
        "skipped_expired": result.skipped_expired,
        "warnings": [w.as_dict() for w in result.warnings],
    }
    for warning in result.warnings:
        print(f"dewee: warning: {warning.message}", file=sys.stderr)
    if args.json:
        print_json(data)
        return
    print(
        f"Imported {result.memories} memories and {result.sessions} sessions into "
        f"{agent.agent_id}"
        + (f" ({result.skipped_expired} expired skipped)." if result.skipped_expired else ".")
    )
