"""The review queue filtered by a predicate prefix reads the same disputes, oldest first,
and the same bounded count, whether the prefix is rare (its disputes read through their
index and sorted) or common (the disputes walked oldest first)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts import triage
from facts.models import Fact
from facts.triage import ReviewFilters, grouped_review_queue
from tenancy.access import Access
from tests.factories import state

pytestmark = pytest.mark.django_db


def _disputes(agent, predicate: str, users: range) -> list[Fact]:
    disputes = []
    for n in users:
        state(agent, "Acme", user=f"u{n}", predicate=predicate)
        claim = state(agent, "Globex", user=f"u{n}", predicate=predicate, verification="inferred")
        disputes.append(claim.fact)
    return disputes


def _queue(agent, predicate: str) -> tuple[list[int], int]:
    filters = ReviewFilters(agent=agent, predicate=predicate)
    groups, total = grouped_review_queue(Access(actor="test", workspace=agent.workspace), filters)
    return [item["id"] for group in groups for item in group["items"]], total


@pytest.fixture
def employer_disputes(agent) -> list[Fact]:
    """Five employer disputes recorded newest first (the last the oldest), the first two at
    the same moment, among city disputes recorded before them all."""
    _disputes(agent, "city", range(3))
    employer = _disputes(agent, "employer", range(5))
    now = timezone.now()
    for age, fact in enumerate(employer):
        Fact.objects.filter(pk=fact.pk).update(recorded_at=now - timedelta(days=max(age, 1)))
    Fact.objects.filter(predicate="city").update(recorded_at=now - timedelta(days=30))
    return employer


def test_a_rare_prefix_lists_its_disputes_oldest_first(agent, employer_disputes):
    oldest_first = [f.pk for f in reversed(employer_disputes[2:])] + [
        employer_disputes[0].pk,
        employer_disputes[1].pk,
    ]
    assert _queue(agent, "EMP") == (oldest_first, 5)


def test_a_common_prefix_reads_the_same_disputes_in_the_same_order(
    agent, employer_disputes, monkeypatch
):
    rare = _queue(agent, "emp")
    monkeypatch.setattr(triage, "FEW_DISPUTES_BY_PREFIX", 2)
    assert _queue(agent, "emp") == rare


def test_the_count_of_a_prefix_stays_bounded(agent, employer_disputes, monkeypatch):
    monkeypatch.setattr(triage, "COUNT_CAP", 3)
    assert _queue(agent, "EMP")[1] == 4
    monkeypatch.setattr(triage, "FEW_DISPUTES_BY_PREFIX", 2)
    assert _queue(agent, "EMP")[1] == 4
    assert _queue(agent, "nothing")[1] == 0
