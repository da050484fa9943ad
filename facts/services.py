"""Every write to facts goes through these functions, whatever the interface."""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactAlreadyDeleted, FactNotDisputed, SlotBusy
from facts.models import (
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    VALUE_MAX_CHARS,
    Category,
    Fact,
    FactQuerySet,
    FactSource,
    SourceKind,
    Status,
    Verification,
)
from facts.rules import category_for, normalise_value, stronger_verification, trust_key
from memory.exceptions import MemoryNotFound
from memory.models import Memory
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction, AuditEvent, ErasureReceipt
from tenancy.validation import clean_choice, clean_text, clean_unit_interval

# Attempts before a contended slot is reported as busy. Each retry sees the committed
# winner of the previous race, so more than a couple are only needed under heavy load.
_SLOT_ATTEMPTS = 8


class Outcome(StrEnum):
    CREATED = "created"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"


class Resolution(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"


@dataclass(frozen=True)
class SourceInput:
    kind: str
    reference: str = ""
    excerpt: str = ""
    operator: str = ""
    # A stored memory of the same agent the fact was learned from.
    memory_id: int | None = None


@dataclass(frozen=True)
class AssertResult:
    fact: Fact
    outcome: Outcome
    # The fact this one replaced (superseded), or the current value it waits against
    # (disputed); None otherwise.
    other: Fact | None = None


@dataclass(frozen=True)
class _Claim:
    user: str
    subject: str
    predicate: str
    qualifier: str
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


def _clean_claim(
    *,
    agent: Agent,
    user: str,
    subject: str,
    predicate: str,
    qualifier: str,
    value: str,
    verification: str,
    confidence: float,
    category: str | None,
    valid_from: datetime | None,
    valid_to: datetime | None,
    source: SourceInput,
) -> _Claim:
    predicate = clean_text(predicate, field="predicate", max_chars=KEY_MAX_CHARS)
    if category is None:
        category = category_for(predicate)
    if valid_from and valid_to and valid_to < valid_from:
        raise InvalidInput("valid_to", "must not be before valid_from")
    kind = clean_choice(source.kind, field="source.kind", choices=SourceKind.values)
    operator = clean_text(
        source.operator, field="source.operator", max_chars=KEY_MAX_CHARS, required=False
    )
    if kind == SourceKind.OPERATOR and not operator:
        raise InvalidInput("source.operator", "names the operator for an operator source")
    memory = _source_memory(agent, source.memory_id)
    return _Claim(
        user=clean_text(user, field="user", max_chars=KEY_MAX_CHARS, required=False),
        subject=clean_text(subject, field="subject", max_chars=KEY_MAX_CHARS),
        predicate=predicate,
        qualifier=clean_text(qualifier, field="qualifier", max_chars=KEY_MAX_CHARS, required=False),
        value=clean_text(value, field="value", max_chars=VALUE_MAX_CHARS),
        verification=clean_choice(verification, field="verification", choices=Verification.values),
        confidence=clean_unit_interval(confidence, field="confidence"),
        category=clean_choice(category, field="category", choices=Category.values),
        valid_from=valid_from,
        valid_to=valid_to,
        source=SourceInput(
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
        ),
        memory=memory,
    )


def _lock_slot(agent_pk: int, user: str, subject: str, predicate: str, qualifier: str) -> None:
    """Serialise writers of one slot until the transaction ends.

    PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the slot (a row lock
    cannot cover a slot that has no current fact yet). SQLite: transactions start with
    BEGIN IMMEDIATE (see settings), which already serialises every writer.
    """
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(
        "\x1f".join([str(agent_pk), user, subject, predicate, qualifier]).encode(), digest_size=8
    ).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest, "big", signed=True)]
        )


def _lock_fact_slot(fact: Fact) -> None:
    _lock_slot(fact.agent_id, fact.user_ref, fact.subject, fact.predicate, fact.qualifier)


