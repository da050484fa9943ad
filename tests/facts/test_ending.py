"""end_fact: the current value stops holding; nothing replaces it."""

from datetime import UTC, datetime

import pytest

from dewee.errors import InvalidInput
from facts.exceptions import FactNotCurrent
from facts.models import Fact, Status
from facts.services import end_fact
from tenancy.models import AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db


def test_ending_makes_the_fact_history_with_its_valid_window_closed(agent):
    fact = state(agent, "Dropbox").fact
    moment = datetime(2026, 11, 2, tzinfo=UTC)
    end_fact(fact=fact, actor="ann", at=moment, reason="left")
    fact = refreshed(fact)
    assert (fact.status, fact.valid_to, fact.status_changed_by) == (Status.HISTORY, moment, "ann")
    assert fact.believed_until is not None
    assert not Fact.objects.current().exists()
    event = AuditEvent.objects.get(action="fact.end")
    assert (event.actor, event.details["reason"], event.details["user"]) == ("ann", "left", "u1")


def test_only_a_current_fact_can_end(agent):
    fact = state(agent, "Dropbox").fact
    end_fact(fact=fact, actor="ann")
    with pytest.raises(FactNotCurrent):
        end_fact(fact=fact, actor="ann")
    assert AuditEvent.objects.filter(action="fact.end").count() == 1


def test_a_fact_cannot_end_before_it_holds(agent):
    fact = state(agent, "Dropbox", valid_from=datetime(2026, 6, 1, tzinfo=UTC)).fact
    with pytest.raises(InvalidInput):
        end_fact(fact=fact, actor="ann", at=datetime(2026, 1, 1, tzinfo=UTC))
    assert refreshed(fact).status == Status.CURRENT
