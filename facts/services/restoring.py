"""Restoring a deleted fact: it comes back into use judged by the trust rules, as if its
value were asserted now against its slot as it stands (facts.services.asserting)."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.db import transaction
from django.utils import timezone

from facts.exceptions import FactNotDeleted
from facts.models import Change, Fact, Status
from facts.services.asserting import Outcome, placement
from facts.services.erasure import forget_keys
from facts.services.transitions import enter, lock_slot, make_current, retire
from language.text import normalise_value
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_text


class RestoreOutcome(StrEnum):
    CURRENT = "current"
    DISPUTED = "disputed"
    HISTORY = "history"


@dataclass(frozen=True)
class RestoreResult:
    fact: Fact
    outcome: RestoreOutcome
    # The fact it replaced (now history), the current value it waits against (disputed) or
    # that already says the same (history); None when the slot had no current value.
    other: Fact | None = None


def _outcome(fact: Fact, current: Fact | None, now: datetime) -> RestoreOutcome:
    if fact.valid_to is not None and fact.valid_to <= now:
        # It no longer holds in the world: nothing to believe again.
        return RestoreOutcome.HISTORY
    if current is not None and normalise_value(current.value) == normalise_value(fact.value):
        return RestoreOutcome.HISTORY
    if placement(fact, current) == Outcome.DISPUTED:
        return RestoreOutcome.DISPUTED
    return RestoreOutcome.CURRENT


@transaction.atomic
def restore_fact(*, fact: Fact, actor: str, reason: str = "") -> RestoreResult:
    """Undo the soft delete of ``fact``, placing it as if asserted now.

    Invariants: only a deleted fact can be restored (else ``fact_not_deleted``, nothing
    written); a fact erased by forget no longer exists, so it is not found and cannot be.
    The trust rules apply against the slot's current value as it is now: none, or one it is
    trusted at least as much as, and it becomes current (believed from now; the other value
    becomes history); a more trusted one, and it is disputed, waiting for review; the same
    value already current, or a valid window that has ended, and it stays out of use as
    history. At most one current fact per slot. ``restored_at`` is set; ``deleted_at``
    keeps the deletion. Audited as fact.restore, with the outcome, who and why.
    """
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    lock_slot(fact.slot)
    fact = Fact.objects.select_related("agent").select_for_update(of=("self",)).get(pk=fact.pk)
    if fact.status != Status.DELETED:
        raise FactNotDeleted(f"Fact {fact.pk} is {fact.status}, not deleted")
    now = timezone.now()
    current = Fact.objects.in_slot(fact.slot).current().first()
    outcome = _outcome(fact, current, now)
    _put_back(
        fact, outcome=outcome, current=current, actor=actor, why=reason or "restored", now=now
    )
    fact.restored_at = now
    fact.save(update_fields=["restored_at"])
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_RESTORE,
        target_type="fact",
        target_id=str(fact.pk),
        details={
            "reason": reason,
            "outcome": outcome.value,
            **forget_keys(fact),
            "replaced_fact": current.pk if current and outcome == RestoreOutcome.CURRENT else None,
        },
    )
    return RestoreResult(fact=fact, outcome=outcome, other=current)


def _put_back(
    fact: Fact,
    *,
    outcome: RestoreOutcome,
    current: Fact | None,
    actor: str,
    why: str,
    now: datetime,
) -> None:
    """``fact`` takes the status ``outcome`` says: current, over the slot's current value
    (which becomes history), or disputed or history beside it."""
    if outcome == RestoreOutcome.CURRENT:
        if current is not None:
            retire(
                current,
                status=Status.HISTORY,
                change=Change.SUPERSEDED,
                actor=actor,
                reason=f"replaced by restored fact {fact.pk}",
                now=now,
                holds_until=fact.valid_from,
            )
        make_current(fact, change=Change.RESTORED, actor=actor, reason=why, now=now)
    else:
        fact.status = Status(outcome.value)
        fact.status_changed_by = actor
        fact.status_reason = why
        fields = ["status", "status_changed_by", "status_reason"]
        if outcome == RestoreOutcome.DISPUTED:
            # It waits for review again, from now.
            fact.disputed_until = None
            fields.append("disputed_until")
        fact.save(update_fields=fields)
        enter(fact, status=fact.status, change=Change.RESTORED, actor=actor, now=now)