def _add_source(fact: Fact, claim: _Claim, now: datetime) -> FactSource:
    return FactSource.objects.create(
        fact=fact,
        kind=claim.source.kind,
        reference=claim.source.reference,
        excerpt=claim.source.excerpt,
        operator=claim.source.operator,
        memory=claim.memory,
        verification=claim.verification,
        confidence=claim.confidence,
        recorded_at=now,
    )


def _retire(fact: Fact, *, status: Status, actor: str, reason: str, now: datetime) -> None:
    """Take ``fact`` out of use; a fact that was believed stops being believed now."""
    fields = ["status", "status_changed_by", "status_reason"]
    if fact.status == Status.CURRENT:
        fact.believed_until = now
        fields.append("believed_until")
    fact.status = status
    fact.status_changed_by = actor
    fact.status_reason = reason
    fact.save(update_fields=fields)


def _make_current(fact: Fact, *, actor: str, reason: str, now: datetime) -> None:
    fact.status = Status.CURRENT
    fact.believed_from = now
    fact.believed_until = None
    fact.status_changed_by = actor
    fact.status_reason = reason
    fact.save(
        update_fields=[
            "status",
            "believed_from",
            "believed_until",
            "status_changed_by",
            "status_reason",
        ]
    )


def _strengthen(fact: Fact, claim: _Claim, now: datetime) -> None:
    """Another source for the same value: it may raise verification and confidence, and it
    counts as a re-confirmation for freshness."""
    fact.verification = stronger_verification(fact.verification, claim.verification)
    fact.confidence = max(fact.confidence, claim.confidence)
    fact.last_confirmed_at = now
    fields = ["verification", "confidence", "last_confirmed_at"]
    if fact.valid_from is None and claim.valid_from is not None:
        fact.valid_from = claim.valid_from
        fields.append("valid_from")
    if fact.valid_to is None and claim.valid_to is not None:
        fact.valid_to = claim.valid_to
        fields.append("valid_to")
    fact.save(update_fields=fields)
    _add_source(fact, claim, now)


def _assert_in_locked_slot(agent: Agent, claim: _Claim, actor: str) -> AssertResult:
    now = timezone.now()
    slot = Fact.objects.filter(
        agent=agent,
        user_ref=claim.user,
        subject=claim.subject,
        predicate=claim.predicate,
        qualifier=claim.qualifier,
    )
    current = slot.current().first()
    wanted = normalise_value(claim.value)

    if current is not None and normalise_value(current.value) == wanted:
        _strengthen(current, claim, now)
        return AssertResult(fact=current, outcome=Outcome.CONFIRMED)

    pending = next(
        (f for f in slot.disputed().order_by("id") if normalise_value(f.value) == wanted), None
    )
    if pending is not None:
        # The value already waits for review: it gains the source, and wins the slot if the
        # combined evidence now trusts it at least as much as the current value.
        _strengthen(pending, claim, now)
        if current is None or trust_key(pending.verification, pending.confidence) >= trust_key(
            current.verification, current.confidence
        ):
            if current is not None:
                _retire(current, status=Status.HISTORY, actor=actor, reason="superseded", now=now)
            _make_current(pending, actor=actor, reason="corroborated", now=now)
            return AssertResult(fact=pending, outcome=Outcome.SUPERSEDED, other=current)
        return AssertResult(fact=pending, outcome=Outcome.DISPUTED, other=current)

    new = Fact(
        agent=agent,
        user_ref=claim.user,
        subject=claim.subject,
        predicate=claim.predicate,
        qualifier=claim.qualifier,
        value=claim.value,
        valid_from=claim.valid_from,
        valid_to=claim.valid_to,
        category=claim.category,
        verification=claim.verification,
        confidence=claim.confidence,
        recorded_at=now,
        last_confirmed_at=now,
        status_changed_by=actor,
    )
    if current is None:
        outcome = Outcome.CREATED
    elif trust_key(claim.verification, claim.confidence) >= trust_key(
        current.verification, current.confidence
    ):
        outcome = Outcome.SUPERSEDED
    else:
        outcome = Outcome.DISPUTED

    if outcome == Outcome.DISPUTED:
        new.status = Status.DISPUTED
        new.status_reason = "less trusted than the current value"
    else:
        if current is not None:
            # Retire first: the one-current-per-slot index is checked per statement.
            _retire(current, status=Status.HISTORY, actor=actor, reason="superseded", now=now)
        new.status = Status.CURRENT
        new.believed_from = now
    new.save()
    _add_source(new, claim, now)
    return AssertResult(fact=new, outcome=outcome, other=current)


