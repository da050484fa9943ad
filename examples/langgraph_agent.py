"""A LangGraph agent whose long-term memory is Dewee, through dewee_client.langgraph.DeweeStore.

    pip install -e 'clients/python[langgraph]'   # dewee-client with its LangGraph extra
    python examples/langgraph_agent.py --url http://127.0.0.1:8000 --key dw_...

The model here is a stub (StubChatModel: it answers with what its prompt says it remembers), so
the example runs without an LLM key; put a real chat model (``ChatOpenAI(model=...)``,
``ChatAnthropic(...)``) in its place and nothing else changes. What the user asks to be
remembered in one conversation is recalled in the next, for that user only.
"""

import argparse
import os
import uuid
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.base import BaseStore

from dewee_client import Dewee
from dewee_client.langgraph import DeweeStore


class StubChatModel(BaseChatModel):
    """Plays the model: answers with the memories its system prompt lists."""

    @property
    def _llm_type(self) -> str:
        return "stub"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
        remembered = [line[2:] for line in system.splitlines() if line.startswith("- ")]
        text = "From memory: " + "; ".join(remembered) if remembered else "I don't know yet."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


def build_graph(store: BaseStore, model: BaseChatModel) -> CompiledStateGraph:
    def respond(state: MessagesState, config: RunnableConfig, *, store: BaseStore) -> dict:
        settings = config["configurable"]
        # One namespace per (Dewee agent, user): recall never crosses users.
        namespace = (settings["agent_id"], settings["user_id"])
        said = str(state["messages"][-1].content)
        if said.lower().startswith("remember:"):
            store.put(namespace, str(uuid.uuid4()), {"content": said.split(":", 1)[1].strip()})
            return {"messages": [AIMessage("Noted.")]}
        memories = store.search(namespace, query=said, limit=3)
        system = "What you remember about the user:\n" + "\n".join(
            f"- {item.value['content']}" for item in memories
        )
        return {"messages": [model.invoke([SystemMessage(system), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("respond", respond)
    graph.add_edge(START, "respond")
    return graph.compile(store=store)


def main(url: str, key: str, *, agent_id: str = "helpdesk") -> list[str]:
    """Three conversations; returns the agent's replies."""
    with Dewee(url, key, agent_id=agent_id) as dewee:
        graph = build_graph(DeweeStore(dewee), StubChatModel())
        replies = []
        for user, said in [
            ("u7", "Remember: I am allergic to penicillin"),
            ("u7", "Which medicine should I avoid?"),
            ("u8", "Which medicine should I avoid?"),
        ]:
            config: RunnableConfig = {"configurable": {"agent_id": agent_id, "user_id": user}}
            state = graph.invoke({"messages": [HumanMessage(said)]}, config)
            replies.append(str(state["messages"][-1].content))
            print(f"{user}: {said}\nagent: {replies[-1]}")
        return replies


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--url", default=os.environ.get("DEWEE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("DEWEE_API_KEY"), required=False)
    parser.add_argument("--agent", default="helpdesk")
    args = parser.parse_args()
    if not args.key:
        parser.error("give --key or set DEWEE_API_KEY")
    main(args.url, args.key, agent_id=args.agent)
