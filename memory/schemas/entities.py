"""The REST shapes of the semantic tier: entities, a memory's mentions, links, extraction."""

from datetime import datetime

from ninja import Schema
from pydantic import Field, StrictStr

from dewee.schemas import StrictDbId, StrictSchema


class EntityOut(Schema):
    id: int
    type: str
    name: str
    key: str = Field(description="The normalised name entities are matched by.")
    aliases: list[str]
    mention_count: int = Field(description="How many of the agent's memories mention it.")
    first_seen: datetime
    last_seen: datetime


class EntityPageOut(Schema):
    items: list[EntityOut]
    next_cursor: str | None


class MentionOut(EntityOut):
    count: int = Field(description="How often this memory mentions it.")
    start: int | None = Field(description="Where the first mention starts in the content.")
    end: int | None
    as_speaker: bool = Field(description="The memory's speaker.")


class ExtractIn(StrictSchema):
    text: StrictStr = Field(description="At most 16,000 characters; nothing is stored.")


class ExtractedOut(Schema):
    type: str
    value: str
    text: str
    start: int | None
    end: int | None
    count: int
    tag: str


class ExtractOut(Schema):
    speaker: str | None
    entities: list[ExtractedOut]


class LinkIn(StrictSchema):
    target_id: StrictDbId = Field(description="A memory of the same agent.")


class LinkOut(Schema):
    source_id: int
    target_id: int
    type: str
    created_by: str
    created_at: datetime
