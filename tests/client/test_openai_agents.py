"""The OpenAI Agents SDK memory tools against a live server, driven by the SDK's own runner with
a stub model (no LLM key, no network but the Dewee server)."""

import asyncio
import json

from agents import FunctionTool, Tool
from agents.tool_context import ToolContext

from dewee_client import AsyncDewee
from dewee_client.openai_agents import memory_context, memory_tools
from examples import openai_agents_memory
from tests.event_loop import in_own_thread


async def _invoke(tool: Tool, **arguments) -> str:
    assert isinstance(tool, FunctionTool)
    arguments_json = json.dumps(arguments)
    context = ToolContext(
        context=None, tool_name=tool.name, tool_call_id="call_1", tool_arguments=arguments_json
    )
    return await tool.on_invoke_tool(context, arguments_json)


def test_the_tools_describe_themselves_to_the_model(live):
    remember, recall = memory_tools(AsyncDewee(live.url, live.key, agent_id="helpdesk"), user="u7")
    assert isinstance(remember, FunctionTool)
    assert isinstance(recall, FunctionTool)
    assert (remember.name, recall.name) == ("remember", "recall")
    assert set(remember.params_json_schema["properties"]) == {"content", "importance"}
    assert 'e.g. "Ana is allergic to' in remember.description
    assert "0.9 for something that must not be forgotten" in json.dumps(remember.params_json_schema)
    assert set(recall.params_json_schema["properties"]) == {"query"}


def test_remember_and_recall_keep_to_their_user(live, dewee):
    async def use(client: AsyncDewee) -> None:
        remember, recall = memory_tools(client, user="u7")
        stored = await _invoke(remember, content="Ana prefers morning appointments")
        assert stored.startswith("Remembered")
        assert await _invoke(recall, query="appointment times") == (
            "- Ana prefers morning appointments"
        )
        other_users_recall = memory_tools(client, user="u8")[1]
        assert await _invoke(other_users_recall, query="appointment times") == (
            "Nothing remembered about that."
        )
        refused = await _invoke(remember, content="x" * 20_000)
        assert refused.startswith("Not stored: content")
        prompt = await memory_context(client, "appointments", user="u7")
        assert "morning appointments" in prompt

    async def run() -> None:
        async with AsyncDewee(live.url, live.key, agent_id="helpdesk") as client:
            await use(client)

    in_own_thread(asyncio.run, run())
    [memory] = dewee.memories()
    assert (memory.user, memory.content) == ("u7", "Ana prefers morning appointments")


def test_the_example_remembers_for_that_user_only(live, dewee):
    answers = in_own_thread(asyncio.run, openai_agents_memory.main(live.url, live.key))
    assert answers[0].startswith("Remembered (memory ")
    assert answers[1:] == ["- I am allergic to penicillin", "Nothing remembered about that."]
    [memory] = dewee.memories(user="u7")
    assert memory.importance == 0.9
