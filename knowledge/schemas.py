"""The shapes of the knowledge API."""

from datetime import datetime
from typing import Any, Literal

from ninja import Schema
from pydantic import Field, StrictInt, StrictStr

from dewee.schemas import StrictDbId, StrictSchema
from memory.schemas import MemoryOut


class ContextIn(StrictSchema):
    agent_id: StrictStr
    query: StrictStr = ""
    user: StrictStr = Field(
        "",
        description="The user of the turn: their facts, their memories and the agent's shared "
        "ones. Taken from the session when session_id is given; a different user is refused "
        "(user_mismatch). Without either, only shared memories and no user facts.",
    )
    session_id: StrictDbId | None = None
    budget_tokens: StrictInt = Field(2000, description="50 to 32,000 (about 4 chars a token).")
    top_k: StrictInt = 10


class ContextOut(Schema):
    working: list[MemoryOut]
    episodic: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    entities: list[dict[str, Any]] = Field(
        description="The agent's entities the query names (by name or alias), each with "
        "type, name, mention_count and its current facts (the user's and those about no "
        "user); at most a fifth of the budget."
    )
    prompt: str
    budget_tokens: int
    used_tokens: int


class PersonForgetIn(StrictSchema):
    user: StrictStr = Field(
        description="The person's user id, as facts, memories and sessions name them."
    )
    confirm: bool = Field(False, description="Must be true to erase; otherwise a preview.")


class PersonPreviewOut(Schema):
    dry_run: Literal[True]
    user: str
    counts: dict[str, int]
    by_agent: dict[str, dict[str, int]] = Field(
        description="The same counts for each agent that holds anything about the person."
    )


class PersonReceiptOut(Schema):
    id: str
    workspace: str
    scope: dict[str, str] = Field(
        description='{"user_hmac": HMAC-SHA256 of the user id with a key derived from the '
        "server's secret}: the receipt never holds the id itself."
    )
    counts: dict[str, int]
    by_agent: dict[str, dict[str, int]]
    actor: str
    created_at: datetime
