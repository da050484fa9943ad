"""``dewee memory facts ...``: the facts lifecycle from a terminal."""

import argparse
from typing import Any

from django.db import transaction

from dewee.cli.output import add_json_flag, print_fields, print_json, print_table
from dewee.cli.runner import cli_access, cli_agent_to_write, operator_name
from dewee.errors import ConfirmationRequired
from dewee.timeparse import parse_time
from facts import queries, services
from facts.models import Category, SourceKind, Status, Verification
from facts.staleness import freshness_report, freshness_stats
from tenancy.queries import receipt_to_dict

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


def register(memory_commands: Any) -> None:
    facts = memory_commands.add_parser("facts", help="Facts an agent holds about users.")
    sub = facts.add_subparsers(dest="facts_command", required=True, metavar="ACTION")
    _register_reads(sub)
    _register_settling(sub)
    _register_writes(sub)


def _register_reads(sub: Any) -> None:
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

    _fact_command(sub, "get", get_fact, "One fact with its sources and the history of its slot.")


def _fact_command(
    sub: Any, name: str, handler: Any, help_text: str, *, reason: bool = False, confirm: str = ""
) -> argparse.ArgumentParser:
    """A command about one fact of one agent: --agent, FACT_ID, maybe --reason and a --yes
    that confirms ``confirm``, and --json."""
    p = sub.add_parser(name, help=help_text)
    p.add_argument("--agent", required=True)
    p.add_argument("fact_id", type=int, metavar="FACT_ID")
    if reason:
        p.add_argument("--reason", default="")
    if confirm:
        p.add_argument("--yes", action="store_true", help=f"Confirm the {confirm}.")
    add_json_flag(p)
    p.set_defaults(handler=handler)
    return p


def _register_settling(sub: Any) -> None:
    p = _fact_command(sub, "resolve", resolve_fact, "Accept or reject a disputed fact.")
    p.add_argument("--action", required=True, choices=[r.value for r in services.Resolution])
    p.add_argument("--reason", default="")
    _fact_command(
        sub,
        "reopen",
        reopen_fact,
        "Take a rejected fact back: it waits in review again, or becomes current "
        "(empty slot, or a less trusted current value).",
        reason=True,
    )
    _fact_command(
        sub,
        "undo",
        undo_fact,
        "Undo your own accept or reject of a fact, within DEWEE_UNDO_SECONDS of it.",
    )
    _fact_command(
        sub,
        "delete",
        delete_fact,
        "Take a fact out of use (the record stays).",
        reason=True,
        confirm="deletion",
    )
    _fact_command(
        sub,
        "restore",
        restore_fact,
        "Bring a deleted fact back, placed by the trust rules as if stated now.",
        reason=True,
        confirm="restore",
    )


def _register_writes(sub: Any) -> None:
    p = sub.add_parser("assert", help="State a fact; the operator is recorded as its source.")
    p.add_argument(
        "--agent",
        required=True,
        help="workspace/agent where several workspaces use the id; a new agent is created "
        "in the workspace named so, else in the default workspace.",
    )
    p.add_argument("--user", default="")
    p.add_argument("--subject", required=True)
    p.add_argument("--predicate", required=True)
    p.add_argument("--value", required=True)
    p.add_argument("--qualifier", default="")
    p.add_argument("--verification", default=Verification.STATED, choices=Verification.values)
    p.add_argument("--confidence", type=float, default=1.0)
    p.add_argument("--category", choices=Category.values)
    p.add_argument("--valid-from")
    p.add_argument("--valid-to")
    p.add_argument("--note", default="", help="Why you know it (kept as the source excerpt).")
    p.add_argument(
        "--memory-id",
        type=int,
        help="A stored memory of the agent the fact comes from: erasing it erases the fact.",
    )
    add_json_flag(p)
    p.set_defaults(handler=assert_fact)

    p = sub.add_parser(
        "check", help="Check a user's text against the facts held: contradictions, suggestions."
    )
    p.add_argument("--agent", required=True)
    p.add_argument("--user", required=True, help="The user who wrote the text.")
    p.add_argument("text", metavar="TEXT", help="The user's own words.")
    p.add_argument("--apply", action="store_true", help="Carry out the suggested actions.")
    p.add_argument("--now", help="ISO time: check as of then (to replay a timeline).")
    add_json_flag(p)
    p.set_defaults(handler=check_text)

    p = sub.add_parser(
        "forget",
        help="Erase every fact about a user or a subject (or one subject of one user), for good.",
    )
    p.add_argument("--agent", required=True)
    p.add_argument("--user", help="Every fact about this user (with --subject: that one only).")
    p.add_argument("--subject", help="Every fact about this subject, whoever it concerns.")
    p.add_argument("--yes", action="store_true", help="Confirm the erasure.")
    add_json_flag(p)
    p.set_defaults(handler=forget_facts)


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


