"""Request and response shapes of the memory API (they also document it in OpenAPI)."""

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from memory.models import MemoryType

UnitFloat = Annotated[StrictFloat, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class StrictSchema(Schema):
    model_config = ConfigDict(extra="forbid")


class AgentIn(StrictSchema):
    agent_id: StrictStr = Field(description="Unique in the deployment; at most 241 bytes.")
    name: StrictStr = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class AgentOut(Schema):
    agent_id: str
    workspace: str
    name: str | None
    metadata: dict[str, Any]
    created_at: datetime


class MemoryIn(StrictSchema):
    content: StrictStr = Field(description="At most 16,000 characters.")
    memory_type: MemoryType = MemoryType.EPISODIC
    importance: UnitFloat = 0.5
    tags: list[StrictStr] = Field(default_factory=list, description="At most 50, 100 chars each.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="At most 16 KiB as JSON.")
    session_id: StrictInt | None = None
    ttl_seconds: StrictInt | None = Field(None, description="Expire this many seconds from now.")
    expires_at: StrictStr | None = Field(None, description="ISO 8601; must be in the future.")
    source_refs: list[StrictStr] = Field(default_factory=list)
    created_at: StrictStr | None = Field(None, description="ISO 8601; when it happened.")


class StoreMemoryIn(MemoryIn):
    agent_id: StrictStr


class BatchIn(StrictSchema):
    agent_id: StrictStr
    items: list[MemoryIn] = Field(description="1 to 1,000 memories, stored all or nothing.")


class MemoryPatchIn(StrictSchema):
    content: StrictStr | None = None
    memory_type: MemoryType | None = None
    importance: UnitFloat | None = None
    tags: list[StrictStr] | None = None
    metadata: dict[str, Any] | None = None


class ForgetMemoriesIn(StrictSchema):
    agent_id: StrictStr
    ids: list[StrictInt] | None = None
    tags: list[StrictStr] | None = None
    below_importance: UnitFloat | None = None


class MemoryOut(Schema):
    id: int
    agent_id: str
    content: str
    memory_type: MemoryType
    importance: float
    tags: list[str]
    entities: list[str]
    metadata: dict[str, Any]
    source_refs: list[str]
    session_id: int | None
    ttl_seconds: int | None
    expires_at: datetime | None
    access_count: int
    last_accessed_at: datetime | None
    created_at: datetime
    updated_at: datetime


class StoredOut(MemoryOut):
    session_state: Literal["active", "ended"] | None


class BatchOut(Schema):
    items: list[StoredOut]


class MemoryPageOut(Schema):
    items: list[MemoryOut]
    next_cursor: str | None


class ForgetMemoriesOut(Schema):
    memories: int
    facts: int


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
    session_id: StrictInt | None = None
    tags: list[StrictStr] = Field(default_factory=list)
    memory_type: MemoryType | None = None
    min_importance: UnitFloat | None = None
    since: StrictStr | None = None
    until: StrictStr | None = None
    explain: StrictBool = False
    rerank: StrictBool = Field(True, description="Use the configured reranker, if any.")


class RecallHitOut(MemoryOut):
    score: float
    explanation: dict[str, Any] | None = None


class RecallOut(Schema):
    query_class: str
    routing: str
    items: list[RecallHitOut]


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


class ContextIn(StrictSchema):
    agent_id: StrictStr
    query: StrictStr = ""
    user: StrictStr = ""
    session_id: StrictInt | None = None
    budget_tokens: StrictInt = Field(2000, description="50 to 32,000 (about 4 chars a token).")
    top_k: StrictInt = 10


class ContextOut(Schema):
    working: list[MemoryOut]
    episodic: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    prompt: str
    budget_tokens: int
    used_tokens: int