def assert_fact(
    *,
    agent: Agent,
    subject: str,
    predicate: str,
    value: str,
    source: SourceInput,
    actor: str,
    user: str = "",
    qualifier: str = "",
    verification: str = Verification.STATED,
    confidence: float = 1.0,
    category: str | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
) -> AssertResult:
    """Record a value for the slot (agent, user, subject, predicate, qualifier).

    Invariants: at most one current fact per slot; the same value (compared normalised)
    confirms the current fact and adds the source; a different value at least as trusted
    becomes current and the old one history; a less trusted value is stored disputed.
    Concurrent callers on one slot are serialised; a lost race is retried here, so callers
    only see ``slot_busy`` under extreme contention.
    """
    claim = _clean_claim(
        agent=agent,
        user=user,
        subject=subject,
        predicate=predicate,
        qualifier=qualifier,
        value=value,
        verification=verification,
        confidence=confidence,
        category=category,
        valid_from=valid_from,
        valid_to=valid_to,
        source=source,
    )
    for _attempt in range(_SLOT_ATTEMPTS):
        try:
            with transaction.atomic():
                _lock_slot(agent.pk, claim.user, claim.subject, claim.predicate, claim.qualifier)
                return _assert_in_locked_slot(agent, claim, actor)
        except IntegrityError:
            continue
    raise SlotBusy("The slot is being changed by other writers; retry the request")


def _locked_fact(fact: Fact) -> Fact:
    _lock_fact_slot(fact)
    return Fact.objects.select_for_update().get(pk=fact.pk)


@transaction.atomic
def resolve_fact(*, fact: Fact, action: str, actor: str, reason: str = "") -> Fact:
    """Settle a disputed fact. Accept: it becomes current and the current value becomes
    history. Reject: it is kept as rejected, for audit, and the current value stays."""
    resolution = Resolution(clean_choice(action, field="action", choices=list(Resolution)))
    reason = clean_text(reason, field="reason", max_chars=1000, required=False)
    fact = _locked_fact(fact)
    if fact.status != Status.DISPUTED:
        raise FactNotDisputed(f"Fact {fact.pk} is {fact.status}, not disputed")
    now = timezone.now()
    replaced = None
    if resolution == Resolution.ACCEPT:
        replaced = Fact.objects.in_slot(fact).current().first()
        if replaced is not None:
            _retire(
                replaced,
                status=Status.HISTORY,
                actor=actor,
                reason=f"replaced by accepted fact {fact.pk}",
                now=now,
            )
        _make_current(fact, actor=actor, reason=reason or "accepted", now=now)
    else:
        _retire(fact, status=Status.REJECTED, actor=actor, reason=reason or "rejected", now=now)
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_RESOLVE,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "action": resolution.value,
            "reason": reason,
            "user": fact.user_ref,
            "subject": fact.subject,
            "replaced_fact": replaced.pk if replaced else None,
        },
    )
    return fact


@transaction.atomic
def delete_fact(*, fact: Fact, actor: str, reason: str = "") -> Fact:
    """Soft delete: the fact leaves use (and stops being believed) but its record stays,
    with who deleted it and why."""
    reason = clean_text(reason, field="reason", max_chars=1000, required=False)
    fact = _locked_fact(fact)
    if fact.status == Status.DELETED:
        raise FactAlreadyDeleted(f"Fact {fact.pk} is already deleted")
    previous = fact.status
    _retire(fact, status=Status.DELETED, actor=actor, reason=reason, now=timezone.now())
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_DELETE,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "reason": reason,
            "previous_status": previous,
            "user": fact.user_ref,
            "subject": fact.subject,
        },
    )
    return fact


