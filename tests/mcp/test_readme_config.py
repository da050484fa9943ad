"""An agent host configured from the README's own "mcpServers" snippets (stdio and HTTP),
with only its placeholders filled in, lists the tools, stores a memory and recalls it."""

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.event_loop import in_own_thread
from tests.factories import make_agent, make_key, make_workspace
from tests.mcp.test_http import server  # noqa: F401  (the live server fixture)
from tests.servers import BASE_DIR, Server, database_url

pytestmark = pytest.mark.django_db(transaction=True)

README = Path(BASE_DIR) / "README.md"


def readme_hosts() -> dict[str, dict[str, Any]]:
    """The "dewee" entry of each mcpServers block of the README's MCP section, by transport."""
    section = README.read_text(encoding="utf-8").split("### MCP", 1)[1].split("\n## ", 1)[0]
    hosts = {}
    for block in re.findall(r"```json\n(.*?)```", section, re.S):
        entry = json.loads(block)["mcpServers"]["dewee"]
        hosts["http" if entry.get("type") == "http" else "stdio"] = entry
    assert set(hosts) == {"http", "stdio"}, "the README shows a host entry for each transport"
    return hosts


async def store_and_recall(mcp: Client) -> tuple[set[str], dict, dict]:
    names = {t.name for t in (await mcp.list_tools()).tools}
    stored = await mcp.call_tool(
        "remember", {"content": "Kofi's invoices go to the Accra office", "user": "kofi"}
    )
    found = await mcp.call_tool("recall", {"query": "where do invoices go", "user": "kofi"})
    return names, dict(stored.structured_content or {}), dict(found.structured_content or {})


def assert_worked(names: set[str], stored: dict, found: dict) -> None:
    assert {"remember", "recall", "context", "facts_check"} <= names
    assert [hit["id"] for hit in found["items"]][:1] == [stored["id"]]


def test_a_host_configured_from_the_readme_stdio_entry_works():
    workspace = make_workspace("acme")
    make_agent(workspace, "helpdesk")
    key = make_key(workspace)
    entry = readme_hosts()["stdio"]
    # The placeholders a person fills in: where Dewee is installed, the key, the database.
    command = str(Path(sys.executable).with_name(Path(entry["command"]).name))
    env = {**entry["env"], "DEWEE_API_KEY": key, "DATABASE_URL": database_url()}
    assert entry["args"][-1] == "helpdesk"
    params = StdioServerParameters(command=command, args=entry["args"], env=env, cwd=BASE_DIR)

    async def scenario() -> tuple[set[str], dict, dict]:
        async with Client(params) as mcp:
            return await store_and_recall(mcp)

    assert_worked(*in_own_thread(anyio.run, scenario))


def test_a_host_configured_from_the_readme_http_entry_works(server: Server):  # noqa: F811
    workspace = make_workspace("acme")
    make_agent(workspace, "helpdesk")
    key = make_key(workspace)
    entry = readme_hosts()["http"]
    url = re.sub(r"^https?://[^/]+", server.url, entry["url"])
    headers = {name: value.replace("dw_...", key) for name, value in entry["headers"].items()}

    async def scenario() -> tuple[set[str], dict, dict]:
        http = create_mcp_http_client(headers=headers)
        async with Client(streamable_http_client(url, http_client=http)) as mcp:
            return await store_and_recall(mcp)

    assert_worked(*in_own_thread(anyio.run, scenario))
