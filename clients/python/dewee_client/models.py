"""What the agent API returns, as frozen dataclasses.

Each model names the schema component it mirrors (``COMPONENT``); tests/client/test_schema.py
loads the live ``/v1/openapi.json`` and fails when a model and its component differ in their
fields or in which fields are always there (a field the schema does not require has a
default here). Fields the server adds later are ignored when reading a response, so an
older client keeps working against a newer server.
"""

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

JSON = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Model:
    COMPONENT: ClassVar[str] = ""

    @classmethod
    def from_dict(cls, data: JSON) -> typing.Self:
        return typing.cast(typing.Self, _convert(cls, data))


@dataclass(frozen=True, kw_only=True)
class QuotaWarning(Model):
    COMPONENT = "QuotaWarningOut"
    code: str
    message: str
    quota: str
    scope: str
    workspace: str
    agent_id: str | None
    limit: int
    usage: int
    mode: str


@dataclass(frozen=True, kw_only=True)
class Memory(Model):
    COMPONENT = "MemoryOut"
    id: int
    agent_id: str
    content: str
    memory_type: str
    importance: float
    tags: list[str]
    entities: list[str]
    metadata: JSON
    source_refs: list[str]
    session_id: int | None
    user: str | None
    speaker: str | None
    ttl_seconds: int | None
    expires_at: str | None
    access_count: int
    last_accessed_at: str | None
    flagged_at: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, kw_only=True)
class Fact(Model):
    COMPONENT = "FactOut"
    id: int
    agent_id: str
    user: str | None
    subject: str
    predicate: str
    qualifier: str | None
    value: str
    display: str | None = None
    status: str
    status_now: str
    verification: str
    confidence: float
    category: str
    valid_from: str | None
    valid_to: str | None
    in_force: bool
    recorded_at: str
    last_confirmed_at: str
    believed_from: str | None
    believed_until: str | None
    disputed_until: str | None
    deleted_at: str | None = None
    restored_at: str | None = None
    access_count: int
    last_accessed_at: str | None
    freshness: float
    freshness_label: str
    days_until_stale: float | None
    status_changed_by: str | None
    status_reason: str | None


@dataclass(frozen=True, kw_only=True)
class FactSource(Model):
    COMPONENT = "SourceOut"
    kind: str
    reference: str | None
    excerpt: str | None
    operator: str | None
    memory_id: int | None = None
    verification: str
    confidence: float
    recorded_at: str


@dataclass(frozen=True, kw_only=True)
class FactEvent(Model):
    COMPONENT = "EventOut"
    action: str
    actor: str
    details: JSON
    created_at: str


@dataclass(frozen=True, kw_only=True)
class FactPeriod(Model):
    """One stretch of time in which a fact had one status, and what began it."""

    COMPONENT = "PeriodOut"
    status: str
    change: str
    started_at: str
    started_known: bool
    ended_at: str | None
    actor: str


@dataclass(frozen=True, kw_only=True)
class FactDetail(Fact):
    """A fact with its sources, its earlier values, its status over time and what happened
    to it."""

    COMPONENT = "FactDetailOut"
    sources: list[FactSource]
    history: list[Fact]
    periods: list[FactPeriod]
    events: list[FactEvent]


@dataclass(frozen=True, kw_only=True)
class StoredMemory(Memory):
    """A memory just stored, with the facts learned from it and any quota warnings."""

    COMPONENT = "StoredOut"
    session_state: str | None
    facts_learned: list[Fact] | None = None
    warnings: list[QuotaWarning] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class PatchedMemory(Memory):
    COMPONENT = "PatchedOut"
    warnings: list[QuotaWarning] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class BatchResult(Model):
    COMPONENT = "BatchOut"
    items: list[StoredMemory]
    warnings: list[QuotaWarning] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class RecallHit(Memory):
    """A recalled memory, its score and (with ``explain=True``) the score's parts."""

    COMPONENT = "RecallHitOut"
    score: float
    explanation: JSON | None = None


@dataclass(frozen=True, kw_only=True)
class RecallResult(Model):
    COMPONENT = "RecallOut"
    query_class: str
    routing: str
    items: list[RecallHit]


