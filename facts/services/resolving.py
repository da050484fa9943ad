"""A person's decisions on one fact: accept or reject a disputed value, delete a wrong one.
Each is audited with who and why."""

from enum import StrEnum

from django.db import transaction
from django.utils import timezone

from dewee.metrics import count_dispute_settled
from facts.exceptions import FactAlreadyDeleted, FactNotDisputed
from facts.models import Change, Fact, Status
from facts.services.erasure import forget_keys
from facts.services.transitions import lock_slot, make_current, retire
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_choice, clean_text


class Resolution(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"


def _locked_fact(fact: Fact) -> Fact:
    """``fact`` read again under its slot's lock, as it stands now."""
    lock_slot(fact.slot)
    return Fact.objects.select_for_update().get(pk=fact.pk)


@transaction.atomic
def resolve_fact(*, fact: Fact, action: str, actor: str, reason: str = "") -> Fact:
    """Settle a disputed fact. Accept: it becomes current and the current value becomes
    history. Reject: it is kept as rejected, for audit, and the current value stays."""
    resolution = Resolution(clean_choice(action, field="action", choices=list(Resolution)))
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    fact = _locked_fact(fact)
    if fact.status != Status.DISPUTED:
        raise FactNotDisputed(f"Fact {fact.pk} is {fact.status}, not disputed")
    now = timezone.now()
    replaced = None
    if resolution == Resolution.ACCEPT:
        replaced = Fact.objects.in_slot(fact.slot).current().first()
        if replaced is not None:
            retire(
                replaced,
                status=Status.HISTORY,
                change=Change.SUPERSEDED,
                actor=actor,
                reason=f"replaced by accepted fact {fact.pk}",
                now=now,
            )
        make_current(
            fact, change=Change.ACCEPTED, actor=actor, reason=reason or "accepted", now=now
        )
    else:
        retire(
            fact,
            status=Status.REJECTED,
            change=Change.REJECTED,
            actor=actor,
            reason=reason or "rejected",
            now=now,
        )
    count_dispute_settled(resolution.value)
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
            **forget_keys(fact),
            "replaced_fact": replaced.pk if replaced else None,
        },
    )
    return fact


@transaction.atomic
def delete_fact(*, fact: Fact, actor: str, reason: str = "") -> Fact:
    """Soft delete: the fact leaves use (and stops being believed) but its record stays,
    with who deleted it and why."""
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    fact = _locked_fact(fact)
    if fact.status == Status.DELETED:
        raise FactAlreadyDeleted(f"Fact {fact.pk} is already deleted")
    previous = fact.status
    retire(
        fact,
        status=Status.DELETED,
        change=Change.DELETED,
        actor=actor,
        reason=reason,
        now=timezone.now(),
    )
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
            **forget_keys(fact),
        },
    )
    return fact
