"""The REST shapes of memories: storing one or a batch, reading, changing, forgetting,
consolidating and deduplicating them."""

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Schema
from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

from dewee.schemas import StrictDbId, StrictSchema, UnitFloat
from memory.models import MemoryType

if TYPE_CHECKING:
    # facts_learned's items: the facts app supplies the shape when it is ready
    # (learned_items_are, called from facts.apps), as memory does not import it.
    from facts.schemas import FactOut


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
