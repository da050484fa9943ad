"""Many writers on one slot at once: the one-current-fact rule must hold, and no caller may
see anything but a clean result."""

import threading

import pytest
from django.db import connection

from facts.models import Fact, FactSource, Status
from facts.services import Outcome
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 20


def hammer(agent, make_kwargs):
    barrier = threading.Barrier(THREADS)
    results, errors = [], []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            results.append(state(agent, **make_kwargs(i)))
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results, errors


def test_twenty_writers_of_different_values_leave_one_current_fact():
    agent = make_agent(make_workspace(), "busy")
    verifications = ["inferred", "stated", "confirmed"]
    results, errors = hammer(
        agent,
        lambda i: {
            "value": f"value-{i}",
            "verification": verifications[i % 3],
            "confidence": (i % 7) / 7,
        },
    )
    assert errors == []
    assert len(results) == THREADS
    facts = Fact.objects.filter(agent=agent)
    assert facts.count() == THREADS
    assert facts.filter(status=Status.CURRENT).count() == 1
    assert (
        facts.exclude(status=Status.CURRENT)
        .exclude(status__in=[Status.HISTORY, Status.DISPUTED])
        .count()
        == 0
    )
    # Every caller was told what happened to its own value.
    outcome_of = {r.fact.value: r.outcome for r in results}
    for fact in facts:
        expected = {
            Status.CURRENT: {Outcome.CREATED, Outcome.SUPERSEDED},
            Status.HISTORY: {Outcome.CREATED, Outcome.SUPERSEDED},
            Status.DISPUTED: {Outcome.DISPUTED},
        }[Status(fact.status)]
        assert outcome_of[fact.value] in expected
    # The winner is at least as trusted as anything that was ever current after it.
    current = facts.get(status=Status.CURRENT)
    assert current.believed_from == max(f.believed_from for f in facts if f.believed_from)


def test_twenty_writers_of_the_same_value_make_one_fact_with_twenty_sources():
    agent = make_agent(make_workspace(), "echo")
    results, errors = hammer(agent, lambda i: {"value": "Acme"})
    assert errors == []
    assert sorted(r.outcome for r in results) == sorted(
        [Outcome.CREATED] + [Outcome.CONFIRMED] * (THREADS - 1)
    )
    fact = Fact.objects.get(agent=agent)
    assert fact.status == Status.CURRENT
    assert FactSource.objects.filter(fact=fact).count() == THREADS
