"""Runs a parsed command and turns its outcome into output and an exit code."""

import argparse
import getpass
import os
import sys

from dewee.cli.output import print_json
from dewee.errors import ConfirmationRequired, DeweeError
from tenancy.access import Access

EXIT_OK, EXIT_DOMAIN_ERROR, EXIT_USAGE = 0, 1, 2


def operator_name() -> str:
    """Who is at the terminal: DEWEE_OPERATOR, else the login name."""
    return os.environ.get("DEWEE_OPERATOR") or getpass.getuser()


def cli_access() -> Access:
    """The CLI runs on the server with the database's own rights: every workspace."""
    return Access(actor=f"cli:{operator_name()}")


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
