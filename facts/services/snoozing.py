"""Snoozing a dispute: a person puts it aside until a time, and it leaves the review queue,
the inbox and the nav's count until then, when it comes back as it was. Nothing of the fact
changes but the time (its status, slot and sources stay); waking it early is snoozing it
until nothing."""

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactNotDisputed
from facts.models import Fact, Status
from facts.services.erasure import forget_keys
from tenancy.audit import record_event
from tenancy.models import AuditAction

SNOOZE_MAX = timedelta(days=365)


@transaction.atomic
def snooze_dispute(*, fact: Fact, until: datetime | None, actor: str) -> Fact:
    """Put the disputed ``fact`` aside until ``until`` (later than now, within SNOOZE_MAX),
    or back in review now (``until`` None). Only a dispute still waiting may be snoozed
    (else FactNotDisputed, nothing written). Audited as fact.snooze, with the time."""
    now = timezone.now()
    if until is not None and not now < until <= now + SNOOZE_MAX:
        raise InvalidInput("until", "must be later than now and within a year")
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != Status.DISPUTED:
        raise FactNotDisputed(f"Fact {fact.pk} is {fact.status}: only a dispute waiting is snoozed")
    fact.snoozed_until = until
    fact.save(update_fields=["snoozed_until"])
    record_event(
        workspace_id=fact.agent.workspace_id,
        agent=fact.agent,
        actor=actor,
        action=AuditAction.FACT_SNOOZE,
        target_type="fact",
        target_id=str(fact.pk),
        details={"until": until.isoformat() if until else None, **forget_keys(fact)},
    )
    return fact
