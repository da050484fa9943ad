"""The MCP server over streamable HTTP, driven by the SDK's own client against a live
`manage.py serve` (gunicorn, threaded workers), on the test database of the edition."""

import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent, TextResourceContents

from tests.event_loop import in_own_thread
from tests.factories import make_agent, make_key, make_workspace
from tests.servers import Server, start_server, stop_server, wait_until_serving

pytestmark = pytest.mark.django_db(transaction=True)

READ_TOOLS = {"recall", "context", "facts_check", "facts_list"}
WRITE_TOOLS = {"remember", "fact_assert", "session_start", "session_end", "forget_memory"}


@pytest.fixture(scope="module")
def server(django_db_setup, tmp_path_factory):
    # One server for the module (starting one takes seconds); each test makes its own data
    # in the test database it serves, emptied after each test.
    # Without a worker and with jobs run in the request that queues them: nothing of the
    # server still writes when a test's data is flushed (on PostgreSQL that flush deadlocked
    # with the worker's graph job, and the next tests found the last one's data).
    server = start_server(
        tmp_path_factory.mktemp("mcp-http"),
        web_only=True,
        DEWEE_Q_SYNC="1",
        DEWEE_WEB_THREADS="4",
        # Django's async-safety check on, as in production (the suite turns it off for
        # Playwright): the tools' database work must never run inside the event loop.
        DJANGO_ALLOW_ASYNC_UNSAFE="",
    )
    try:
        wait_until_serving(server)
        yield server
    finally:
        stop_server(server)
        print(server.tail())  # shown by pytest only when the test failed


def client(server: Server, key: str, agent: str = "support-bot") -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    return Client(streamable_http_client(f"{server.url}/mcp?agent={agent}", http_client=http))


def run(coroutine_function: Any, *args: Any) -> Any:
    return in_own_thread(anyio.run, coroutine_function, *args)


def text(block: Any) -> str:
    assert isinstance(block, TextContent | TextResourceContents)
    return block.text


