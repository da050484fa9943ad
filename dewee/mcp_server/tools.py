"""The MCP tools: each one a REST operation's input schema (so the same validation), the
scope its REST operation declares, and a handler that calls the services REST calls
(handlers.py).

A tool's arguments are the REST body's fields an agent needs, minus ``agent_id``: a
connection acts for one agent (``?agent=`` on /mcp, ``--agent`` for stdio), so a model
cannot wander into another agent's memory by naming it.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from ninja import Schema
from pydantic import ValidationError

from dewee.errors import InvalidInput
from dewee.mcp_server import handlers
from dewee.mcp_server.auth import Caller
from facts.api import FactListParams
from facts.schemas import FactAssertIn, FactCheckIn
from knowledge.schemas import ContextIn
from memory.schemas import RecallIn, SessionIn, StoreMemoryIn
from tenancy.access import Access
from tenancy.models import Scope


@dataclass(frozen=True)
class Tool:
    name: str
    scope: Scope
    description: str
    # The REST operation's body schema (or one built on it): arguments are validated by it.
    schema: type[Schema]
    # The arguments offered to a model, each with the description it reads.
    arguments: dict[str, str]
    run: Callable[[Caller, Any], dict[str, Any]]
    read_only: bool = False
    destructive: bool = False
    # The text a model reads first; the whole result is the structured content too.
    text: Callable[[dict[str, Any]], str] | None = field(default=None)

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        """Built once per process: pydantic's schema generation costs milliseconds, and
        the SDK asks for a tool's schema to check a call's headers."""
        full = self.schema.model_json_schema()
        properties = {
            name: {**full["properties"][name], "description": described}
            for name, described in self.arguments.items()
        }
        for prop in properties.values():
            prop.pop("title", None)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": [name for name in full.get("required", []) if name in self.arguments],
            "additionalProperties": False,
        }
        if "$defs" in full:
            schema["$defs"] = full["$defs"]
        return schema

    def validate(self, caller: Caller, arguments: dict[str, Any]) -> Any:
        """The arguments as the REST operation's schema reads them; an argument the tool
        does not offer is refused (unknown_parameter), never ignored."""
        unknown = sorted(set(arguments) - set(self.arguments))
        if unknown:
            raise InvalidInput(
                unknown[0],
                f"unknown argument; {self.name} takes {', '.join(self.arguments)}",
                code="unknown_parameter",
            )
        data = dict(arguments)
        if "agent_id" in self.schema.model_fields:
            data["agent_id"] = caller.agent_id
        try:
            return self.schema.model_validate(data)
        except ValidationError as exc:
            raise invalid_arguments(exc) from None

    def call(self, caller: Caller, arguments: dict[str, Any]) -> dict[str, Any]:
        # The scope REST declares for the operation, checked before anything is read.
        caller.access.require_scope(self.scope)
        return plain(self.run(caller, self.validate(caller, arguments)))


def invalid_arguments(exc: ValidationError) -> InvalidInput:
    """A schema's refusal as REST words it (dewee.api: invalid_input, naming the field)."""
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first.get("loc", ()))
    return InvalidInput(loc or "arguments", str(first.get("msg", "invalid")))


def plain(result: dict[str, Any]) -> dict[str, Any]:
    """JSON types only (times as ISO 8601), as REST serialises them."""
    loaded: dict[str, Any] = json.loads(json.dumps(result, cls=DjangoJSONEncoder))
    return loaded


USER = (
    'The end user this is about, as your app names them (e.g. "user-42"). Memories '
    "without a user are shared by every user of the agent."
)

