"""``dewee people forget|export|receipts USER --workspace W``: one person, across the
workspace's agents."""

import argparse
import sys
from pathlib import Path

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from dewee.errors import ConfirmationRequired
from knowledge.people import PersonData, find_person
from knowledge.people_export import export_person
from knowledge.services import erase_person
from tenancy.queries import receipt_to_dict, receipts_for_user
from tenancy.services import get_workspace


def register(commands: argparse._SubParsersAction) -> None:
    people = commands.add_parser("people", help="Erase or export everything about one person.")
    what = people.add_subparsers(dest="people_command", required=True, metavar="WHAT")

    p = what.add_parser(
        "forget",
        help="Erase for good everything the workspace holds about USER, in every agent.",
    )
    p.add_argument("user", metavar="USER")
    p.add_argument("--workspace", required=True)
    p.add_argument("--yes", action="store_true", help="Erase without asking.")
    add_json_flag(p)
    p.set_defaults(handler=forget)

    p = what.add_parser("export", help="Everything the workspace holds about USER, as JSON.")
    p.add_argument("user", metavar="USER")
    p.add_argument("--workspace", required=True)
    p.add_argument("--output", "-o", type=Path, help="File to write (default: stdout).")
    p.set_defaults(handler=export)

    p = what.add_parser(
        "receipts", help="The erasure receipts of USER (found by the keyed hash of the id)."
    )
    p.add_argument("user", metavar="USER")
    p.add_argument("--workspace", required=True)
    add_json_flag(p)
    p.set_defaults(handler=receipts)


def _print_counts(data: PersonData) -> None:
    """Each kind's total, then its count in each agent that holds anything ("-" for the
    audit events, which are the workspace's)."""
    by_agent = data.by_agent()
    rows = [
        {
            "kind": kind,
            "total": n,
            **{agent: counts.get(kind) for agent, counts in by_agent.items()},
        }
        for kind, n in data.totals().items()
    ]
    columns = [("kind", "KIND"), ("total", "TOTAL"), *((a, a.upper()) for a in by_agent)]
    print_table(rows, columns)


def _confirmed(user: str) -> bool:
    """Whoever is at a terminal confirms by typing the id again; a script must say --yes."""
    if not sys.stdin.isatty():
        return False
    return input(f"Type {user!r} to erase all of this for good: ").strip() == user


def forget(args: argparse.Namespace) -> None:
    access = cli_access()
    workspace = get_workspace(args.workspace)
    data = find_person(workspace=workspace, user=args.user)
    if not args.json:
        print(f"About {data.user!r} in workspace {workspace.slug}:")
        _print_counts(data)
    if not args.yes and not _confirmed(data.user):
        raise ConfirmationRequired(
            f"refusing to erase everything about {data.user!r} without --yes (or typing the "
            "user at the prompt); this cannot be undone",
            details={"counts": data.totals(), "by_agent": data.by_agent()},
        )
    erased = erase_person(workspace=workspace, user=data.user, actor=access.actor)
    result = {**receipt_to_dict(erased.receipt), "by_agent": erased.data.by_agent()}
    if args.json:
        print_json(result)
        return
    print(f"Erased. Receipt: {result['id']} (user HMAC {result['scope']['user_hmac']})")


def export(args: argparse.Namespace) -> None:
    workspace = get_workspace(args.workspace)
    pieces = export_person(workspace=workspace, user=args.user)
    if args.output is None:
        sys.stdout.writelines(pieces)
        return
    with args.output.open("w", encoding="utf-8") as out:
        out.writelines(pieces)
    print(f"Exported everything about {args.user.strip()!r} to {args.output}.", file=sys.stderr)


def receipts(args: argparse.Namespace) -> None:
    workspace = get_workspace(args.workspace)
    found = [receipt_to_dict(r) for r in receipts_for_user(workspace=workspace, user=args.user)]
    if args.json:
        print_json({"items": found})
        return
    columns = [("id", "RECEIPT"), ("agent_id", "AGENT"), ("created_at", "WHEN"), ("actor", "BY")]
    print_table(found, columns, empty="No receipt names this user in this workspace.")
