"""``dewee memory facts list|report|stats``: an agent's facts read many at a time: listed
(as they stand, or as they stood at a time), by freshness, counted per agent."""

import argparse
from typing import Any

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from dewee.timeparse import parse_time
from facts import queries
from facts.models import Status
from facts.staleness import freshness_report, freshness_stats

FACT_COLUMNS = [
    ("id", "ID"),
    ("user", "USER"),
    ("subject", "SUBJECT"),
    ("predicate", "PREDICATE"),
    ("qualifier", "QUALIFIER"),
    ("value", "VALUE"),
    ("status", "STATUS"),
    ("verification", "VERIFICATION"),
    ("confidence", "CONF"),
    ("freshness_label", "FRESHNESS"),
    ("freshness", "SCORE"),
    ("days_until_stale", "DAYS LEFT"),
    ("recorded_at", "RECORDED"),
]
WIDTHS = {"value": 40, "subject": 24, "predicate": 24, "qualifier": 16, "user": 20}


def register(sub: Any) -> None:
    p = sub.add_parser("list", help="List facts, newest first.")
    p.add_argument("--agent", required=True)
    p.add_argument("--user")
    p.add_argument("--subject")
    p.add_argument("--predicate")
    p.add_argument("--status", help=f"One or more of {','.join(Status.values)}.")
    p.add_argument("--as-of", help="ISO time: the facts recorded then, with their status then.")
    p.add_argument(
        "--valid-at",
        help="ISO time: only facts true then (in their valid window, never rejected or "
        "deleted; a replaced value only until it was replaced).",
    )
    p.add_argument("--search", help="Text to find in values.")
    p.add_argument("--limit", type=int, default=queries.DEFAULT_PAGE_SIZE)
    p.add_argument("--cursor", help="Continue a previous listing.")
    add_json_flag(p)
    p.set_defaults(handler=list_facts)

    p = sub.add_parser("report", help="Freshness of an agent's current facts.")
    p.add_argument("--agent", required=True)
    p.add_argument("--user", help="Only the facts about this user.")
    add_json_flag(p)
    p.set_defaults(handler=report)

    p = sub.add_parser("stats", help="Facts per agent, by status.")
    add_json_flag(p)
    p.set_defaults(handler=stats)


def list_facts(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    filters = queries.FactFilters(
        user=args.user,
        subject=args.subject,
        predicate=args.predicate,
        statuses=queries.parse_statuses(args.status),
        as_of=parse_time(args.as_of, field="as_of"),
        valid_at=parse_time(args.valid_at, field="valid_at"),
        search=args.search,
    )
    page = queries.list_facts(agent=agent, filters=filters, cursor=args.cursor, limit=args.limit)
    items = [queries.fact_to_dict(f) for f in page.items]
    if args.json:
        print_json({"items": items, "next_cursor": page.next_cursor})
        return
    print_table(items, FACT_COLUMNS, widths=WIDTHS, empty="No facts match.")
    if page.next_cursor:
        print(f"\nMore: --cursor {page.next_cursor}")


REPORT_COUNTS = ["active", "fresh", "aging", "stale", "expired", "contradicted"]


def report(args: argparse.Namespace) -> None:
    agent = cli_access().agent(args.agent)
    data = freshness_report(agent=agent, user=args.user).as_dict()
    if args.json:
        print_json(data)
        return
    counts = data["counts"]
    print("  ".join(f"{name}: {counts[name]}" for name in REPORT_COUNTS))
    average = data["average_freshness"]
    print(f"average freshness: {'-' if average is None else f'{average:.2f}'}\n")
    rows = [
        {**fact, "key": _key(fact), "days_left": _days_left(fact["days_until_stale"])}
        for fact in data["facts"]
    ]
    print_table(
        rows,
        [
            ("key", "KEY"),
            ("value", "VALUE"),
            ("freshness", "SCORE"),
            ("freshness_label", "LABEL"),
            ("days_left", "DAYS LEFT"),
        ],
        widths={"key": 48, "value": 40},
        empty="No current facts.",
    )


def _key(fact: dict[str, Any]) -> str:
    key = f"{fact['subject']}.{fact['predicate']}"
    if fact["qualifier"]:
        key += f"[{fact['qualifier']}]"
    return f"{fact['user']}:{key}" if fact["user"] else key


def _days_left(days: float | None) -> str:
    return "never" if days is None else f"{days:g}"


def stats(args: argparse.Namespace) -> None:
    rows = freshness_stats(cli_access())
    if args.json:
        print_json({"agents": rows})
        return
    print_table(
        rows,
        [
            ("workspace", "WORKSPACE"),
            ("agent_id", "AGENT"),
            ("total", "TOTAL"),
            *[(status, status.upper()) for status in Status.values],
            ("needs_reconfirmation", "STALE"),
        ],
        empty="No agents.",
    )
