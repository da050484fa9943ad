"""An OpenAI Agents SDK agent with Dewee as its memory: the tools of
dewee_client.openai_agents.memory_tools (``remember``, ``recall``) bound to one user.

    pip install -e 'clients/python[openai-agents]'   # dewee-client with its Agents SDK extra
    python examples/openai_agents_memory.py --url http://127.0.0.1:8000 --key dw_...

The model here is a stub (StubModel: it calls ``remember`` when told to remember something,
``recall`` for a question, and answers with what the tool said), so the example runs without an
LLM key and with no network but the Dewee server's. With a real model, drop ``model=`` (the
SDK's default OpenAI model, with OPENAI_API_KEY) and nothing else changes.
"""

import argparse
import asyncio
import itertools
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, set_tracing_disabled
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from dewee_client import AsyncDewee
from dewee_client.openai_agents import memory_tools


class StubModel(Model):
    """Plays the model, with the same decisions a real one would make here."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        last = items[-1]
        if last.get("type") == "function_call_output":
            return self._respond(self._say(str(last["output"])))
        said = str(last["content"])
        if said.lower().startswith("remember:"):
            content = said.split(":", 1)[1].strip()
            return self._respond(self._call("remember", content=content, importance=0.9))
        return self._respond(self._call("recall", query=said))

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the example runs without streaming")

    def _call(self, name: str, **arguments: Any) -> ResponseFunctionToolCall:
        n = next(self.ids)
        return ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{n}",
            call_id=f"call_{n}",
            name=name,
            arguments=json.dumps(arguments),
        )

    def _say(self, text: str) -> ResponseOutputMessage:
        return ResponseOutputMessage(
            type="message",
            id=f"msg_{next(self.ids)}",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )

    def _respond(self, item: Any) -> ModelResponse:
        return ModelResponse(output=[item], usage=Usage(), response_id=None)


async def main(url: str, key: str, *, agent_id: str = "helpdesk") -> list[str]:
    """Three turns, the last one another user's; returns the agent's answers."""
    set_tracing_disabled(True)  # no traces sent to OpenAI from an example
    answers = []
    async with AsyncDewee(url, key, agent_id=agent_id) as dewee:
        for user, said in [
            ("u7", "Remember: I am allergic to penicillin"),
            ("u7", "Which medicine should I avoid?"),
            ("u8", "Which medicine should I avoid?"),
        ]:
            agent = Agent(
                name="Help desk",
                instructions="Remember what matters about the user; recall it before answering.",
                tools=memory_tools(dewee, user=user),
                model=StubModel(),
            )
            result = await Runner.run(agent, said)
            answers.append(str(result.final_output))
            print(f"{user}: {said}\nagent: {answers[-1]}")
    return answers


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", default=os.environ.get("DEWEE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("DEWEE_API_KEY"))
    parser.add_argument("--agent", default="helpdesk")
    args = parser.parse_args()
    if not args.key:
        parser.error("give --key or set DEWEE_API_KEY")
    asyncio.run(main(args.url, args.key, agent_id=args.agent))
