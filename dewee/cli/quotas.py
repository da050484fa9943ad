"""``dewee quota show|set``: the usage of a workspace and its agents against their quotas."""

import argparse
from dataclasses import replace
from typing import Any

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from dewee.errors import InvalidInput
from memory.quotas import QuotaReport, quota_overview, quota_report, set_quotas
from tenancy.models import DEFAULT_WORKSPACE_SLUG, Agent, QuotaKind, QuotaMode, Workspace
from tenancy.quotas import QuotaLimit
from tenancy.services import get_workspace

OFF = "off"


def register(commands: Any) -> None:
    quota = commands.add_parser("quota", help="Usage and quotas of workspaces and agents.")
    sub = quota.add_subparsers(dest="quota_command", required=True, metavar="ACTION")
    p = sub.add_parser(
        "show", help="A workspace's usage and quotas and its agents' (or one agent's)."
    )
    _scope_arguments(p)
    add_json_flag(p)
    p.set_defaults(handler=quota_show)
    p = sub.add_parser(
        "set",
        help="Set or remove quotas; kinds not given keep theirs.",
        description="Each quota is LIMIT (hard), LIMIT:MODE (MODE: hard, soft or none) "
        "or 'off' to remove it. Hard refuses a write that would go over; soft writes it and "
        "warns; none only shows the usage against the limit.",
    )
    _scope_arguments(p)
    for kind in QuotaKind.values:
        p.add_argument(f"--{kind.replace('_', '-')}", dest=kind, metavar="LIMIT[:MODE]|off")
    p.add_argument(
        "--below-usage",
        action="store_true",
        help="Set a hard limit below what is already held (every new write is then refused).",
    )
    add_json_flag(p)
    p.set_defaults(handler=quota_set)


def _scope_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", default=DEFAULT_WORKSPACE_SLUG)
    parser.add_argument("--agent", metavar="AGENT_ID", help="This agent rather than the workspace.")


def _scope(args: argparse.Namespace) -> tuple[Workspace, Agent | None]:
    access = replace(cli_access(), workspace=get_workspace(args.workspace))
    agent = access.agent(args.agent) if args.agent else None
    assert access.workspace is not None
    return access.workspace, agent


def parse_limit(kind: str, text: str) -> QuotaLimit | None:
    if text.strip().lower() == OFF:
        return None
    number, _, mode = text.partition(":")
    try:
        limit = int(number.replace("_", ""))
    except ValueError:
        raise InvalidInput(kind, f"must be LIMIT, LIMIT:MODE or {OFF}; got {text!r}") from None
    return QuotaLimit(limit=limit, mode=mode or QuotaMode.HARD)


def _rows(report: QuotaReport) -> list[dict[str, Any]]:
    who = report.agent_id if report.agent_id is not None else f"workspace {report.workspace}"
    return [
        {
            "scope": who,
            "quota": q.kind,
            "usage": q.usage,
            "limit": q.limit,
            "mode": q.mode,
            "state": "OVER" if q.flagged else ("over (not enforced)" if q.over else ""),
        }
        for q in report.quotas
    ]


def _print(reports: list[QuotaReport]) -> None:
    print_table(
        [row for report in reports for row in _rows(report)],
        [
            ("scope", "SCOPE"),
            ("quota", "QUOTA"),
            ("usage", "USAGE"),
            ("limit", "LIMIT"),
            ("mode", "MODE"),
            ("state", "STATE"),
        ],
        widths={"scope": 40},
    )


def quota_show(args: argparse.Namespace) -> None:
    workspace, agent = _scope(args)
    if agent is not None:
        report = quota_report(workspace=workspace, agent=agent)
        reports = [report]
        data: Any = report.as_dict()
    else:
        total, agents = quota_overview(workspace)
        reports = [total, *agents]
        data = {"workspace": total.as_dict(), "agents": [a.as_dict() for a in agents]}
    if args.json:
        print_json(data)
    else:
        _print(reports)


def quota_set(args: argparse.Namespace) -> None:
    given = {kind: getattr(args, kind) for kind in QuotaKind.values}
    limits = {kind: parse_limit(kind, text) for kind, text in given.items() if text is not None}
    if not limits:
        options = ", ".join(f"--{kind.replace('_', '-')}" for kind in QuotaKind.values)
        raise InvalidInput("quota", f"give at least one of {options}")
    workspace, agent = _scope(args)
    set_quotas(
        workspace=workspace,
        agent=agent,
        limits=limits,
        actor=cli_access().actor,
        confirm_below_usage=args.below_usage,
    )
    report = quota_report(workspace=workspace, agent=agent)
    if args.json:
        print_json(report.as_dict())
    else:
        _print([report])
