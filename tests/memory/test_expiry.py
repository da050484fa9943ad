"""The expiry pass deletes memories past their deadline, and the facts learned only from
them, through the same path as a delete by hand."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, FactSource
from facts.services import Claim, SourceInput, assert_fact
from memory.models import Memory
from memory.services import MemoryInput, expiry_pass, store_memories
from memory.services.expiry import EXPIRY_ACTOR
from tenancy.models import Agent, AuditAction, AuditEvent

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def store(agent, *contents, ttl=None):
    return store_memories(
        agent=agent, items=[MemoryInput(content=c, ttl_seconds=ttl) for c in contents]
    )


def learn(agent, memory, value, predicate="employer"):
    return assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate=predicate, value=value),
        source=SourceInput(kind="memory_document", memory_id=memory.pk),
        actor="test",
    ).fact


def test_only_memories_past_their_deadline_are_deleted(agent):
    store(agent, "Ann is in the lobby", ttl=60)
    (long,) = store(agent, "Ann is on holiday this week", ttl=7 * 24 * 3600)
    (lasting,) = store(agent, "Ann prefers window seats")

    result = expiry_pass(now=timezone.now() + 2 * MINUTE)

    assert set(Memory.objects.values_list("pk", flat=True)) == {long.pk, lasting.pk}
    assert (result.touched, result.counts["expired"], result.counts["facts"]) == (1, 1, 0)
    assert result.by_workspace[agent.workspace_id] == {"touched": 1, "expired": 1, "facts": 0}


def test_a_memory_expires_exactly_at_its_deadline(agent):
    (memory,) = store(agent, "the door code is 4411", ttl=60)
    expiry_pass(now=memory.expires_at - timedelta(microseconds=1))
    assert Memory.objects.filter(pk=memory.pk).exists()
    expiry_pass(now=memory.expires_at)
    assert not Memory.objects.filter(pk=memory.pk).exists()


def test_facts_learned_only_from_expired_memories_go_and_others_keep_their_other_source(agent):
    (temporary,) = store(agent, "Ann works at Acme now", ttl=60)
    (lasting,) = store(agent, "Ann lives in Paris")
    only_expired = learn(agent, temporary, "Acme")
    both = learn(agent, temporary, "Paris", predicate="city")
    learn(agent, lasting, "Paris", predicate="city")

    result = expiry_pass(now=timezone.now() + 2 * MINUTE)

    assert result.counts["facts"] == 1
    assert not Fact.objects.filter(pk=only_expired.pk).exists()
    assert Fact.objects.get(pk=both.pk).status == "current"
    assert list(FactSource.objects.filter(fact=both).values_list("memory_id", flat=True)) == [
        lasting.pk
    ]


def test_each_batch_is_one_audit_event_and_bumps_the_memory_version(agent, other_agent):
    store(agent, *[f"note {i}" for i in range(5)], ttl=60)
    store(other_agent, "their note", ttl=60)
    version = Agent.objects.get(pk=agent.pk).memory_version

    result = expiry_pass(now=timezone.now() + 2 * MINUTE, batch_size=2)

    assert result.touched == 6
    events = AuditEvent.objects.filter(action=AuditAction.MEMORY_DELETE).order_by("id")
    assert [(e.agent_id, e.actor, e.details["counts"]["memories"]) for e in events] == [
        (agent.pk, EXPIRY_ACTOR, 2),
        (agent.pk, EXPIRY_ACTOR, 2),
        (agent.pk, EXPIRY_ACTOR, 1),
        (other_agent.pk, EXPIRY_ACTOR, 1),
    ]
    assert {e.details["reason"] for e in events} == {"expired"}
    assert Agent.objects.get(pk=agent.pk).memory_version == version + 3
    assert result.by_workspace[agent.workspace_id]["expired"] == 5
    assert result.by_workspace[other_agent.workspace_id]["expired"] == 1


def test_dry_run_counts_and_changes_nothing(agent):
    store(agent, "gone soon", "also gone soon", ttl=60)
    store(agent, "stays")
    result = expiry_pass(now=timezone.now() + 2 * MINUTE, dry_run=True)
    assert (result.touched, result.counts["expired"]) == (2, 2)
    assert Memory.objects.count() == 3
    assert not AuditEvent.objects.filter(action=AuditAction.MEMORY_DELETE).exists()


def test_only_the_given_agents_memories_expire(agent, other_agent):
    store(agent, "mine", ttl=60)
    store(other_agent, "theirs", ttl=60)
    expiry_pass(agents=Agent.objects.filter(pk=agent.pk), now=timezone.now() + 2 * MINUTE)
    assert list(Memory.objects.values_list("content", flat=True)) == ["theirs"]


def test_nothing_expired_is_an_empty_pass(agent):
    store(agent, "no deadline")
    result = expiry_pass()
    assert (result.touched, dict(result.counts)) == (0, {})
