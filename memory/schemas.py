"""Request and response shapes of the memory API (they also document it in OpenAPI)."""

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Schema
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from dewee.schemas import StrictDbId, StrictSchema, UnitFloat
from memory.models import FeedbackKind, MemoryType

if TYPE_CHECKING:
    # facts_learned's items: the facts app supplies the shape when it is ready
    # (learned_items_are, called from facts.apps), as memory does not import it.
    from facts.schemas import FactOut


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


class MemoryPolicyIn(BaseModel):
    """Validated by memory.services.policy (one set of rules for every interface), so the
    fields here only document the shape; anything else is refused there, by name. A plain
    pydantic model: ninja's Schema drops the extra keys the service must see to refuse."""

    model_config = ConfigDict(extra="allow")

    strategy: Any = Field(
        None,
        description="Decay strategy per memory type: exponential, linear, step_function, "
        "power_law, logarithmic or flat; types left out follow the server's.",
        examples=[{"working": "linear", "semantic": "flat"}],
    )
    default_ttl_seconds: Any = Field(
        None,
        description="TTL per memory type for memories stored without ttl_seconds or "
        "expires_at: null (none) or 1 s to 10 years.",
        examples=[{"working": 86400}],
    )
    spaced_repetition_factor: Any = Field(
        None,
        description="Each recall of a memory with an expiry extends it by access_count x "
        "factor x base_interval_seconds; 0 to 100, 0 turns it off (default 1.0).",
    )
    base_interval_seconds: Any = Field(
        None, description="1 s to one year (default 86400, one day)."
    )
    fact_half_life_days: Any = Field(
        None,
        description="Facts' freshness half-life in days per category (1 to 36,500); "
        "categories left out keep the server's (employment 180, location 365, ...).",
        examples=[{"employment": 90}],
    )
    end_expired_facts: Any = Field(
        None,
        description="End this agent's expired facts automatically (default false); "
        "audited as system:freshness.",
    )
    extract_facts: Any = Field(
        None,
        description="Learn facts from each new memory about a user, by the worker after the "
        "store (default true); a store request can also ask for it inline or not at all.",
    )
    extract_entities: Any = Field(
        None, description="Derive entities (tags, entity rows) from new memories (default true)."
    )
    entity_types: Any = Field(
        None, description="Keep only these entity types (default: all).", examples=[["person"]]
    )


class MemoryPolicyOut(Schema):
    strategy: dict[str, str]
    default_ttl_seconds: dict[str, int | None]
    spaced_repetition_factor: float
    base_interval_seconds: int
    extract_facts: bool
    extract_entities: bool
    entity_types: list[str]
    fact_half_life_days: dict[str, int]
    end_expired_facts: bool


