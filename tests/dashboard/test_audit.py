"""The audit log and the erasure receipts in the dashboard: who sees which events (staff
all, managers their workspace, viewers nothing), the filters, pages whose query count stays
flat, and reads that write nothing."""

import pytest

from facts.services import forget_facts, forget_scope
from tests.factories import state

pytestmark = pytest.mark.django_db


def test_a_receipt_names_its_counts_in_words(manager_client, agent):
    state(agent, "Acme")
    receipt = forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="test")
    assert "audit_events" in receipt.counts
    page = manager_client.get(f"/app/receipts/{receipt.pk}/").text
    assert "Audit events" in page
    assert "Audit_events" not in page
