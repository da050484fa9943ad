"""The REST shapes of sessions."""

from datetime import datetime
from typing import Any, Literal

from ninja import Schema
from pydantic import (
    Field,
    StrictInt,
    StrictStr,
)

from dewee.schemas import StrictSchema


class SessionIn(StrictSchema):
    agent_id: StrictStr
    user: StrictStr = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    idle_timeout_secs: StrictInt | None = Field(
        None, description="Seconds of inactivity before the server ends it; 0 = never."
    )


class SessionEndIn(StrictSchema):
    summary: StrictStr = ""


class SessionOut(Schema):
    id: int
    agent_id: str
    user: str | None
    state: Literal["active", "ended"]
    metadata: dict[str, Any]
    started_at: datetime
    last_activity_at: datetime
    ended_at: datetime | None
    ended_reason: str | None
    summary: str | None
    idle_timeout_secs: int | None
    memory_count: int


class SessionPageOut(Schema):
    items: list[SessionOut]
    next_cursor: str | None


class SessionDeletedOut(Schema):
    sessions: int
    memories: int
    facts: int = Field(description="Facts learned only from the session's memories.")
