"""``dewee workspaces|agents|keys|members ...``: who owns what, and how agents and people
get in."""

import argparse
import sys
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils import timezone

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from dewee.errors import ConfirmationRequired, InvalidInput
from dewee.timeparse import parse_expiry
from tenancy.invites import invite_hours
from tenancy.models import DEFAULT_WORKSPACE_SLUG, ApiKey, Workspace
from tenancy.queries import agent_to_dict, api_key_to_dict, get_api_key, list_api_keys
from tenancy.services import (
    DEFAULT_KEY_SCOPES,
    create_agent,
    create_api_key,
    create_workspace,
    get_workspace,
    invite_member,
    revoke_api_key,
    update_api_key,
)


def register(commands: Any) -> None:
    _register_workspaces(commands)
    _register_agents(commands)
    _register_keys(commands)
    _register_members(commands)


def _register_workspaces(commands: Any) -> None:
    workspaces = commands.add_parser("workspaces", help="Workspaces (tenants).")
    sub = workspaces.add_subparsers(dest="workspaces_command", required=True, metavar="ACTION")
    p = sub.add_parser("create", help="Create a workspace.")
    p.add_argument("slug", metavar="WORKSPACE")
    p.add_argument("--name", default="")
    add_json_flag(p)
    p.set_defaults(handler=workspaces_create)
    p = sub.add_parser("list", help="List workspaces.")
    add_json_flag(p)
    p.set_defaults(handler=workspaces_list)


def _register_agents(commands: Any) -> None:
    agents = commands.add_parser("agents", help="Agents and their memory namespaces.")
    sub = agents.add_subparsers(dest="agents_command", required=True, metavar="ACTION")
    p = sub.add_parser("create", help="Create an agent.")
    p.add_argument("agent_id", metavar="AGENT_ID")
    p.add_argument("--workspace", default=DEFAULT_WORKSPACE_SLUG)
    p.add_argument("--name", default="")
    add_json_flag(p)
    p.set_defaults(handler=agents_create)
    p = sub.add_parser("list", help="List agents.")
    p.add_argument("--workspace")
    add_json_flag(p)
    p.set_defaults(handler=agents_list)


def _register_keys(commands: Any) -> None:
    keys = commands.add_parser("keys", help="API keys of a workspace.")
    sub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    p = sub.add_parser("create", help="Create a key; its secret is shown once.")
    p.add_argument("--workspace", required=True)
    p.add_argument("--name", required=True)
    _add_key_limits(p)
    add_json_flag(p)
    p.set_defaults(handler=keys_create)
    p = sub.add_parser("list", help="List keys (never their secrets).")
    p.add_argument("--workspace")
    add_json_flag(p)
    p.set_defaults(handler=keys_list)
    p = sub.add_parser("update", help="Change a key's scopes, agents or expiry.")
    p.add_argument("key_id", type=int, metavar="KEY_ID")
    _add_key_limits(p)
    p.add_argument("--all-agents", action="store_true", help="Lift the key's agent limit.")
    p.add_argument("--never-expires", action="store_true", help="Remove the key's expiry.")
    add_json_flag(p)
    p.set_defaults(handler=keys_update)
    p = sub.add_parser("revoke", help="Revoke a key at once.")
    p.add_argument("key_id", type=int, metavar="KEY_ID")
    p.add_argument(
        "--yes",
        action="store_true",
        help="Revoke without asking (required without a terminal from the next release).",
    )
    add_json_flag(p)
    p.set_defaults(handler=keys_revoke)


def _register_members(commands: Any) -> None:
    members = commands.add_parser("members", help="People in a workspace.")
    sub = members.add_subparsers(dest="members_command", required=True, metavar="ACTION")
    p = sub.add_parser(
        "invite",
        help="Add a person: an existing account as it is; a new username gets an account and "
        "a one-time sign-in link (shown once; no email is sent).",
    )
    p.add_argument("username", metavar="USERNAME")
    p.add_argument("--workspace", required=True)
    p.add_argument("--role", default="viewer", help="manager or viewer (default: viewer).")
    p.add_argument("--email", default="", help="The new account's email (optional).")
    p.add_argument(
        "--base-url",
        default="",
        help="This server's address as people reach it, e.g. https://dewee.example.com, "
        "to print the whole link (default: its path only).",
    )
    add_json_flag(p)
    p.set_defaults(handler=members_invite)