def _print_detail(detail: dict[str, Any]) -> None:
    print_fields(
        detail,
        [
            ("id", "Fact"),
            ("agent_id", "Agent"),
            ("user", "User"),
            ("subject", "Subject"),
            ("predicate", "Predicate"),
            ("qualifier", "Qualifier"),
            ("value", "Value"),
            ("status", "Status"),
            ("verification", "Verification"),
            ("confidence", "Confidence"),
            ("category", "Category"),
            ("freshness_label", "Freshness"),
            ("freshness", "Score"),
            ("days_until_stale", "Days until stale"),
            ("valid_from", "Valid from"),
            ("valid_to", "Valid to"),
            ("recorded_at", "Recorded"),
            ("believed_from", "Believed from"),
            ("believed_until", "Believed until"),
            ("status_changed_by", "Changed by"),
            ("status_reason", "Reason"),
        ],
    )
    print("\nSources")
    print_table(
        detail["sources"],
        [
            ("kind", "KIND"),
            ("reference", "REFERENCE"),
            ("operator", "OPERATOR"),
            ("verification", "VERIFICATION"),
            ("excerpt", "EXCERPT"),
            ("recorded_at", "RECORDED"),
        ],
        widths={"excerpt": 50, "reference": 30},
    )
    print("\nHistory of the slot")
    print_table(
        detail["history"],
        [
            ("id", "ID"),
            ("value", "VALUE"),
            ("status", "STATUS"),
            ("verification", "VERIFICATION"),
            ("believed_from", "BELIEVED FROM"),
            ("believed_until", "UNTIL"),
            ("status_changed_by", "CHANGED BY"),
        ],
        widths={"value": 40},
    )
    print("\nThis fact's status over time")
    print_table(
        [
            {**p, "started_at": p["started_at"] if p["started_known"] else "unknown"}
            for p in detail["periods"]
        ],
        [
            ("status", "STATUS"),
            ("change", "BY"),
            ("started_at", "FROM"),
            ("ended_at", "UNTIL"),
            ("actor", "ACTOR"),
        ],
    )


def get_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    detail = queries.fact_detail(fact)
    if args.json:
        print_json(detail)
    else:
        _print_detail(detail)


def resolve_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    fact = services.resolve_fact(
        fact=fact, action=args.action, reason=args.reason, actor=access.actor
    )
    detail = queries.fact_detail(fact)
    if args.json:
        print_json(detail)
    else:
        verb = "Accepted" if args.action == services.Resolution.ACCEPT else "Rejected"
        print(f"{verb} fact {fact.pk}: {fact.subject}.{fact.predicate} = {fact.value}")


def reopen_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    fact = services.reopen_fact(fact=fact, reason=args.reason, actor=access.actor)
    detail = queries.fact_detail(fact)
    if args.json:
        print_json(detail)
    else:
        slot = f"{fact.subject}.{fact.predicate}"
        print(f"Reopened fact {fact.pk}: {slot} = {fact.value} ({fact.status})")


def undo_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    fact = services.undo_resolution(fact=fact, actor=access.actor)
    if args.json:
        print_json(queries.fact_detail(fact))
    else:
        print(
            f"Undone: fact {fact.pk} ({fact.subject}.{fact.predicate} = {fact.value}) "
            "waits in review again."
        )


def delete_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    if not args.yes:
        raise ConfirmationRequired(
            f"refusing to delete fact {fact.pk} ({fact.subject}.{fact.predicate} = "
            f"{fact.value!r}) without --yes"
        )
    fact = services.delete_fact(fact=fact, reason=args.reason, actor=access.actor)
    if args.json:
        print_json(queries.fact_detail(fact))
    else:
        print(f"Deleted fact {fact.pk} (the record is kept, marked deleted).")


RESTORED_AS = {
    services.RestoreOutcome.CURRENT: "it is the current value again",
    services.RestoreOutcome.DISPUTED: "disputed: the current value is more trusted; review it",
    services.RestoreOutcome.HISTORY: "as history: the current value already says the same, "
    "or it no longer holds",
}


