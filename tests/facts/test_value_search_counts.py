"""The Facts tab's counts per status under a value search: read from one sample of the
matches where that settles them, and always the same as counting each status on its own."""

from datetime import timedelta

import pytest
from django.utils import timezone

import facts.queries.counts
from facts.models import Fact, Status
from facts.queries import FactFilters, bounded_count, filter_facts, status_counts

pytestmark = pytest.mark.django_db

CAP = 3  # a small cap, so that "over the cap" needs a handful of facts, not thousands


@pytest.fixture(autouse=True)
def _small_cap(monkeypatch):
    monkeypatch.setattr(facts.queries.counts, "COUNT_CAP", CAP)


def load(agent, statuses: dict[str, int], value: str = "Acme Corp") -> None:
    now = timezone.now()
    Fact.objects.bulk_create(
        Fact(
            agent=agent,
            user_ref="u1",
            subject="user",
            predicate="employer",
            qualifier=f"{value}-{status}-{n}",
            value=f"{value} {n}",
            status=status,
            recorded_at=now - timedelta(minutes=n),
            last_confirmed_at=now,
        )
        for status, count in statuses.items()
        for n in range(count)
    )


def one_count_per_status(agent, filters: FactFilters) -> dict[str, int]:
    """What the counts were before the sample: one bounded count per status."""
    facts = filter_facts(agent, filters)
    return {s: bounded_count(facts.filter(status=s)) for s in Status.values}


def test_few_matches_are_counted_exactly_from_one_query(agent, django_assert_num_queries):
    load(agent, {"current": 2, "history": 1, "disputed": 1})
    load(agent, {"current": 4}, value="Globex")
    filters = FactFilters(search="acme")
    with django_assert_num_queries(1):
        counts = status_counts(agent, filters)
    assert counts == {"current": 2, "history": 1, "disputed": 1, "rejected": 0, "deleted": 0}
    assert counts == one_count_per_status(agent, filters)


def test_many_matches_count_over_the_cap_and_the_rest_on_their_own(agent):
    # More matches than the sample holds (5 statuses x (CAP + 1) = 20): current fills it,
    # so the statuses seen under the cap are counted on their own, past the sample.
    load(agent, {"current": 30, "history": 2, "deleted": 1})
    load(agent, {"disputed": 5}, value="ACME corp")
    filters = FactFilters(search="cMe c")
    counts = status_counts(agent, filters)
    assert counts == {"current": 4, "history": 2, "disputed": 4, "rejected": 0, "deleted": 1}
    assert counts == one_count_per_status(agent, filters)


def test_the_search_still_narrows_the_counts_of_other_filters(agent):
    load(agent, {"current": 25, "history": 3})
    filters = FactFilters(search="acme", user="someone-else")
    assert status_counts(agent, filters) == dict.fromkeys(Status.values, 0)
    assert status_counts(agent, FactFilters(search="no such value")) == dict.fromkeys(
        Status.values, 0
    )