def body(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


def test_a_full_key_lists_every_tool_and_calls_each(server):
    workspace = make_workspace("acme")
    make_agent(workspace, "support-bot")
    key = make_key(workspace)

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with client(server, key) as mcp:
            tools = await mcp.list_tools()
            seen["tools"] = {t.name: t for t in tools.tools}
            session = body(await mcp.call_tool("session_start", {"user": "ana"}))
            stored = body(
                await mcp.call_tool(
                    "remember",
                    {
                        "content": "Ana is allergic to penicillin",
                        "session_id": session["id"],
                        "memory_type": "semantic",
                        "importance": 0.9,
                    },
                )
            )
            seen["stored"] = stored
            seen["recall"] = body(
                await mcp.call_tool("recall", {"query": "what is Ana allergic to?", "user": "ana"})
            )
            context = await mcp.call_tool("context", {"query": "allergies", "user": "ana"})
            seen["context"] = (text(context.content[0]), body(context))
            seen["assert"] = body(
                await mcp.call_tool(
                    "fact_assert",
                    {
                        "user": "ana",
                        "subject": "user",
                        "predicate": "employer",
                        "value": "Google",
                        "source": {"kind": "conversation_summary", "excerpt": "I work at Google"},
                    },
                )
            )
            seen["check"] = body(
                await mcp.call_tool(
                    "facts_check", {"user": "ana", "text": "I work at Anthropic now"}
                )
            )
            seen["list"] = body(await mcp.call_tool("facts_list", {"user": "ana"}))
            templates = await mcp.list_resource_templates()
            seen["templates"] = {t.uri_template for t in templates.resource_templates}
            facts = await mcp.read_resource("dewee://users/ana/facts")
            seen["facts_resource"] = json.loads(text(facts.contents[0]))
            memories = await mcp.read_resource(f"dewee://sessions/{session['id']}/memories")
            seen["session_resource"] = json.loads(text(memories.contents[0]))
            seen["end"] = body(await mcp.call_tool("session_end", {"session_id": session["id"]}))
            seen["forget"] = body(await mcp.call_tool("forget_memory", {"memory_id": stored["id"]}))
            seen["after"] = body(
                await mcp.call_tool("recall", {"query": "penicillin", "user": "ana"})
            )
        return seen

    seen = run(scenario)
    assert set(seen["tools"]) == READ_TOOLS | WRITE_TOOLS
    remember = seen["tools"]["remember"]
    assert "Example" in remember.description
    assert remember.input_schema["required"] == ["content"]
    assert "agent_id" not in remember.input_schema["properties"]
    assert seen["tools"]["recall"].annotations.read_only_hint is True
    assert seen["tools"]["forget_memory"].annotations.destructive_hint is True

    assert seen["stored"]["user"] == "ana"  # the session's user
    assert [hit["content"] for hit in seen["recall"]["items"]] == ["Ana is allergic to penicillin"]
    prompt, context = seen["context"]
    assert "penicillin" in prompt
    assert prompt == context["prompt"]
    assert seen["assert"]["outcome"] == "created"
    assert [c["new_value"] for c in seen["check"]["contradicted"]] == ["Anthropic"]
    assert seen["check"]["applied"] == []  # a preview
    assert [(f["predicate"], f["value"]) for f in seen["list"]["items"]] == [("employer", "Google")]
    assert seen["templates"] == {
        "dewee://users/{user}/facts",
        "dewee://sessions/{session_id}/memories",
    }
    assert [f["value"] for f in seen["facts_resource"]["items"]] == ["Google"]
    assert [m["content"] for m in seen["session_resource"]["items"]] == [
        "Ana is allergic to penicillin"
    ]
    assert seen["end"]["state"] == "ended"
    assert seen["forget"]["memories"] == 1
    assert seen["after"]["items"] == []


def test_a_read_key_sees_only_read_tools_and_is_refused_a_write(server):
    workspace = make_workspace("acme")
    make_agent(workspace, "support-bot")
    key = make_key(workspace, scopes=("read",))

    async def scenario() -> tuple[set[str], Any, Any]:
        async with client(server, key) as mcp:
            names = {t.name for t in (await mcp.list_tools()).tools}
            write = await mcp.call_tool("remember", {"content": "Ana likes tea", "user": "ana"})
            apply = await mcp.call_tool(
                "facts_check", {"user": "ana", "text": "I live in Lisbon", "apply": True}
            )
        return names, write, apply

    names, write, apply = run(scenario)
    assert names == READ_TOOLS
    for refused in (write, apply):
        assert refused.is_error
        assert body(refused)["error"]["code"] == "insufficient_scope"
        assert json.loads(text(refused.content[0])) == body(refused)


def test_bad_oversized_and_unknown_arguments_are_refused_with_rest_codes(server):
    workspace = make_workspace("acme")
    make_agent(workspace, "support-bot")
    key = make_key(workspace)

    async def scenario() -> dict[str, Any]:
        async with client(server, key) as mcp:
            return {
                "missing": await mcp.call_tool("recall", {}),
                "wrong_type": await mcp.call_tool("recall", {"query": "tea", "top_k": "ten"}),
                "out_of_range": await mcp.call_tool("recall", {"query": "tea", "top_k": 1000}),
                "unknown": await mcp.call_tool("recall", {"query": "tea", "agent_id": "other"}),
                "oversized": await mcp.call_tool("remember", {"content": "x" * 16_001}),
                "no_tool": await mcp.call_tool("drop_tables", {}),
            }

    refusals = run(scenario)
    codes = {name: body(result)["error"]["code"] for name, result in refusals.items()}
    assert all(result.is_error for result in refusals.values())
    assert codes == {
        "missing": "invalid_input",
        "wrong_type": "invalid_input",
        "out_of_range": "invalid_input",
        "unknown": "unknown_parameter",
        "oversized": "too_large",
        "no_tool": "unknown_tool",
    }
    assert body(refusals["missing"])["error"]["details"] == {"field": "query"}

    # A body over the server's size limit never reaches the SDK: 413 in the REST shape.
    big = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "x" * (3 * 1024 * 1024)}
    answer = server.request("POST", "/mcp?agent=support-bot", big, key=key)
    assert answer.status == 413
    assert answer.json()["error"]["code"] == "too_large"