TOOLS: list[Tool] = [
    Tool(
        name="remember",
        scope=Scope.WRITE,
        description=(
            "Store one memory: something worth knowing in a later turn or conversation. "
            "Write it as a self-contained sentence. Facts about the user in it (employer, "
            "city, allergies...) are learned too.\n"
            'Example: {"content": "Ana is allergic to penicillin", "user": "ana", '
            '"memory_type": "semantic", "importance": 0.9}\n'
            "Returns the stored memory with its id (keep it to forget it later)."
        ),
        schema=StoreMemoryIn,
        arguments={
            "content": "The memory, a self-contained sentence (at most 16,000 characters).",
            "user": USER,
            "session_id": "The conversation it belongs to (from session_start); its user is "
            "the memory's user.",
            "memory_type": "episodic (something that happened, the default), semantic (a "
            "lasting fact or preference), procedural (how to do something) or working.",
            "importance": "0 to 1 (default 0.5); 0.9 for what must not be forgotten.",
            "tags": 'Labels to filter by later, e.g. ["billing"].',
            "speaker": 'Who said it, e.g. "Ana".',
            "ttl_seconds": "Forget it after this many seconds (e.g. 86400 for a day).",
            "extract_facts": "sync: learn facts from it now and list them; off: learn none. "
            "Default: the agent's policy.",
        },
        run=handlers.remember,
    ),
    Tool(
        name="recall",
        scope=Scope.READ,
        description=(
            "Search the agent's memories for what is relevant to a query, best first, each "
            "with a score. Pass the user to search their memories (and the shared ones); "
            "another user's are never returned.\n"
            'Example: {"query": "what is Ana allergic to?", "user": "ana", "top_k": 5}'
        ),
        schema=RecallIn,
        arguments={
            "query": "What to look for, in plain words.",
            "user": USER,
            "session_id": "Only this conversation's memories.",
            "top_k": "How many memories, 1 to 100 (default 10).",
            "tags": "Only memories with all these tags.",
            "memory_type": "Only this type: episodic, semantic, procedural or working.",
            "since": "Only memories from this time on (ISO 8601, e.g. 2026-01-31T00:00:00Z).",
            "until": "Only memories before this time (ISO 8601).",
        },
        run=handlers.recall_memories,
        read_only=True,
    ),
    Tool(
        name="context",
        scope=Scope.READ,
        description=(
            "The memory block for the next turn, ready to put in a prompt: the user's "
            "current facts, the conversation's latest turns, the people and things the "
            "query names, and the recalled memories, within a token budget. Call it at the "
            "start of a turn.\n"
            'Example: {"query": "book me a flight home", "user": "ana", "budget_tokens": 800}'
        ),
        schema=ContextIn,
        arguments={
            "query": "The user's message for this turn.",
            "user": USER + " Taken from the session when session_id is given.",
            "session_id": "The conversation (from session_start).",
            "budget_tokens": "At most this many tokens, 50 to 32,000 (default 2,000).",
        },
        run=handlers.context,
        read_only=True,
        text=lambda result: str(result.get("prompt", "")),
    ),
    Tool(
        name="facts_check",
        scope=Scope.READ,
        description=(
            "Check a user's own words against the facts held about them: what they "
            'contradict ("I work at Anthropic now" against employer=Google), confirm or '
            "add. A preview unless apply is true, which carries out the suggested actions "
            "(needs a key with the write scope).\n"
            'Example: {"user": "ana", "text": "I moved to Lisbon last month", "apply": false}'
        ),
        schema=FactCheckIn,
        arguments={
            "user": "The user who wrote the text.",
            "text": "Their own words (at most 20,000 characters).",
            "apply": "true: update the facts as suggested; false (default): only report.",
        },
        run=handlers.facts_check,
        read_only=False,
    ),
    Tool(
        name="facts_list",
        scope=Scope.READ,
        description=(
            "The facts held about a user or a subject, with status (current, disputed, "
            "history...), value, source and freshness.\n"
            'Example: {"user": "ana", "status": "current"} or {"user": "ana", "predicate": '
            '"employer"}'
        ),
        schema=FactListParams,
        arguments={
            "user": "Only facts about this user.",
            "subject": 'Only this subject, e.g. "user" or a person\'s name.',
            "predicate": 'Only this predicate, e.g. "employer", "city", "allergy".',
            "status": "current, disputed, history, rejected or deleted; several with commas.",
            "in_force": "true: only the value of each slot that holds now.",
            "q": "Text to search for in values.",
            "limit": "At most this many facts (default 50).",
            "cursor": "next_cursor of the previous page.",
        },
        run=handlers.facts_list,
        read_only=True,
    ),
    Tool(
        name="fact_assert",
        scope=Scope.WRITE,
        description=(
            "Record one fact with its source. A value that contradicts the current one is "
            "decided by trust rules: it replaces it, or waits as disputed for review.\n"
            'Example: {"user": "ana", "subject": "user", "predicate": "employer", "value": '
            '"Anthropic", "source": {"kind": "conversation_summary", "excerpt": "I joined '
            'Anthropic"}}'
        ),
        schema=FactAssertIn,
        arguments={
            "user": USER,
            "subject": '"user" for the user themself, or who or what the fact is about.',
            "predicate": 'What the fact says, e.g. "employer", "city", "allergy".',
            "value": "The value (at most 4,096 characters).",
            "qualifier": "For slots with several values (e.g. which child).",
            "verification": "stated (default), inferred or verified.",
            "confidence": "0 to 1 (default 1).",
            "valid_from": "When it became true (ISO 8601).",
            "valid_to": "When it stops being true (ISO 8601).",
            "source": 'Where it was learned: {"kind": "conversation_summary" | '
            '"channel_message" | "memory_document" | "operator", "excerpt": "the words", '
            '"reference": "an id"}.',
        },
        run=handlers.fact_assert,
    ),
    Tool(
        name="session_start",
        scope=Scope.WRITE,
        description=(
            "Start a conversation with a user; pass its id to remember, recall and context. "
            "It ends by itself after a while without activity.\n"
            'Example: {"user": "ana"}'
        ),
        schema=SessionIn,
        arguments={
            "user": USER,
            "metadata": 'Anything to keep with it, e.g. {"channel": "web"}.',
            "idle_timeout_secs": "End it after this many seconds without activity; 0: never.",
        },
        run=handlers.session_start,
    ),
    Tool(
        name="session_end",
        scope=Scope.WRITE,
        description=(
            "End a conversation. A long one is summarised into a memory (yours, if you pass "
            "a summary).\n"
            'Example: {"session_id": 12, "summary": "Ana booked a flight to Lisbon."}'
        ),
        schema=handlers.SessionEndArgs,
        arguments={
            "session_id": "The conversation to end (from session_start).",
            "summary": "Your summary of it (optional).",
        },
        run=handlers.session_end,
    ),
    Tool(
        name="forget_memory",
        scope=Scope.WRITE,
        description=(
            "Delete one memory for good, and the facts learned only from it.\n"
            'Example: {"memory_id": 381, "reason": "the user asked"}'
        ),
        schema=handlers.ForgetMemoryArgs,
        arguments={
            "memory_id": "The memory's id (from remember or recall).",
            "reason": "Why (kept in the audit trail).",
        },
        run=handlers.forget_memory,
        destructive=True,
    ),
]

TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def tools_for(access: Access) -> list[Tool]:
    """The tools this caller's key may call: a read key sees only the read tools."""
    return [t for t in TOOLS if access.scopes is None or t.scope in access.scopes]
