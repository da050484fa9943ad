"""Ending a fact: it stops being true without a new value taking its place ("I left
Dropbox"). Nothing is invented for the slot; the fact becomes history."""

from django.db import transaction
from django.utils import timezone

from facts.exceptions import FactNotCurrent
from facts.models import Fact, Status
from facts.services.erasure import forget_keys
from facts.services.transitions import lock_slot, retire
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_text


@transaction.atomic
def end_fact(*, fact: Fact, actor: str, reason: str = "") -> Fact:
    """End the current value of ``fact``'s slot.

    Invariants: only a current fact can be ended (else ``fact_not_current``, nothing
    written); it becomes history, stops being believed now (``believed_until``) and stops
    holding in the world now (``valid_to``; a fact whose valid window had not begun yet ends
    where it would have begun, so the window stays ordered); an earlier ``valid_to`` is
    kept. The slot is left with no current value. Audited as a ``fact.resolve`` event with
    action "end", who and why.
    """
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    lock_slot(fact.slot)
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.CURRENT:
        raise FactNotCurrent(f"Fact {fact.pk} is {fact.status}, not current")
    now = timezone.now()
    ends = max(now, fact.valid_from) if fact.valid_from else now
    if fact.valid_to is None or fact.valid_to > ends:
        fact.valid_to = ends
        fact.save(update_fields=["valid_to"])
    retire(fact, status=Status.HISTORY, actor=actor, reason=reason or "ended", now=now)
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_RESOLVE,
        target_type="fact",
        target_id=str(fact.pk),
        details={"action": "end", "reason": reason, **forget_keys(fact)},
    )
    return fact