def _forget_scope(user: str | None, subject: str | None) -> dict[str, str]:
    if (user is None) == (subject is None):
        raise InvalidInput("scope", "give exactly one of user or subject")
    if user is not None:
        return {"user": clean_text(user, field="user", max_chars=KEY_MAX_CHARS)}
    return {"subject": clean_text(subject, field="subject", max_chars=KEY_MAX_CHARS)}


def _scoped_facts(agent: Agent, scope: dict[str, str]) -> FactQuerySet:
    if "user" in scope:
        return Fact.objects.filter(agent=agent, user_ref=scope["user"])
    return Fact.objects.filter(agent=agent, subject=scope["subject"])


def _scoped_events(agent: Agent, scope: dict[str, str]) -> QuerySet[AuditEvent]:
    key = "details__user" if "user" in scope else "details__subject"
    value = scope["user"] if "user" in scope else scope["subject"]
    return AuditEvent.objects.filter(agent=agent, target_type="fact", **{key: value})


def count_forgettable(*, agent: Agent, user: str | None = None, subject: str | None = None) -> dict:
    """What ``forget_facts`` would erase, by kind, without erasing anything."""
    scope = _forget_scope(user, subject)
    facts = _scoped_facts(agent, scope)
    by_status = dict(facts.values_list("status").annotate(n=Count("id")).order_by())
    counts = {status: by_status.get(status, 0) for status in Status.values}
    return {
        "facts": sum(counts.values()),
        **counts,
        "sources": FactSource.objects.filter(fact__in=facts).count(),
        "audit_events": _scoped_events(agent, scope).count(),
    }


@transaction.atomic
def forget_facts(
    *, agent: Agent, actor: str, user: str | None = None, subject: str | None = None
) -> ErasureReceipt:
    """Erase for good every fact about one user or one subject of ``agent``: current,
    history, disputed, rejected and deleted, with their sources and the audit events about
    them. Only the receipt (scope, counts, who, when) remains."""
    scope = _forget_scope(user, subject)
    counts = count_forgettable(agent=agent, **scope)
    facts = _scoped_facts(agent, scope)
    FactSource.objects.filter(fact__in=facts).delete()
    facts.delete()
    _scoped_events(agent, scope).delete()
    receipt = ErasureReceipt.objects.create(
        workspace_id=agent.workspace_id,
        agent=agent,
        agent_ref=agent.agent_id,
        scope=scope,
        counts=counts,
        actor=actor,
    )
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.FACTS_FORGET,
        target_type="erasure",
        target_id=str(receipt.pk),
        details={"scope_kind": next(iter(scope)), "counts": counts},
    )
    return receipt


def erase_facts_learned_only_from(*, memory_ids: list[int]) -> int:
    """For memories about to be deleted: erase the facts whose every source is one of
    them (with their sources and audit events), and drop these memories' sources from
    facts that have other evidence. Returns how many facts were erased. Runs inside the
    caller's transaction."""
    touched = FactSource.objects.filter(memory_id__in=memory_ids).values("fact_id")
    other_evidence = FactSource.objects.filter(fact_id=OuterRef("pk")).exclude(
        memory_id__in=memory_ids
    )
    only_from = Fact.objects.filter(pk__in=touched).exclude(Exists(other_evidence))
    erased_ids = [str(pk) for pk in only_from.values_list("pk", flat=True)]
    if erased_ids:
        AuditEvent.objects.filter(target_type="fact", target_id__in=erased_ids).delete()
        Fact.objects.filter(pk__in=[int(pk) for pk in erased_ids]).delete()
    FactSource.objects.filter(memory_id__in=memory_ids).delete()
    return len(erased_ids)
