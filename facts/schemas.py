"""Request and response shapes of the facts API (they also document it in OpenAPI)."""

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from ninja import Schema
from pydantic import Field, StrictBool, StrictStr

from dewee.schemas import StrictDbId, StrictSchema, UnitFloat
from dewee.timeparse import parse_time
from facts.models import Category, SourceKind, Status, Verification

if TYPE_CHECKING:
    from facts.services.claims import Claim


class SourceIn(StrictSchema):
    kind: SourceKind = Field(description="Where the fact was learned.")
    reference: StrictStr = Field("", description="Id of the stored item (message, memory...).")
    excerpt: StrictStr = Field("", description="The words the fact was learned from.")
    operator: StrictStr = Field("", description="The operator, for kind=operator.")
    memory_id: StrictDbId | None = Field(
        None, description="A stored memory of the same agent the fact was learned from."
    )


class FactAssertIn(StrictSchema):
    agent_id: StrictStr
    user: StrictStr | None = Field(None, description="The user the fact is about.")
    subject: StrictStr
    predicate: StrictStr
    qualifier: StrictStr | None = Field(None, description="For multi-valued slots.")
    value: StrictStr = Field(
        description="At most 4,096 characters. Stored forms: a phone number as E.164 when it "
        "has a country code or DEWEE_PHONE_REGION is set (else as typed, tidied); an email "
        'lower-cased; a birthday as ISO 8601, "YYYY-MM-DD" or "--MM-DD" without a year. A '
        "value that cannot be read so is kept as given."
    )
    verification: Verification = Verification.STATED
    confidence: UnitFloat = 1.0
    category: Category | None = Field(None, description="Default: inferred from predicate.")
    valid_from: StrictStr | None = Field(None, description="ISO 8601 time.")
    valid_to: StrictStr | None = Field(None, description="ISO 8601 time.")
    source: SourceIn

    def claim(self) -> "Claim":
        """What this asks to assert, its times parsed (invalid_time when malformed)."""
        from facts.services.claims import Claim

        return Claim(
            user=self.user or "",
            subject=self.subject,
            predicate=self.predicate,
            qualifier=self.qualifier or "",
            value=self.value,
            verification=self.verification,
            confidence=self.confidence,
            category=self.category,
            valid_from=parse_time(self.valid_from, field="valid_from"),
            valid_to=parse_time(self.valid_to, field="valid_to"),
        )


class FactCheckIn(StrictSchema):
    agent_id: StrictStr
    user: StrictStr = Field(description="The user who wrote the text: its facts are checked.")
    text: StrictStr = Field(description="The user's own words, at most 20,000 characters.")
    apply: StrictBool = Field(False, description="Carry out the suggested actions.")
    source: SourceIn | None = Field(
        None, description="Where the text comes from. Default: a conversation summary."
    )
    now: StrictStr | None = Field(
        None, description="ISO 8601: check as of this time (to replay a timeline)."
    )


class ResolveIn(StrictSchema):
    action: Literal["accept", "reject"]
    reason: StrictStr = ""


class ReopenIn(StrictSchema):
    reason: StrictStr = Field("", description="Why the rejected value is taken back.")


class ForgetIn(StrictSchema):
    agent_id: StrictStr
    user: StrictStr | None = Field(None, description="Every fact about this user.")
    subject: StrictStr | None = Field(
        None, description="Every fact about this subject; with user, that user's only."
    )
    dry_run: bool = Field(False, description="Only count what would be erased.")
    confirm: bool = Field(False, description="Must be true to erase.")


class FactOut(Schema):
    id: int
    agent_id: str
    user: str | None
    subject: str
    predicate: str
    qualifier: str | None
    value: str
    display: str | None = Field(
        None,
        description="The value as a person reads it, where that differs from the stored "
        'form: a birthday "14 February" (stored "--02-14") or "9 March 1988" ("1988-03-09").',
    )
    status: Status = Field(description="In a list as_of a time: the status it had then.")
    status_now: Status = Field(description="The status it has now.")
    verification: Verification
    confidence: float
    category: Category
    valid_from: datetime | None
    valid_to: datetime | None
    in_force: bool = Field(
        description="Whether it is the value in force now: current in its valid window, or "
        "a value handed over to one that holds from a later date (history, until its valid_to)."
    )
    recorded_at: datetime
    last_confirmed_at: datetime
    believed_from: datetime | None
    believed_until: datetime | None
    disputed_until: datetime | None = Field(description="When it stopped waiting for review.")
    deleted_at: datetime | None = Field(None, description="When it was last deleted.")
    restored_at: datetime | None = Field(None, description="When it was last restored.")
    access_count: int = Field(description="Times it was served to the agent.")
    last_accessed_at: datetime | None
    freshness: float = Field(description="0..1: age since confirmed, offset by use.")
    freshness_label: Literal["fresh", "aging", "stale", "expired"]
    days_until_stale: float | None = Field(
        description="Days until it turns stale if nothing happens; 0 if it is; null: never."
    )
    status_changed_by: str | None
    status_reason: str | None


