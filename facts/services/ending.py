"""Ending a fact: the text says a value stopped holding ("I left Dropbox", "we split up"),
without giving a new one."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactNotCurrent
from facts.models import Fact, Status
from facts.services.erasure import forget_keys
from facts.services.transitions import lock_slot, retire
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_text


@transaction.atomic
def end_fact(*, fact: Fact, actor: str, at: datetime | None = None, reason: str = "") -> Fact:
    """The current value of a slot stops holding at ``at`` (default: now): it becomes
    history, its valid window closes at ``at`` and it stops being believed now. The slot is
    left with no current value; nothing is invented in its place. Audited as fact.end."""
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    lock_slot(fact.slot)
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.CURRENT:
        raise FactNotCurrent(f"Fact {fact.pk} is {fact.status}, not current")
    now = timezone.now()
    ended_at = at or now
    if fact.valid_from is not None and ended_at < fact.valid_from:
        raise InvalidInput("at", "a fact cannot end before it starts to hold (valid_from)")
    fact.valid_to = ended_at
    fact.save(update_fields=["valid_to"])
    retire(fact, status=Status.HISTORY, actor=actor, reason=reason or "ended", now=now)
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_END,
        target_type="fact",
        target_id=str(fact.pk),
        details={"reason": reason, "valid_to": ended_at.isoformat(), **forget_keys(fact)},
    )
    return fact
