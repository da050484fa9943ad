"""``dewee mcp --stdio --agent A``: Dewee's MCP server for a local agent host, acting as
the API key in DEWEE_API_KEY for agent A (dewee.mcp_server.stdio)."""

import argparse
from typing import Any

from dewee.errors import InvalidInput


def register(commands: Any) -> None:
    p = commands.add_parser(
        "mcp",
        help="Serve MCP over stdio for a local agent host.",
        description="Serve Dewee's MCP tools (remember, recall, context, facts...) on "
        "stdin/stdout, as the API key in DEWEE_API_KEY (its workspace, agents and scopes), "
        "for one agent. Over HTTP, the same server is at /mcp?agent=A on `dewee serve`.",
    )
    p.add_argument("--stdio", action="store_true", required=True, help="Speak MCP on stdin/stdout.")
    p.add_argument("--agent", required=True, help="The agent id the tools act for.")
    p.set_defaults(handler=mcp_stdio)


def mcp_stdio(args: argparse.Namespace) -> None:
    from dewee.mcp_server.stdio import api_key_from_environment, check_caller, serve_stdio

    if not args.agent.strip():
        raise InvalidInput("agent", "must not be empty")
    token = api_key_from_environment()
    check_caller(token, args.agent)
    serve_stdio(token=token, agent_id=args.agent)