class MemoryIn(StrictSchema):
    content: StrictStr = Field(description="At most 16,000 characters.")
    memory_type: MemoryType = MemoryType.EPISODIC
    importance: UnitFloat = 0.5
    tags: list[StrictStr] = Field(default_factory=list, description="At most 50, 100 chars each.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="At most 16 KiB as JSON.")
    session_id: StrictDbId | None = None
    user: StrictStr | None = Field(
        None, description="The user this memory is about; default: its session's user."
    )
    speaker: StrictStr | None = Field(
        None,
        description="Who said or wrote it (at most 200 characters); default: the name of a "
        'leading "Name: text"; "" for none.',
    )
    ttl_seconds: StrictInt | None = Field(
        None, description="Expire this many seconds from now: 1 s to 10 years."
    )
    expires_at: StrictStr | None = Field(
        None,
        description="ISO 8601; must be in the future. Later than 9999-01-01T00:00:00Z (the "
        "furthest expiry) is stored as that, and recalls never move an expiry past it.",
    )
    source_refs: list[StrictStr] = Field(default_factory=list)
    created_at: StrictStr | None = Field(None, description="ISO 8601; when it happened.")


LearningIn = Literal["sync", "async", "off"]
LEARNING_HELP = (
    "Learn facts from these memories: sync (before answering; the answer lists them), "
    "async (by the worker) or off. Default: the agent's policy (extract_facts)."
)


class StoreMemoryIn(MemoryIn):
    agent_id: StrictStr
    extract_facts: LearningIn | None = Field(None, description=LEARNING_HELP)


class BatchIn(StrictSchema):
    agent_id: StrictStr
    items: list[MemoryIn] = Field(description="1 to 1,000 memories, stored all or nothing.")
    extract_facts: LearningIn | None = Field(None, description=LEARNING_HELP)


class MemoryPatchIn(StrictSchema):
    content: StrictStr | None = None
    memory_type: MemoryType | None = None
    importance: UnitFloat | None = None
    tags: list[StrictStr] | None = None
    metadata: dict[str, Any] | None = None


class ForgetMemoriesIn(StrictSchema):
    agent_id: StrictStr
    ids: list[StrictDbId] | None = None
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
    user: str | None
    speaker: str | None
    ttl_seconds: int | None
    expires_at: datetime | None
    access_count: int
    last_accessed_at: datetime | None
    flagged_at: datetime | None = Field(description="When feedback marked it irrelevant.")
    created_at: datetime
    updated_at: datetime


class QuotaWarningOut(Schema):
    code: Literal["quota_warning"]
    message: str
    quota: Literal["memories", "storage_bytes", "metadata_bytes"]
    scope: Literal["agent", "workspace"]
    workspace: str
    agent_id: str | None
    limit: int
    usage: int = Field(description="The usage after this write.")
    mode: Literal["hard", "soft"]


QUOTA_WARNINGS = (
    "Soft quotas this write went over (it was written); also in the header Dewee-Quota-Warning."
)


class StoredOut(MemoryOut):
    session_state: Literal["active", "ended"] | None
    facts_learned: "list[FactOut] | None" = Field(
        None, description="With extract_facts=sync: the facts that cite this memory."
    )
    warnings: list[QuotaWarningOut] = Field(default_factory=list, description=QUOTA_WARNINGS)


class PatchedOut(MemoryOut):
    warnings: list[QuotaWarningOut] = Field(default_factory=list, description=QUOTA_WARNINGS)


class BatchOut(Schema):
    items: list[StoredOut]
    warnings: list[QuotaWarningOut] = Field(default_factory=list, description=QUOTA_WARNINGS)


def learned_items_are(schema: type[BaseModel]) -> None:
    """Complete the store answers with the shape of what is learned from a memory
    (memory.learned): ``schema`` for each item of ``facts_learned``."""
    for model in (StoredOut, BatchOut):
        model.model_rebuild(_types_namespace={"FactOut": schema, "StoredOut": StoredOut})


class MemoryPageOut(Schema):
    items: list[MemoryOut]
    next_cursor: str | None


class ForgetMemoriesOut(Schema):
    memories: int
    facts: int


class ConsolidateIn(StrictSchema):
    agent_id: StrictStr
    memory_ids: list[StrictDbId] = Field(description="2 to 100 memories of the agent.")
    content: StrictStr | None = Field(
        None, description="The merged text (default: the originals' texts, oldest first)."
    )
    memory_type: MemoryType | None = Field(
        None, description="Default: the originals' type when they share one, else semantic."
    )


class DeduplicateIn(StrictSchema):
    agent_id: StrictStr
    memory_type: MemoryType | None = Field(
        None, description="Only memories of this type (narrows agents of over 5,000)."
    )
    dry_run: StrictBool | None = Field(
        None,
        description="true: only preview. false: merge, but only with confirm (else 400).",
    )
    confirm: StrictBool = Field(False, description="Must be true to merge; otherwise a preview.")


class DuplicateGroupOut(Schema):
    kept: int
    merged: list[int]


class DeduplicateOut(Schema):
    agent_id: str
    candidates: int
    dry_run: bool
    merged: int
    groups: list[DuplicateGroupOut]


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


class SessionDeletedOut(Schema):
    sessions: int
    memories: int
    facts: int = Field(description="Facts learned only from the session's memories.")