def _add_key_limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        "--scopes",
        dest="scopes",
        action="append",
        metavar="SCOPES",
        help="read, write and/or admin (repeat, or separate with commas). A new key: read,write.",
    )
    parser.add_argument(
        "--agent",
        dest="agents",
        action="append",
        metavar="AGENT_ID",
        help="Limit the key to this agent (repeatable; it need not exist yet). "
        "A new key: every agent of its workspace.",
    )
    parser.add_argument(
        "--expires",
        metavar="WHEN",
        help="When the key stops working: a duration (90d, 12h, 2w) or a date "
        "(2027-01-31). A new key: never.",
    )


def _scopes(args: argparse.Namespace) -> list[str] | None:
    if args.scopes is None:
        return None
    return [part.strip() for value in args.scopes for part in value.split(",") if part.strip()]


def _expiry(args: argparse.Namespace) -> datetime | None:
    if args.expires is None:
        return None
    return parse_expiry(args.expires, field="expires", now=timezone.now())


def _workspace_dict(workspace: Workspace) -> dict[str, Any]:
    return {"slug": workspace.slug, "name": workspace.name, "created_at": workspace.created_at}


def workspaces_create(args: argparse.Namespace) -> None:
    workspace = create_workspace(slug=args.slug, name=args.name)
    if args.json:
        print_json(_workspace_dict(workspace))
    else:
        print(f"Created workspace {workspace.slug}.")


def workspaces_list(args: argparse.Namespace) -> None:
    rows = [_workspace_dict(w) for w in Workspace.objects.all()]
    if args.json:
        print_json(rows)
    else:
        print_table(rows, [("slug", "WORKSPACE"), ("name", "NAME"), ("created_at", "CREATED")])


def agents_create(args: argparse.Namespace) -> None:
    agent = create_agent(
        workspace=get_workspace(args.workspace), agent_id=args.agent_id, name=args.name
    )
    if args.json:
        print_json(agent_to_dict(agent))
    else:
        print(f"Created agent {agent.agent_id} in workspace {agent.workspace.slug}.")


def agents_list(args: argparse.Namespace) -> None:
    agents = cli_access().agents()
    if args.workspace:
        agents = agents.in_workspace(get_workspace(args.workspace))
    rows = [agent_to_dict(a) for a in agents]
    if args.json:
        print_json(rows)
    else:
        print_table(
            rows,
            [("agent_id", "AGENT"), ("workspace", "WORKSPACE"), ("created_at", "CREATED")],
            empty="No agents yet.",
        )


def keys_create(args: argparse.Namespace) -> None:
    scopes = _scopes(args)
    key, secret = create_api_key(
        workspace=get_workspace(args.workspace),
        name=args.name,
        actor=cli_access().actor,
        scopes=DEFAULT_KEY_SCOPES if scopes is None else scopes,
        agent_ids=args.agents,
        expires_at=_expiry(args),
    )
    if args.json:
        print_json({**api_key_to_dict(key), "key": secret})
        return
    print(f"Created API key #{key.pk} {key.name!r} for workspace {key.workspace.slug}.")
    print(f"Scopes: {', '.join(key.scope_names())}; {_agents_text(key)}; {_expiry_text(key)}.")
    print(f"\n    {secret}\n")
    print("Store it now: it is not kept and cannot be shown again.")


def _agents_text(key: ApiKey) -> str:
    return f"agents: {', '.join(key.agent_ids)}" if key.agent_ids else "every agent"


def _expiry_text(key: ApiKey) -> str:
    return f"expires {key.expires_at:%Y-%m-%d %H:%M} UTC" if key.expires_at else "never expires"


