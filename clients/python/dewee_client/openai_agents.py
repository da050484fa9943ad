"""Memory tools for the OpenAI Agents SDK (``pip install 'dewee-client[openai-agents]'``).

``memory_tools(dewee, user="u7")`` gives an ``Agent`` two function tools, ``remember`` and
``recall``, bound to one user of one Dewee agent (and, optionally, a session): the model
decides what to keep and when to look something up, and Dewee's user boundary holds whatever
it asks (a user's tools never see another user's memories). ``memory_context`` is the
other way round: the assembled context block to put in the agent's instructions each turn.
"""

from agents import Tool, function_tool

from dewee_client import errors
from dewee_client.aio import AsyncDewee


def memory_tools(
    dewee: AsyncDewee,
    *,
    user: str,
    agent_id: str | None = None,
    session_id: int | None = None,
    top_k: int = 5,
) -> list[Tool]:
    """``remember`` and ``recall`` for ``user`` (the agent is the client's unless given)."""

    @function_tool
    async def remember(content: str, importance: float = 0.5) -> str:
        """Store something worth remembering about the user or the conversation, written as
        a plain sentence that makes sense on its own later, e.g. "Ana is allergic to
        penicillin" or "The user prefers morning appointments".

        Args:
            content: The sentence to remember.
            importance: 0 to 1; 0.9 for something that must not be forgotten (an allergy),
                0.3 for small talk.
        """
        try:
            stored = await dewee.store(
                content,
                user=user,
                session_id=session_id,
                importance=importance,
                agent_id=agent_id,
            )
        except (errors.BadRequest, errors.PayloadTooLarge) as refused:
            # The model can act on it (shorten, split); anything else is the developer's.
            return f"Not stored: {refused.message}"
        return f"Remembered (memory {stored.id})."

    @function_tool
    async def recall(query: str) -> str:
        """Look up what was remembered about the user, by meaning and keywords, before
        answering a question that depends on them, e.g. "medicine allergies" or "preferred
        appointment times".

        Args:
            query: What to look for, in a few words or a question.
        """
        result = await dewee.recall(query, user=user, top_k=top_k, agent_id=agent_id)
        if not result.items:
            return "Nothing remembered about that."
        return "\n".join(f"- {hit.content}" for hit in result.items)

    return [remember, recall]


async def memory_context(
    dewee: AsyncDewee,
    query: str,
    *,
    user: str,
    agent_id: str | None = None,
    session_id: int | None = None,
    budget_tokens: int = 800,
) -> str:
    """The context block for the next turn (the user's facts, relevant memories, the
    session's recent turns), for dynamic instructions:
    ``Agent(instructions=lambda ctx, agent: ...)``."""
    context = await dewee.context(
        query, user=user, session_id=session_id, budget_tokens=budget_tokens, agent_id=agent_id
    )
    return context.prompt
