"""``dewee privacy compact``: remove what erased data left behind in the database's files."""

import argparse
from typing import Any

from dewee.cli.output import add_json_flag, print_json
from privacy.compaction import compact_storage


def register(commands: Any) -> None:
    privacy = commands.add_parser("privacy", help="Erasure on disk (docs/PRIVACY.md).")
    actions = privacy.add_subparsers(dest="privacy_command", required=True, metavar="ACTION")
    p = actions.add_parser(
        "compact",
        help="Compact the storage so that erased data leaves the database's files.",
        description=(
            "Merge SQLite's full-text index and truncate its WAL, or VACUUM and rebuild the "
            "indexes of every table on PostgreSQL, then CHECKPOINT. --full rewrites every "
            "table (PostgreSQL VACUUM FULL: each table is locked while it is rewritten; "
            "SQLite VACUUM: the whole database is locked)."
        ),
    )
    p.add_argument("--full", action="store_true", help="Rewrite every table (locks; see above).")
    p.add_argument(
        "--analyze",
        action="store_true",
        help="PostgreSQL: ANALYZE every table first, so the planner's samples are of live rows.",
    )
    add_json_flag(p)
    p.set_defaults(handler=compact)


def compact(args: argparse.Namespace) -> None:
    def show(step: dict[str, Any]) -> None:
        print(f"{step['table']:<40} {step['step']:<24} {step['seconds']:>8.3f} s", flush=True)

    report = compact_storage(
        full=args.full, analyze=args.analyze, trigger="cli", progress=None if args.json else show
    )
    if args.json:
        print_json(report)
        return
    wal = "; ".join(f"{name}: {outcome}" for name, outcome in report["wal"].items())
    print(f"compacted in {report['seconds']:.3f} s; {wal}")