@dataclass(frozen=True, kw_only=True)
class Context(Model):
    """Everything for the next turn within a token budget; ``prompt`` is the block to give
    the model."""

    COMPONENT = "ContextOut"
    working: list[Memory]
    episodic: list[JSON]
    facts: list[JSON]
    entities: list[JSON]
    prompt: str
    budget_tokens: int
    used_tokens: int


@dataclass(frozen=True, kw_only=True)
class Session(Model):
    COMPONENT = "SessionOut"
    id: int
    agent_id: str
    user: str | None
    state: str
    metadata: JSON
    started_at: str
    last_activity_at: str
    ended_at: str | None
    ended_reason: str | None
    summary: str | None
    idle_timeout_secs: int | None
    memory_count: int


@dataclass(frozen=True, kw_only=True)
class AssertResult(Model):
    """``outcome``: created, confirmed, superseded, disputed...; ``other``: the fact it met."""

    COMPONENT = "AssertOut"
    outcome: str
    fact: Fact
    other: Fact | None = None


@dataclass(frozen=True, kw_only=True)
class Contradiction(Model):
    COMPONENT = "ContradictionOut"
    fact: FactDetail
    predicate: str
    qualifier: str
    old_value: str
    new_value: str | None
    valid_from: str | None
    evidence: str
    confidence: float
    level: str


@dataclass(frozen=True, kw_only=True)
class Confirmation(Model):
    COMPONENT = "ConfirmationOut"
    fact: FactDetail
    evidence: str
    confidence: float
    level: str


@dataclass(frozen=True, kw_only=True)
class NewFact(Model):
    COMPONENT = "NewFactOut"
    subject: str
    predicate: str
    qualifier: str
    value: str
    category: str
    verification: str
    confidence: float
    evidence: str
    valid_from: str | None
    level: str


@dataclass(frozen=True, kw_only=True)
class SuggestedAction(Model):
    COMPONENT = "SuggestedActionOut"
    action: str
    fact_id: int | None
    predicate: str
    qualifier: str
    value: str | None
    valid_from: str | None


@dataclass(frozen=True, kw_only=True)
class AppliedAction(Model):
    COMPONENT = "AppliedOut"
    action: str
    outcome: str
    fact: FactDetail


@dataclass(frozen=True, kw_only=True)
class CheckResult(Model):
    """What a text contradicts, confirms and adds among a user's facts (and, with
    ``apply=True``, what was written)."""

    COMPONENT = "CheckOut"
    contradicted: list[Contradiction]
    confirmed: list[Confirmation]
    new: list[NewFact]
    suggested_actions: list[SuggestedAction]
    applied: list[AppliedAction]


@dataclass(frozen=True, kw_only=True)
class ForgetResult(Model):
    """How many memories, and facts learned only from them, were deleted."""

    COMPONENT = "ForgetMemoriesOut"
    memories: int
    facts: int


@dataclass(frozen=True, kw_only=True)
class ForgetReceipt(Model):
    COMPONENT = "ReceiptOut"
    id: str
    agent_id: str
    scope: dict[str, str]
    counts: dict[str, int]
    actor: str
    created_at: str


@dataclass(frozen=True, kw_only=True)
class ForgetPreview(Model):
    COMPONENT = "ForgetPreviewOut"
    dry_run: bool
    scope: dict[str, str]
    counts: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class Agent(Model):
    COMPONENT = "AgentOut"
    agent_id: str
    workspace: str
    name: str | None
    metadata: JSON
    created_at: str


MODELS: tuple[type[Model], ...] = tuple(
    model
    for model in list(globals().values())
    if isinstance(model, type) and issubclass(model, Model) and model.COMPONENT
)


def _convert(kind: Any, value: Any) -> Any:
    """``value`` (decoded JSON) as ``kind``: dataclasses field by field, lists and dicts
    item by item, anything else as it came."""
    if value is None:
        return None
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        known = {f.name for f in dataclasses.fields(kind) if f.init}
        return kind(
            **{name: _convert(hints[name], v) for name, v in value.items() if name in known}
        )
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        options = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if origin is list:
        (item,) = typing.get_args(kind)
        return [_convert(item, v) for v in value]
    return value
