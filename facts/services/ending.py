"""Ending a fact: it stops holding without a new value taking its place ("I left Dropbox",
"we split up"). Nothing is invented for the slot; the fact becomes history."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactNotCurrent
from facts.models import Change, Fact, Status
from facts.services.erasure import forget_keys
from facts.services.transitions import lock_slot, not_before_start, retire
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_text


@transaction.atomic
def end_fact(*, fact: Fact, actor: str, at: datetime | None = None, reason: str = "") -> Fact:
    """End the current value of ``fact``'s slot at ``at`` (default: now).

    Invariants: only a current fact can be ended (else ``fact_not_current``, nothing
    written); it becomes history and stops being believed now (``believed_until``); it stops
    holding in the world at ``at`` (``valid_to``; an ``at`` before the window begins is
    refused, and ending now a fact whose window has not begun ends it where it would have
    begun, so the window stays ordered; an earlier ``valid_to`` is kept). The slot is left
    with no current value. Audited as fact.end, with who and why.
    """
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    lock_slot(fact.slot)
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.CURRENT:
        raise FactNotCurrent(f"Fact {fact.pk} is {fact.status}, not current")
    now = timezone.now()
    if at is not None and fact.valid_from is not None and at < fact.valid_from:
        raise InvalidInput("at", "a fact cannot end before it starts to hold (valid_from)")
    ends = not_before_start(fact, at or now)
    if fact.valid_to is None or fact.valid_to > ends:
        fact.valid_to = ends
        fact.save(update_fields=["valid_to"])
    retire(
        fact,
        status=Status.HISTORY,
        change=Change.ENDED,
        actor=actor,
        reason=reason or "ended",
        now=now,
    )
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_END,
        target_type="fact",
        target_id=str(fact.pk),
        details={"reason": reason, "valid_to": fact.valid_to.isoformat(), **forget_keys(fact)},
    )
    return fact
