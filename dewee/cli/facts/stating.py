"""``dewee memory facts assert|check|forget``: what the operator states about an agent's
users: a fact to hold, a user's own words to check against the facts held, a user or a
subject to forget for good."""

import argparse
from typing import Any

from django.db import transaction

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access, cli_agent_to_write, operator_name
from dewee.errors import ConfirmationRequired
from dewee.timeparse import parse_time
from facts import queries, services
from facts.models import Category, SourceKind, Verification
from tenancy.queries import receipt_to_dict


def register(sub: Any) -> None:
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
