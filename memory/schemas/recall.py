"""The REST shapes of recall: the query with its filters and weights, and the hits."""

from typing import Any, Literal

from ninja import Schema
from pydantic import (
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from dewee.schemas import StrictDbId, StrictSchema, UnitFloat
from memory.models import MemoryType
from memory.schemas.memories import MemoryOut


class ScoreWeightsIn(StrictSchema):
    relevance: UnitFloat = 0.8
    importance: UnitFloat = 0.1
    recency: UnitFloat = 0.1


class RecallIn(StrictSchema):
    agent_id: StrictStr
    query: StrictStr
    top_k: StrictInt = Field(10, description="1 to 100.")
    routing: Literal["auto", "vector", "keyword", "hybrid"] = "auto"
    fusion: Literal["minmax", "rrf"] = "minmax"
    weights: ScoreWeightsIn = Field(default_factory=ScoreWeightsIn)
    session_id: StrictDbId | None = None
    tags: list[StrictStr] = Field(default_factory=list)
    memory_type: MemoryType | None = None
    min_importance: UnitFloat | None = None
    max_importance: UnitFloat | None = None
    since: StrictStr | None = None
    until: StrictStr | None = None
    explain: StrictBool = Field(
        False,
        description="Give each item its explanation: the signals behind its score. Without "
        "it, explanation is null and none is computed.",
    )
    rerank: StrictBool = Field(
        True,
        description=(
            "Order the best candidates with the learned ranker and the configured "
            "cross-encoder, if any; false keeps the first stage's order."
        ),
    )
    user: StrictStr | None = Field(
        None,
        description="Recall for this user: their memories and the agent's shared ones (stored "
        "with no user), never another user's. Without it (and without scope all_users), only "
        "the shared memories come back.",
    )
    scope: Literal["user", "all_users"] = Field(
        "user",
        description="all_users: search every user's memories too (needs an admin key; not "
        "with user).",
    )


class RecallHitOut(MemoryOut):
    score: float
    explanation: dict[str, Any] | None = None


class RecallOut(Schema):
    query_class: str
    routing: str
    items: list[RecallHitOut]
