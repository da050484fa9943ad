"""``dewee mcp --stdio --agent A``: the MCP server over stdin/stdout, for an agent host that
starts it as a local process. It acts as the API key in DEWEE_API_KEY, for agent A: the
key's workspace, agents and scopes, exactly as over HTTP. The key is authenticated again
for each request, so revoking it stops the process's access at once. Rate limits count
HTTP requests and do not apply here (the host is local); quotas do, in the services.
stdout carries only the protocol; logs go to stderr."""

import os

import anyio
from django.db import close_old_connections
from mcp.server.stdio import stdio_server

from dewee.mcp_server.auth import Caller, Unauthenticated, caller_for, key_for_token
from dewee.mcp_server.server import build_server

API_KEY_VAR = "DEWEE_API_KEY"


def api_key_from_environment() -> str:
    token = os.environ.get(API_KEY_VAR, "").strip()
    if not token:
        raise Unauthenticated(
            f"Set {API_KEY_VAR} to the API key this server acts as (create one with "
            "`dewee keys create`)"
        )
    return token


def check_caller(token: str, agent_id: str) -> Caller:
    """Before serving: a wrong key or agent is said once on stderr, not at every call."""
    return caller_for(key_for_token(token), agent_id)


def serve_stdio(*, token: str, agent_id: str) -> None:
    def current_caller() -> Caller:
        # A long-lived process has no request cycle to retire a connection that broke
        # (the database restarted) or outlived CONN_MAX_AGE: done here, before each request.
        close_old_connections()
        return caller_for(key_for_token(token), agent_id)

    server = build_server(current_caller)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
