"""``dewee memory facts get|resolve|reopen|undo|delete|restore``: one fact of an agent,
seen whole (its sources, its slot's history, its status over time) and settled by the
operator."""

import argparse
from typing import Any

from dewee.cli.output import add_json_flag, print_fields, print_json, print_table
from dewee.cli.runner import cli_access
from dewee.errors import ConfirmationRequired
from facts import queries, services


def register(sub: Any) -> None:
    _fact_command(sub, "get", get_fact, "One fact with its sources and the history of its slot.")
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


DETAIL_FIELDS = [
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
]
SOURCE_COLUMNS = [
    ("kind", "KIND"),
    ("reference", "REFERENCE"),
    ("operator", "OPERATOR"),
    ("verification", "VERIFICATION"),
    ("excerpt", "EXCERPT"),
    ("recorded_at", "RECORDED"),
]
HISTORY_COLUMNS = [
    ("id", "ID"),
    ("value", "VALUE"),
    ("status", "STATUS"),
    ("verification", "VERIFICATION"),
    ("believed_from", "BELIEVED FROM"),
    ("believed_until", "UNTIL"),
    ("status_changed_by", "CHANGED BY"),
]
PERIOD_COLUMNS = [
    ("status", "STATUS"),
    ("change", "BY"),
    ("started_at", "FROM"),
    ("ended_at", "UNTIL"),
    ("actor", "ACTOR"),
]


def _print_detail(detail: dict[str, Any]) -> None:
    print_fields(detail, DETAIL_FIELDS)
    print("\nSources")
    print_table(detail["sources"], SOURCE_COLUMNS, widths={"excerpt": 50, "reference": 30})
    print("\nHistory of the slot")
    print_table(detail["history"], HISTORY_COLUMNS, widths={"value": 40})
    print("\nThis fact's status over time")
    print_table(
        [
            {**p, "started_at": p["started_at"] if p["started_known"] else "unknown"}
            for p in detail["periods"]
        ],
        PERIOD_COLUMNS,
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
