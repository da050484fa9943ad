"""Storing, changing and deleting memories, through the services every interface uses."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from dewee.errors import InvalidInput, TooLarge
from facts.models import Fact, FactSource
from facts.services import Claim, SourceInput, assert_fact
from memory.exceptions import EmbeddingModelMismatch, MemoryNotFound, SessionNotFound
from memory.models import Memory, MemoryTag, Session, SessionState
from memory.recall.keyword_search import keyword_search
from memory.services import (
    MemoryInput,
    delete_memory,
    end_session,
    forget_memories,
    memory_tags,
    record_access,
    store_memories,
    update_memory,
)
from tenancy.models import Agent, AuditAction, AuditEvent
from tests.factories import make_agent

pytestmark = pytest.mark.django_db


def keyword_ids(agent, text):
    return [
        i
        for i, _ in keyword_search(
            agent, Memory.objects.filter(agent=agent), text, limit=10, filtered=False
        )
    ]


def test_store_keeps_every_field_and_embeds(agent, session):
    expires = timezone.now() + timedelta(days=2)
    (memory,) = store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content="Ann prefers window seats",
                memory_type="semantic",
                importance=0.8,
                tags=["travel", "travel", "prefs"],
                metadata={"channel": "slack"},
                session_id=session.pk,
                expires_at=expires,
                source_refs=["msg-1"],
            )
        ],
    )
    memory = Memory.objects.get(pk=memory.pk)
    assert (memory.memory_type, memory.importance, memory.metadata) == (
        "semantic",
        0.8,
        {"channel": "slack"},
    )
    assert memory.session_id == session.pk
    assert memory.expires_at == expires
    assert memory.source_refs == ["msg-1"]
    assert [t for t in memory_tags(memory) if not t.startswith("entity:")] == ["travel", "prefs"]
    assert "entity:name:ann" in memory_tags(memory)
    assert memory.embedding is not None
    assert memory.embedding.shape == (384,)
    assert float(np.linalg.norm(memory.embedding)) == pytest.approx(1.0, abs=1e-3)
    agent.refresh_from_db()
    assert agent.embedding_dim == 384
    assert memory.embedding_model == agent.embedding_model


def test_ttl_sets_the_expiry_from_now(agent):
    before = timezone.now()
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content="x", ttl_seconds=60)])
    assert memory.expires_at is not None
    assert before + timedelta(seconds=59) < memory.expires_at < before + timedelta(seconds=62)


def test_keyword_index_follows_insert_update_and_delete(agent, remember):
    (memory,) = remember("The staging password rotates on Fridays")
    assert keyword_ids(agent, "password") == [memory.pk]
    update_memory(memory=memory, content="The staging certificate renews monthly")
    assert keyword_ids(agent, "password") == []
    assert keyword_ids(agent, "certificate") == [memory.pk]
    delete_memory(memory=memory, actor="test")
    assert keyword_ids(agent, "certificate") == []


def test_update_of_content_re_embeds_and_re_tags(agent, remember):
    (memory,) = remember("Ann likes tea", tags=["drinks"])
    before = memory.embedding.copy()
    update_memory(memory=memory, content="Bob collects vintage motorbikes")
    memory = Memory.objects.get(pk=memory.pk)
    assert float(before @ memory.embedding) < 0.6
    tags = memory_tags(memory)
    assert "drinks" in tags
    assert "entity:name:bob" in tags
    assert "entity:name:ann" not in tags


def test_update_changes_only_what_is_given(agent, remember):
    (memory,) = remember("Ann likes tea", importance=0.3, tags=["drinks"])
    update_memory(memory=memory, importance=0.9)
    memory = Memory.objects.get(pk=memory.pk)
    assert (memory.importance, memory.content) == (0.9, "Ann likes tea")
    assert "drinks" in memory_tags(memory)


def test_editing_a_memory_is_activity_of_its_session(agent, remember, session):
    (memory,) = remember("Ann likes tea", session_id=session.pk)
    idle_since = timezone.now() - timedelta(hours=5)
    Session.objects.filter(pk=session.pk).update(last_activity_at=idle_since)
    update_memory(memory=memory, tags=["drinks"])
    assert Session.objects.get(pk=session.pk).last_activity_at > idle_since


def test_a_refused_edit_changes_nothing(agent, remember):
    (memory,) = remember("Ann likes tea", tags=["drinks"])
    with pytest.raises(InvalidInput):
        update_memory(memory=memory, memory_type="semantic", importance=0.9, content="")
    # Neither the row nor the caller's object: the edit is all or nothing.
    assert (memory.memory_type, memory.importance) == ("episodic", 0.5)
    stored = Memory.objects.get(pk=memory.pk)
    assert (stored.memory_type, stored.importance, stored.content) == (
        "episodic",
        0.5,
        "Ann likes tea",
    )


def test_an_edit_that_fails_while_writing_writes_nothing(agent, remember, monkeypatch):
    (memory,) = remember("Ann likes tea", tags=["drinks"])

    def broken_tags(*args, **kwargs):
        raise RuntimeError("the tag rows could not be written")

    monkeypatch.setattr("memory.services.editing.tag_rows", broken_tags)
    with pytest.raises(RuntimeError):
        update_memory(memory=memory, importance=0.9, tags=["coffee"])
    stored = Memory.objects.get(pk=memory.pk)
    assert stored.importance == 0.5
    assert [t for t in memory_tags(stored) if not t.startswith("entity:")] == ["drinks"]


def test_editing_a_memory_deleted_meanwhile_is_not_found(agent, remember):
    (memory,) = remember("Ann likes tea")
    Memory.objects.filter(pk=memory.pk).delete()
    with pytest.raises(MemoryNotFound):
        update_memory(memory=memory, importance=0.9)
    assert not Memory.objects.filter(pk=memory.pk).exists()


def test_storing_into_an_ended_session_succeeds(agent, session):
    end_session(session=session, summary="done")
    (memory,) = store_memories(
        agent=agent, items=[MemoryInput(content="late note", session_id=session.pk)]
    )
    assert memory.session is not None
    assert memory.session.state == SessionState.ENDED


def test_batch_is_all_or_nothing_and_names_the_failing_item(agent):
    items = [
        MemoryInput(content="fine"),
        MemoryInput(content="also fine"),
        MemoryInput(content="bad", importance=2.0),
    ]
    with pytest.raises(InvalidInput) as error:
        store_memories(agent=agent, items=items)
    assert error.value.details["index"] == 2
    assert "items[2]" in error.value.message
    assert not Memory.objects.exists()
    assert not MemoryTag.objects.exists()


def test_batch_limit(agent):
    with pytest.raises(TooLarge):
        store_memories(agent=agent, items=[MemoryInput(content="x")] * 1001)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"content": ""}, InvalidInput),
        ({"content": "x" * 16_001}, TooLarge),
        ({"importance": float("nan")}, InvalidInput),
        ({"importance": -0.1}, InvalidInput),
        ({"memory_type": "dream"}, InvalidInput),
        ({"tags": "travel"}, InvalidInput),
        ({"tags": [""]}, InvalidInput),
        ({"tags": ["x" * 101]}, TooLarge),
        ({"metadata": ["not", "an", "object"]}, InvalidInput),
        ({"metadata": {"blob": "x" * 20_000}}, TooLarge),
        ({"ttl_seconds": -5}, InvalidInput),
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, InvalidInput),
        ({"session_id": 999_999}, SessionNotFound),
    ],
)
def test_bad_memories_are_refused_and_write_nothing(agent, fields, error):
    fields = {"content": "ok", **fields}
    with pytest.raises(error):
        store_memories(agent=agent, items=[MemoryInput(**fields)])
    assert not Memory.objects.exists()


def test_another_agents_session_is_not_found(agent, other_agent):
    from memory.services import start_session

    foreign = start_session(agent=other_agent)
    with pytest.raises(SessionNotFound):
        store_memories(agent=agent, items=[MemoryInput(content="x", session_id=foreign.pk)])


def test_vectors_of_another_model_are_refused(agent, remember):
    remember("first")
    Agent.objects.filter(pk=agent.pk).update(embedding_model="other-model")
    agent.refresh_from_db()
    with pytest.raises(EmbeddingModelMismatch):
        remember("second")
    assert Memory.objects.count() == 1


def _learn(agent, memory, value, predicate="employer"):
    return assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate=predicate, value=value),
        source=SourceInput(kind="memory_document", memory_id=memory.pk),
        actor="test",
    )


def test_deleting_a_memory_erases_the_facts_learned_only_from_it(agent, remember):
    only, shared = remember("Ann works at Acme", "Ann lives in Paris")
    learned_only = _learn(agent, only, "Acme").fact
    both = _learn(agent, shared, "Paris", predicate="city").fact
    assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate="city", value="Paris"),
        source=SourceInput(kind="operator", operator="ann"),
        actor="test",
    )
    _learn(agent, only, "Paris", predicate="city")  # a second memory backs the city too

    counts = delete_memory(memory=only, actor="operator:ann", reason="wrong person")
    assert counts == {"memories": 1, "facts": 1}
    assert not Fact.objects.filter(pk=learned_only.pk).exists()
    assert Fact.objects.get(pk=both.pk).status == "current"
    assert not FactSource.objects.filter(memory_id=only.pk).exists()
    assert FactSource.objects.filter(fact=both).count() == 2
    event = AuditEvent.objects.get(action=AuditAction.MEMORY_DELETE)
    assert event.details["counts"] == {"memories": 1, "facts": 1}


def test_fact_source_excerpt_comes_from_the_memory(agent, remember):
    (memory,) = remember("Ann works at Acme")
    fact = _learn(agent, memory, "Acme").fact
    source = fact.sources.get()
    assert (source.excerpt, source.reference) == ("Ann works at Acme", f"memory:{memory.pk}")


def test_forget_by_ids_tags_and_importance(agent, remember):
    a, _b, _c = remember("one", "two", "three", tags=["x"])
    (_d,) = remember("four", importance=0.1)
    assert forget_memories(agent=agent, actor="t", ids=[a.pk])["memories"] == 1
    assert forget_memories(agent=agent, actor="t", tags=["x"], below_importance=0.3) == {
        "memories": 0,
        "facts": 0,
    }
    assert forget_memories(agent=agent, actor="t", below_importance=0.3)["memories"] == 1
    assert forget_memories(agent=agent, actor="t", tags=["x"])["memories"] == 2
    assert not Memory.objects.exists()


def test_forget_unknown_or_foreign_ids_deletes_nothing(agent, other_agent, remember):
    (mine,) = remember("mine")
    (theirs,) = remember("theirs", target=other_agent)
    with pytest.raises(MemoryNotFound):
        forget_memories(agent=agent, actor="t", ids=[mine.pk, theirs.pk])
    assert Memory.objects.count() == 2
    with pytest.raises(InvalidInput):
        forget_memories(agent=agent, actor="t")


def test_access_is_counted_without_touching_importance(agent, remember):
    (memory,) = remember("x", importance=0.4)
    record_access([memory.pk])
    record_access([memory.pk])
    memory = Memory.objects.get(pk=memory.pk)
    assert (memory.access_count, memory.importance) == (2, 0.4)
    assert memory.last_accessed_at is not None


def test_agent_isolation_in_storage(agent, workspace):
    other = make_agent(workspace, "second")
    store_memories(agent=agent, items=[MemoryInput(content="for the first agent")])
    assert not Memory.objects.filter(agent=other).exists()
