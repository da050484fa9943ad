"""``dewee workspaces|agents|keys ...``: who owns what, and how agents get in."""

import argparse
from typing import Any

from dewee.cli.output import add_json_flag, print_json, print_table
from dewee.cli.runner import cli_access
from tenancy.models import DEFAULT_WORKSPACE_SLUG, ApiKey, Workspace
from tenancy.queries import agent_to_dict
from tenancy.services import (
    create_agent,
    create_api_key,
    create_workspace,
    get_workspace,
    revoke_api_key,
)


def register(commands: Any) -> None:
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

    keys = commands.add_parser("keys", help="API keys of a workspace.")
    sub = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    p = sub.add_parser("create", help="Create a key; its secret is shown once.")
    p.add_argument("--workspace", required=True)
    p.add_argument("--name", required=True)
    add_json_flag(p)
    p.set_defaults(handler=keys_create)
    p = sub.add_parser("list", help="List keys (never their secrets).")
    p.add_argument("--workspace")
    add_json_flag(p)
    p.set_defaults(handler=keys_list)
    p = sub.add_parser("revoke", help="Revoke a key at once.")
    p.add_argument("key_id", type=int, metavar="KEY_ID")
    add_json_flag(p)
    p.set_defaults(handler=keys_revoke)


def _workspace_dict(workspace: Workspace) -> dict[str, Any]:
    return {"slug": workspace.slug, "name": workspace.name, "created_at": workspace.created_at}


def _key_dict(key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.pk,
        "workspace": key.workspace.slug,
        "name": key.name,
        "prefix": key.prefix,
        "created_at": key.created_at,
        "last_used_at": key.last_used_at,
        "revoked_at": key.revoked_at,
    }


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
    key, secret = create_api_key(
        workspace=get_workspace(args.workspace), name=args.name, actor=cli_access().actor
    )
    if args.json:
        print_json({**_key_dict(key), "key": secret})
        return
    print(f"Created API key #{key.pk} {key.name!r} for workspace {key.workspace.slug}.")
    print(f"\n    {secret}\n")
    print("Store it now: it is not kept and cannot be shown again.")


def keys_list(args: argparse.Namespace) -> None:
    keys = ApiKey.objects.select_related("workspace")
    if args.workspace:
        keys = keys.filter(workspace=get_workspace(args.workspace))
    rows = [_key_dict(k) for k in keys]
    if args.json:
        print_json(rows)
    else:
        print_table(
            rows,
            [
                ("id", "ID"),
                ("workspace", "WORKSPACE"),
                ("name", "NAME"),
                ("prefix", "PREFIX"),
                ("last_used_at", "LAST USED"),
                ("revoked_at", "REVOKED"),
            ],
            empty="No API keys.",
        )


def keys_revoke(args: argparse.Namespace) -> None:
    key = revoke_api_key(key_id=args.key_id, actor=cli_access().actor)
    if args.json:
        print_json(_key_dict(key))
    else:
        print(f"Revoked API key #{key.pk} {key.name!r}.")
