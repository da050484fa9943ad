"""What a caller claims about a slot and where it learned it, and the one check of both."""

from dataclasses import dataclass
from datetime import datetime

from dewee.errors import InvalidInput
from facts.models import (
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    VALUE_MAX_CHARS,
    Category,
    SourceKind,
    Verification,
)
from facts.rules import category_for
from facts.slots import Slot
from language.values import stored_value
from memory.exceptions import MemoryNotFound
from memory.models import Memory
from tenancy.models import Agent
from tenancy.validation import clean_choice, clean_text, clean_unit_interval, nfc_user


@dataclass(frozen=True, kw_only=True)
class Claim:
    """A value for the slot (user, subject, predicate, qualifier), and how far to trust it."""

    subject: str
    predicate: str
    value: str
    user: str = ""
    qualifier: str = ""
    verification: str = Verification.STATED
    confidence: float = 1.0
    # None: decided by the predicate (facts.rules.category_for).
    category: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None


@dataclass(frozen=True)
class SourceInput:
    kind: str
    reference: str = ""
    excerpt: str = ""
    operator: str = ""
    # A stored memory of the same agent the fact was learned from.
    memory_id: int | None = None


@dataclass(frozen=True)
class CheckedClaim:
    """A claim and its source after :func:`check_claim`: every text cleaned, the category
    decided, the source's memory loaded."""

    slot: Slot
    value: str
    verification: str
    confidence: float
    category: str
    valid_from: datetime | None
    valid_to: datetime | None
    source: SourceInput
    memory: Memory | None


def _source_memory(agent: Agent, memory_id: object) -> Memory | None:
    if memory_id is None:
        return None
    if isinstance(memory_id, bool) or not isinstance(memory_id, int):
        raise InvalidInput("source.memory_id", "must be a memory id (an integer)")
    memory = Memory.objects.filter(agent=agent, pk=memory_id).first()
    if memory is None:
        raise MemoryNotFound(f"Memory {memory_id} not found for this agent")
    return memory


def check_source(*, agent: Agent, source: SourceInput) -> tuple[SourceInput, Memory | None]:
    """The source cleaned: every text within its limits, a known kind, an operator named for
    an operator source, and a source memory of ``agent`` (loaded). A memory source with no
    reference or excerpt gets the memory's."""
    kind = clean_choice(source.kind, field="source.kind", choices=SourceKind.values)
    operator = clean_text(
        source.operator, field="source.operator", max_chars=KEY_MAX_CHARS, required=False
    )
    if kind == SourceKind.OPERATOR and not operator:
        raise InvalidInput("source.operator", "names the operator for an operator source")
    memory = _source_memory(agent, source.memory_id)
    cleaned = SourceInput(
        kind=kind,
        reference=clean_text(
            source.reference,
            field="source.reference",
            max_chars=KEY_MAX_CHARS,
            required=False,
        )
        or (f"memory:{memory.pk}" if memory else ""),
        excerpt=clean_text(
            source.excerpt, field="source.excerpt", max_chars=EXCERPT_MAX_CHARS, required=False
        )
        or (memory.content[:EXCERPT_MAX_CHARS] if memory else ""),
        operator=operator,
        memory_id=memory.pk if memory else None,
    )
    return cleaned, memory


def check_claim(*, agent: Agent, claim: Claim, source: SourceInput) -> CheckedClaim:
    """Every field within its limits, a known verification and category, a valid window in
    order, and a source as :func:`check_source` wants it."""
    predicate = clean_text(claim.predicate, field="predicate", max_chars=KEY_MAX_CHARS)
    category = category_for(predicate) if claim.category is None else claim.category
    if claim.valid_from and claim.valid_to and claim.valid_to < claim.valid_from:
        raise InvalidInput("valid_to", "must not be before valid_from")
    cleaned, memory = check_source(agent=agent, source=source)
    return CheckedClaim(
        slot=Slot(
            agent_id=agent.pk,
            user=nfc_user(
                clean_text(claim.user, field="user", max_chars=KEY_MAX_CHARS, required=False)
            ),
            subject=clean_text(claim.subject, field="subject", max_chars=KEY_MAX_CHARS),
            predicate=predicate,
            qualifier=clean_text(
                claim.qualifier, field="qualifier", max_chars=KEY_MAX_CHARS, required=False
            ),
        ),
        # Its stored form where the predicate has one (a phone number as E.164, an email
        # lower-cased; facts.values), as given where it cannot be read so.
        value=stored_value(
            predicate, clean_text(claim.value, field="value", max_chars=VALUE_MAX_CHARS)
        ),
        verification=clean_choice(
            claim.verification, field="verification", choices=Verification.values
        ),
        confidence=clean_unit_interval(claim.confidence, field="confidence"),
        category=clean_choice(category, field="category", choices=Category.values),
        valid_from=claim.valid_from,
        valid_to=claim.valid_to,
        source=cleaned,
        memory=memory,
    )
