"""Runs a parsed command and turns its outcome into output and an exit code."""

import argparse
import getpass
import os
import sys

from dewee.cli.output import print_json
from dewee.errors import ConfirmationRequired, DeweeError
from tenancy.access import Access
from tenancy.exceptions import AgentNotFound
from tenancy.models import Agent, Workspace
from tenancy.services import default_workspace, ensure_agent, get_workspace

EXIT_OK, EXIT_DOMAIN_ERROR, EXIT_USAGE = 0, 1, 2


def operator_name() -> str:
    """Who is at the terminal: DEWEE_OPERATOR, else the login name."""
    return os.environ.get("DEWEE_OPERATOR") or getpass.getuser()


def cli_access() -> Access:
    """The CLI runs on the server with the database's own rights: every workspace."""
    return Access(actor=f"cli:{operator_name()}")


def cli_agent_to_write(reference: str, *, workspace: str | None = None) -> Agent:
    """The agent a writing command (import, assert) puts things into, created if new; call
    it in the transaction of the write, so that a refused write leaves no agent behind.
    With ``workspace``, that workspace's agent ``reference``. Without, the agent
    ``reference`` names as every interface finds it (``workspace-slug/agent-id``, or an id
    only one workspace uses; an id several use is ``agent_ambiguous``); a new one goes into
    the workspace a qualified reference names, else the default workspace (which refuses
    an id with a '/' as any new id)."""
    if workspace is not None:
        return ensure_agent(workspace=get_workspace(workspace), agent_id=reference)
    try:
        return cli_access().agent(reference)
    except AgentNotFound:
        slug, slash, agent_id = reference.partition("/")
        if slash and Workspace.objects.filter(slug=slug).exists():
            return ensure_agent(workspace=get_workspace(slug), agent_id=agent_id)
        return ensure_agent(workspace=default_workspace(), agent_id=reference)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        args.handler(args)
    except ConfirmationRequired as exc:
        _report(args, exc)
        return EXIT_USAGE
    except DeweeError as exc:
        _report(args, exc)
        return EXIT_DOMAIN_ERROR
    return EXIT_OK


def _report(args: argparse.Namespace, exc: DeweeError) -> None:
    if getattr(args, "json", False):
        print_json(exc.as_dict())
    print(f"dewee: error: {exc.message}", file=sys.stderr)