def restore_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    fact = queries.get_fact(access=access, fact_id=args.fact_id, agent=access.agent(args.agent))
    if not args.yes:
        raise ConfirmationRequired(
            f"refusing to restore fact {fact.pk} ({fact.subject}.{fact.predicate} = "
            f"{fact.value!r}) without --yes"
        )
    result = services.restore_fact(fact=fact, reason=args.reason, actor=access.actor)
    if args.json:
        print_json(
            {
                "outcome": result.outcome.value,
                "fact": queries.fact_detail(result.fact),
                "other": queries.fact_to_dict(result.other) if result.other else None,
            }
        )
    else:
        print(f"Restored fact {fact.pk}: {RESTORED_AS[result.outcome]}.")


def assert_fact(args: argparse.Namespace) -> None:
    access = cli_access()
    operator = operator_name()
    # A new agent is created with its first fact, so a refused fact leaves no agent behind.
    with transaction.atomic():
        agent = cli_agent_to_write(args.agent)
        claim = services.Claim(
            user=args.user,
            subject=args.subject,
            predicate=args.predicate,
            qualifier=args.qualifier,
            value=args.value,
            verification=args.verification,
            confidence=args.confidence,
            category=args.category,
            valid_from=parse_time(args.valid_from, field="valid_from"),
            valid_to=parse_time(args.valid_to, field="valid_to"),
        )
        source = services.SourceInput(
            kind=SourceKind.OPERATOR,
            operator=operator,
            excerpt=args.note,
            memory_id=args.memory_id,
        )
        result = services.assert_fact(agent=agent, claim=claim, source=source, actor=access.actor)
    fact = queries.fact_to_dict(result.fact)
    if args.json:
        other = queries.fact_to_dict(result.other) if result.other else None
        print_json({"outcome": result.outcome, "fact": fact, "other": other})
        return
    print(f"{result.outcome.capitalize()}: fact {fact['id']} ({fact['status']})")
    if result.other is not None:
        print(f"  other value: fact {result.other.pk} = {result.other.value!r}")


def forget_facts(args: argparse.Namespace) -> None:
    access = cli_access()
    agent = access.agent(args.agent)
    scope = services.forget_scope(user=args.user, subject=args.subject)
    counts = services.count_forgettable(agent=agent, scope=scope)
    what = scope.describe()
    if not args.yes:
        raise ConfirmationRequired(
            f"refusing to erase {counts['facts']} facts ({counts['sources']} sources) about "
            f"{what} of agent {agent.agent_id!r} without --yes; this cannot be undone",
            details={"counts": counts},
        )
    receipt = services.forget_facts(agent=agent, scope=scope, actor=access.actor)
    data = receipt_to_dict(receipt)
    if args.json:
        print_json(data)
        return
    print(f"Erased {counts['facts']} facts and {counts['sources']} sources about {what}.")
    print(f"Receipt: {data['id']}")


def _print_check(data: dict[str, Any]) -> None:
    print("Contradicted")
    for item in data["contradicted"]:
        slot = item["predicate"] + (f"[{item['qualifier']}]" if item["qualifier"] else "")
        new = "(ended)" if item["new_value"] is None else item["new_value"]
        starts = f", from {item['valid_from']}" if item["valid_from"] else ""
        print(
            f"  {slot}: {item['old_value']} -> {new}   "
            f"({item['level']}, fact {item['fact']['id']}{starts})"
        )
        print(f'    "{item["evidence"]}"')
    print("Confirmed")
    for item in data["confirmed"]:
        fact = item["fact"]
        print(f"  {fact['predicate']} = {fact['value']}   (fact {fact['id']})")
    print("New")
    for item in data["new"]:
        slot = item["predicate"] + (f"[{item['qualifier']}]" if item["qualifier"] else "")
        starts = f", from {item['valid_from']}" if item["valid_from"] else ""
        print(f"  {slot} = {item['value']}   ({item['verification']}{starts})")
    print("Suggested actions")
    print_table(
        data["suggested_actions"],
        [("action", "ACTION"), ("fact_id", "FACT"), ("predicate", "PREDICATE"), ("value", "VALUE")],
        widths={"value": 40},
        empty="  Nothing to do.",
    )
    if data["applied"]:
        print("Applied")
        for item in data["applied"]:
            fact = item["fact"]
            print(f"  {item['action']} -> {item['outcome']}: fact {fact['id']} ({fact['status']})")


def check_text(args: argparse.Namespace) -> None:
    access = cli_access()
    agent = access.agent(args.agent)
    # Text typed at the terminal is the operator's account of what the user said.
    source = services.SourceInput(kind=SourceKind.OPERATOR, operator=operator_name())
    result = services.check_text(
        agent=agent,
        user=args.user,
        text=args.text,
        apply=args.apply,
        source=source,
        actor=access.actor,
        now=parse_time(args.now, field="now"),
    )
    data = services.check_result_to_dict(result)
    if args.json:
        print_json(data)
    else:
        _print_check(data)
