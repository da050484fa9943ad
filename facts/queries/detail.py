"""One record loaded through an Access: a fact, in full with its provenance (sources, the
history of its slot, periods, audit events), or an erasure receipt."""

from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.utils import timezone

from facts.exceptions import FactNotFound, ReceiptNotFound
from facts.models import Fact, FactPeriod, FactSource
from facts.queries.shapes import event_to_dict, fact_to_dict, period_to_dict, source_to_dict
from tenancy.access import Access
from tenancy.models import Agent, AuditEvent, ErasureReceipt


def get_fact(*, access: Access, fact_id: int, agent: Agent | None = None) -> Fact:
    facts = Fact.objects.select_related("agent__workspace")
    return access.load(facts, fact_id, missing=FactNotFound, label="Fact", agent=agent)


def fact_detail(fact: Fact) -> dict[str, Any]:
    """The fact, its sources, every fact of its slot in order (the history chain), and the
    audit events about it."""
    slot = (
        Fact.objects.in_slot(fact.slot)
        .select_related("agent")
        .prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))
        .order_by("recorded_at", "id")
    )
    events = AuditEvent.objects.filter(target_type="fact", target_id=str(fact.pk)).order_by(
        "created_at", "id"
    )
    now = timezone.now()
    chain = list(slot)
    this = next(f for f in chain if f.pk == fact.pk)
    return {
        **fact_to_dict(this, now=now),
        "sources": [source_to_dict(s) for s in this.sources.all()],
        "history": [fact_to_dict(f, now=now) for f in chain],
        "periods": [period_to_dict(p) for p in FactPeriod.objects.filter(fact=this)],
        "events": [event_to_dict(e) for e in events],
    }


def get_receipt(*, access: Access, receipt_id: UUID | str) -> ErasureReceipt:
    """A receipt of a workspace ``access`` sees; another workspace's is not found. Loaded by
    workspace, not agent: the agent may be gone, the receipt stays."""
    receipts = ErasureReceipt.objects.all()
    if access.workspace is not None:
        receipts = receipts.filter(workspace=access.workspace)
    try:
        return receipts.get(pk=receipt_id)
    except (ErasureReceipt.DoesNotExist, ValueError, TypeError, ValidationError):
        raise ReceiptNotFound(f"Receipt {receipt_id} not found") from None
