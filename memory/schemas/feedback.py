"""The REST shapes of feedback on recalled memories, and of its reports."""

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import (
    Field,
    StrictStr,
)

from dewee.schemas import StrictSchema
from memory.models import FeedbackKind
from memory.schemas.memories import MemoryOut


class FeedbackIn(StrictSchema):
    kind: FeedbackKind = Field(
        description="upvote: importance + 0.05 + 5% of it (max 1), counts as an access; "
        "downvote: importance - 0.15 (min 0); flag: irrelevant, demoted in recall; "
        "unflag: takes a flag back."
    )
    note: StrictStr = Field("", description="At most 1,000 characters.")


class FeedbackOut(Schema):
    id: int
    memory_id: int
    kind: FeedbackKind
    note: str | None
    actor: str
    importance_before: float
    importance_after: float
    created_at: datetime


class FeedbackResultOut(Schema):
    memory: MemoryOut
    feedback: FeedbackOut


class FeedbackPageOut(Schema):
    items: list[FeedbackOut]
    next_cursor: str | None


class FeedbackCountsOut(Schema):
    upvote: int
    downvote: int
    flag: int
    unflag: int


class FeedbackTotalsOut(FeedbackCountsOut):
    total: int


class FeedbackMemoryCountsOut(Schema):
    memory_id: int
    content: str = Field(description="The first 120 characters.")
    upvotes: int
    downvotes: int
    flags: int


class FeedbackSummaryCountsOut(Schema):
    all_time: FeedbackCountsOut
    last_7_days: FeedbackCountsOut


class FeedbackSummaryOut(Schema):
    agent_id: str
    counts: FeedbackSummaryCountsOut
    flagged_now: int
    most_upvoted: list[FeedbackMemoryCountsOut]
    most_downvoted: list[FeedbackMemoryCountsOut]
    most_flagged: list[FeedbackMemoryCountsOut]


class FeedbackAgentOut(Schema):
    agent_id: str
    negative: int
    total: int


class FeedbackThresholdsOut(Schema):
    min_feedback_7d: int
    negative_share: float


class FeedbackHealthOut(Schema):
    last_24h: FeedbackTotalsOut
    last_7d: FeedbackTotalsOut
    negative_share_7d: float | None
    status: Literal["ok", "attention"]
    thresholds: FeedbackThresholdsOut
    agents_most_negative: list[FeedbackAgentOut]