def test_another_workspaces_ids_and_agents_are_not_found(server):
    acme = make_workspace("acme")
    make_agent(acme, "support-bot")
    globex = make_workspace("globex")
    make_agent(globex, "globex-bot")
    acme_key, globex_key = make_key(acme), make_key(globex)

    async def scenario() -> dict[str, Any]:
        async with client(server, globex_key, agent="globex-bot") as mcp:
            session = body(await mcp.call_tool("session_start", {"user": "bo"}))
            memory = body(
                await mcp.call_tool("remember", {"content": "Bo likes jazz", "user": "bo"})
            )
        async with client(server, acme_key) as mcp:
            seen = {
                "end": await mcp.call_tool("session_end", {"session_id": session["id"]}),
                "forget": await mcp.call_tool("forget_memory", {"memory_id": memory["id"]}),
                "context": await mcp.call_tool(
                    "context", {"query": "jazz", "session_id": session["id"]}
                ),
            }
            with pytest.raises(MCPError) as refused:
                await mcp.read_resource(f"dewee://sessions/{session['id']}/memories")
            seen["resource"] = refused.value.data
            return seen

    seen = run(scenario)
    assert body(seen["end"])["error"]["code"] == "session_not_found"
    assert body(seen["forget"])["error"]["code"] == "memory_not_found"
    assert body(seen["context"])["error"]["code"] == "session_not_found"
    assert seen["resource"]["code"] == "session_not_found"

    # Agent ids are the workspace's own: acme's key naming globex's agent reaches an acme
    # agent of that id, which does not exist, and none of globex's memories.
    async def other_agent() -> Any:
        async with client(server, acme_key, agent="globex-bot") as mcp:
            return await mcp.call_tool("recall", {"query": "jazz", "user": "bo"})

    assert body(run(other_agent))["error"]["code"] == "agent_not_found"

    # A key limited to some agents cannot connect for another: 404, as over REST.
    limited = make_key(acme, agent_ids=["support-bot"])
    answer = server.request(
        "POST",
        "/mcp?agent=billing-bot",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        key=limited,
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert answer.status == 404
    assert answer.json()["error"]["code"] == "agent_not_found"


def test_no_key_or_a_wrong_key_is_401_in_the_rest_shape(server):
    for key in (None, "dw_wrong"):
        answer = server.request("POST", "/mcp?agent=a", {"jsonrpc": "2.0", "id": 1}, key=key)
        assert answer.status == 401
        assert answer.json()["error"]["code"] == "unauthenticated"
        assert answer.headers["WWW-Authenticate"] == "Bearer"


def test_a_connection_must_name_its_agent(server):
    key = make_key(make_workspace("acme"))
    answer = server.request("POST", "/mcp", {"jsonrpc": "2.0", "id": 1}, key=key)
    assert answer.status == 400
    assert answer.json()["error"]["code"] == "invalid_input"
    assert "/mcp?agent=" in answer.json()["error"]["message"]


def test_the_key_rate_limit_counts_mcp_requests(tmp_path):
    workspace = make_workspace("acme")
    key = make_key(workspace)
    # Per hour: the limit's windows are fixed (django-ratelimit), and on a loaded machine
    # four requests could straddle a minute's end and find the count reset.
    server = start_server(tmp_path, DEWEE_RATE_LIMIT_KEY="3/h")
    try:
        wait_until_serving(server)
        answers = [
            server.request(
                "POST",
                "/mcp?agent=support-bot",
                {"jsonrpc": "2.0", "id": n, "method": "ping"},
                key=key,
                headers={"Accept": "application/json, text/event-stream"},
            )
            for n in range(4)
        ]
    finally:
        stop_server(server)
    assert [a.status for a in answers[:3]] == [200] * 3
    assert answers[3].status == 429
    assert answers[3].json()["error"]["code"] == "rate_limited"
