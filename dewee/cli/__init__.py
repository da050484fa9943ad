"""The ``dewee`` command: operate a Dewee server's database from a terminal or a script.

Exit codes: 0 success, 1 a domain error (one line on stderr), 2 a usage error.
"""

import argparse
import os
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from dewee.cli import (
        facts,
        graph,
        graph_read,
        maintenance,
        mcp,
        memory,
        people,
        privacy,
        quotas,
        tenancy,
    )

    parser = argparse.ArgumentParser(
        prog="dewee",
        description="Operate Dewee: memory, facts, people, agents, workspaces, API keys.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    memory_parser = commands.add_parser("memory", help="Memories and facts of an agent.")
    memory_commands = memory_parser.add_subparsers(
        dest="memory_command", required=True, metavar="WHAT"
    )
    facts.register(memory_commands)
    memory.register(memory_commands)
    graph.register(memory_commands)
    graph_read.register(memory_commands)
    maintenance.register(memory_commands)
    tenancy.register(commands)
    people.register(commands)
    privacy.register(commands)
    quotas.register(commands)
    mcp.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    import django

    django.setup()

    from dewee.cli.runner import run

    parser = build_parser()
    args = parser.parse_args(argv)
    return run(parser, args)


if __name__ == "__main__":
    sys.exit(main())
