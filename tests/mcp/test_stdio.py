"""``dewee mcp --stdio --agent A`` driven by the SDK's stdio client: the command an agent
host starts, as the README's configuration starts it."""

import os
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.event_loop import in_own_thread
from tests.factories import make_agent, make_key, make_workspace
from tests.servers import BASE_DIR, database_url

pytestmark = pytest.mark.django_db(transaction=True)


def host_config(key: str, agent: str) -> StdioServerParameters:
    # What a desktop host's "mcpServers" entry says: the command, its arguments, its env.
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dewee.cli", "mcp", "--stdio", "--agent", agent],
        env={
            **os.environ,
            "DATABASE_URL": database_url(),
            "DEWEE_API_KEY": key,
            # Django's async-safety check on, as in production (the suite turns it off).
            "DJANGO_ALLOW_ASYNC_UNSAFE": "",
        },
        cwd=BASE_DIR,
    )


def test_the_stdio_server_lists_the_tools_stores_and_recalls():
    workspace = make_workspace("acme")
    make_agent(workspace, "support-bot")
    key = make_key(workspace)

    async def scenario() -> tuple[set[str], dict, dict]:
        async with Client(host_config(key, "support-bot")) as mcp:
            names = {t.name for t in (await mcp.list_tools()).tools}
            stored = await mcp.call_tool(
                "remember", {"content": "Ana prefers window seats", "user": "ana"}
            )
            found = await mcp.call_tool("recall", {"query": "seat preference", "user": "ana"})
        return names, stored.structured_content, found.structured_content

    names, stored, found = in_own_thread(anyio.run, scenario)
    assert {"remember", "recall", "context", "facts_check", "session_start"} <= names
    assert stored["content"] == "Ana prefers window seats"
    assert [hit["id"] for hit in found["items"]] == [stored["id"]]


def test_a_read_key_over_stdio_lists_only_read_tools():
    workspace = make_workspace("acme")
    make_agent(workspace, "support-bot")
    key = make_key(workspace, scopes=("read",))

    async def scenario() -> set[str]:
        async with Client(host_config(key, "support-bot")) as mcp:
            return {t.name for t in (await mcp.list_tools()).tools}

    assert in_own_thread(anyio.run, scenario) == {"recall", "context", "facts_check", "facts_list"}


def test_without_a_valid_key_the_command_says_why_and_exits_1(tmp_path):
    import subprocess

    for key in ("", "dw_wrong"):
        done = subprocess.run(
            [sys.executable, "-m", "dewee.cli", "mcp", "--stdio", "--agent", "support-bot"],
            env={**os.environ, "DATABASE_URL": database_url(), "DEWEE_API_KEY": key},
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        assert done.returncode == 1
        assert done.stdout == ""  # stdout is the protocol's
        assert "API key" in done.stderr