def keys_list(args: argparse.Namespace) -> None:
    workspace = get_workspace(args.workspace) if args.workspace else None
    rows = [api_key_to_dict(k) for k in list_api_keys(workspace=workspace)]
    if args.json:
        print_json(rows)
        return
    for row in rows:
        row["scopes"] = ",".join(row["scopes"])
        row["agents"] = ",".join(row["agents"]) or "all"
    print_table(
        rows,
        [
            ("id", "ID"),
            ("workspace", "WORKSPACE"),
            ("name", "NAME"),
            ("prefix", "PREFIX"),
            ("scopes", "SCOPES"),
            ("agents", "AGENTS"),
            ("expires_at", "EXPIRES"),
            ("last_used_at", "LAST USED"),
            ("state", "STATE"),
        ],
        widths={"name": 30, "agents": 40},
        empty="No API keys.",
    )


def keys_update(args: argparse.Namespace) -> None:
    if args.agents and args.all_agents:
        raise InvalidInput("agents", "give --agent or --all-agents, not both")
    if args.expires and args.never_expires:
        raise InvalidInput("expires", "give --expires or --never-expires, not both")
    changes: dict[str, Any] = {}
    if (scopes := _scopes(args)) is not None:
        changes["scopes"] = scopes
    if args.agents or args.all_agents:
        changes["agent_ids"] = args.agents or []
    if args.expires or args.never_expires:
        changes["expires_at"] = _expiry(args)
    if not changes:
        raise InvalidInput("key", "nothing to change: give --scope, --agent, --expires, ...")
    key = update_api_key(key_id=args.key_id, actor=cli_access().actor, **changes)
    if args.json:
        print_json(api_key_to_dict(key))
    else:
        print(
            f"API key #{key.pk} {key.name!r}: {', '.join(key.scope_names())}; "
            f"{_agents_text(key)}; {_expiry_text(key)}."
        )


def _revoke_confirmed(key_id: int) -> bool:
    """Whoever is at a terminal confirms by typing the key's id or "yes". A script without
    --yes is not refused yet: it revokes with a deprecation warning, so that scripts written
    before --yes existed get one release to add it."""
    key = get_api_key(key_id=key_id, workspace=None)
    if not sys.stdin.isatty():
        print(
            "dewee: warning: 'dewee keys revoke' without --yes is deprecated; "
            "--yes will be required in the next release",
            file=sys.stderr,
        )
        return True
    answer = input(f"Type {key.pk} or 'yes' to revoke API key #{key.pk} {key.name!r}: ")
    return answer.strip() in {str(key.pk), "yes"}


def keys_revoke(args: argparse.Namespace) -> None:
    if not args.yes and not _revoke_confirmed(args.key_id):
        raise ConfirmationRequired(
            f"refusing to revoke API key #{args.key_id} without --yes (or typing its id or "
            "'yes' at the prompt)"
        )
    key = revoke_api_key(key_id=args.key_id, actor=cli_access().actor)
    if args.json:
        print_json(api_key_to_dict(key))
    else:
        print(f"Revoked API key #{key.pk} {key.name!r}.")


def members_invite(args: argparse.Namespace) -> None:
    invitation = invite_member(
        workspace=get_workspace(args.workspace),
        username=args.username,
        email=args.email,
        role=args.role,
        actor=cli_access().actor,
    )
    member = invitation.member
    link = None
    if invitation.link is not None:
        link = args.base_url.rstrip("/") + reverse("invite_accept", args=invitation.link)
    if args.json:
        print_json(
            {
                "username": member.user.get_username(),
                "workspace": member.workspace.slug,
                "role": member.role,
                "created": invitation.created,
                "sign_in_link": link,
                "link_valid_hours": invite_hours() if link else None,
            }
        )
        return
    made = "Created the account and added" if invitation.created else "Added"
    print(f"{made} {member.user.get_username()} to {member.workspace.slug} as {member.role}.")
    if link is not None:
        print(f"\n    {link}\n")
        print(
            f"Send them this sign-in link yourself: it works once, for {invite_hours()} hours, "
            "and is not kept."
        )