class SourceOut(Schema):
    kind: SourceKind
    reference: str | None
    excerpt: str | None
    operator: str | None
    memory_id: int | None = Field(None, description="The stored memory it was learned from.")
    verification: Verification
    confidence: float
    recorded_at: datetime


class EventOut(Schema):
    action: str
    actor: str
    details: dict[str, Any]
    created_at: datetime


class PeriodOut(Schema):
    status: Status
    change: str = Field(
        description="What began it: recorded, superseded, ended, called_off, accepted, "
        "rejected, corroborated, undone, resumed, reopened, deleted, restored, "
        "replaced_by_erased."
    )
    started_at: datetime
    started_known: bool = Field(
        description="False for a change older than this record whose time is unknown: "
        "counted from the earliest it can have happened (started_at)."
    )
    ended_at: datetime | None
    actor: str


class FactDetailOut(FactOut):
    sources: list[SourceOut]
    history: list[FactOut]
    periods: list[PeriodOut] = Field(
        description="This fact's status over time, one period after another from its "
        "recording: what the agent held at every instant."
    )
    events: list[EventOut]


class AssertOut(Schema):
    outcome: Literal["created", "confirmed", "superseded", "disputed"]
    fact: FactOut
    other: FactOut | None = Field(
        None, description="The fact superseded, or the current value a disputed one waits on."
    )


class RestoreIn(StrictSchema):
    reason: StrictStr = Field("", description="Kept in the audit event.")


class RestoreOut(Schema):
    outcome: Literal["current", "disputed", "history"] = Field(
        description="Where the trust rules placed it, as if asserted now: the slot's current "
        "value, a disputed value waiting for review, or history (the current value already "
        "says the same, or its valid window has ended)."
    )
    fact: FactDetailOut
    other: FactOut | None = Field(
        None,
        description="The fact it replaced (now history), the current value it waits on, or "
        "the current value that already says the same; null when the slot had none.",
    )


class ChangeOut(Schema):
    kind: Literal[
        "added",
        "disputed",
        "resolved",
        "superseded",
        "ended",
        "called_off",
        "undone",
        "resumed",
        "reopened",
        "deleted",
        "restored",
    ]
    at: datetime = Field(description="When it happened.")
    time_known: bool = Field(
        True,
        description="False for a deletion older than dated deletions: `at` is then the "
        "earliest it can have happened.",
    )
    resolution: Literal["accepted", "rejected"] | None = Field(
        None, description="For a resolved dispute: how it was settled."
    )
    fact: FactOut = Field(description="The fact as it is now.")


class ChangePageOut(Schema):
    items: list[ChangeOut]
    next_cursor: str | None


class FactPageOut(Schema):
    items: list[FactOut]
    next_cursor: str | None


class ReceiptOut(Schema):
    id: str
    agent_id: str
    scope: dict[str, str]
    counts: dict[str, int]
    actor: str
    created_at: datetime


class ForgetPreviewOut(Schema):
    dry_run: Literal[True]
    scope: dict[str, str]
    counts: dict[str, int]


Level = Literal["pattern", "semantic", "value"]


class ContradictionOut(Schema):
    fact: FactDetailOut
    predicate: str
    qualifier: str
    old_value: str
    new_value: str | None = Field(description="null: the text ends the fact.")
    valid_from: datetime | None = Field(
        description="A future change (or ending) takes effect then; null: now."
    )
    evidence: str
    confidence: float
    level: Level


class ConfirmationOut(Schema):
    fact: FactDetailOut
    evidence: str
    confidence: float
    level: Level


class NewFactOut(Schema):
    subject: str
    predicate: str
    qualifier: str
    value: str
    category: Category
    verification: Verification
    confidence: float
    evidence: str
    valid_from: datetime | None = Field(description="A future change holds from then.")
    level: Level


class SuggestedActionOut(Schema):
    action: Literal["ADD", "UPDATE", "END", "CONFIRM", "DISPUTE", "CANCEL", "RESCHEDULE", "NONE"]
    fact_id: int | None
    predicate: str
    qualifier: str
    value: str | None
    valid_from: datetime | None = Field(description="When the action takes effect; null: now.")


class AppliedOut(Schema):
    action: Literal["ADD", "UPDATE", "END", "CONFIRM", "DISPUTE", "CANCEL", "RESCHEDULE"]
    outcome: Literal[
        "created", "superseded", "confirmed", "disputed", "ended", "cancelled", "moved"
    ]
    fact: FactDetailOut


class CheckOut(Schema):
    contradicted: list[ContradictionOut]
    confirmed: list[ConfirmationOut]
    new: list[NewFactOut]
    suggested_actions: list[SuggestedActionOut]
    applied: list[AppliedOut] = Field(description="Empty unless apply is true.")
