"""The slot: one identity for filtering, locking and the one-current-fact rule."""

import pytest

from facts.models import Fact
from facts.slots import Slot
from tests.factories import state

pytestmark = pytest.mark.django_db


def test_a_slot_holds_every_value_its_facts_ever_had(agent):
    state(agent, "Acme")
    state(agent, "Globex")
    disputed = state(agent, "Initech", verification="inferred").fact
    state(agent, "Paris", predicate="city")
    state(agent, "Hooli", qualifier="side job")
    slot = disputed.slot
    assert slot == Slot(agent_id=agent.pk, user="u1", subject="user", predicate="employer")
    values = Fact.objects.in_slot(slot).order_by("id").values_list("value", flat=True)
    assert list(values) == ["Acme", "Globex", "Initech"]


def test_the_lock_key_is_one_per_slot_and_stable_across_releases():
    slot = Slot(agent_id=1, user="u1", subject="user", predicate="employer")
    assert slot.lock_key() == Slot(1, "u1", "user", "employer", "").lock_key()
    assert slot.lock_key() != Slot(1, "u1", "user", "employer", "work").lock_key()
    assert slot.lock_key() != Slot(2, "u1", "user", "employer").lock_key()
    # Processes of two releases may run side by side: they must lock the same key.
    assert slot.lock_key() == 4652235016481808720
