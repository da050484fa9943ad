"""Memories stored without a session still make conversations: recall's neighbour pass and
the context embedding follow them (same agent, same user, in creation order, until a long
silence), and nothing of another agent or user ever joins one."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from memory.embeddings.engine import get_embedder
from memory.models import Memory
from memory.recall import RecallRequest, recall
from memory.services import MemoryInput, reindex_agent, store_memories
from memory.sessions.conversations import neighbours
from tests.factories import make_agent

pytestmark = pytest.mark.django_db

QUESTION = "Have you picked the venue for the wedding?"
ANSWER = "Yes! The old lighthouse by the harbour."
FILLER = [
    "Unrelated chatter about the weather today.",
    "The printer on the third floor is out of toner again.",
    "Remember to water the basil on the balcony.",
    "The train to Porto leaves at nine from platform four.",
]


def turn(agent, content, at, *, user=None, speaker=None):
    metadata = {"speaker": speaker} if speaker else None
    (memory,) = store_memories(
        agent=agent,
        items=[MemoryInput(content=content, created_at=at, user=user, metadata=metadata)],
    )
    return memory


def explained(agent, query, top_k=10):
    request = RecallRequest(query=query, top_k=top_k, explain=True)
    return {hit.memory.pk: hit.explanation for hit in recall(agent=agent, request=request).hits}


@pytest.fixture
def start():
    return timezone.now() - timedelta(days=1)


def test_the_turn_after_a_strong_match_is_its_neighbour_without_a_session(agent, start):
    for index, text in enumerate(FILLER):
        turn(agent, text, start + timedelta(hours=index + 1))
    question = turn(agent, QUESTION, start)
    answer = turn(agent, ANSWER, start + timedelta(seconds=20))
    hits = explained(agent, "wedding venue", top_k=2)
    assert list(hits) == [question.pk, answer.pk]
    assert hits[answer.pk]["neighbour"] == pytest.approx(hits[question.pk]["fused"])


def test_a_memory_after_a_long_silence_is_not_a_neighbour(agent, start):
    question = turn(agent, QUESTION, start)
    answer = turn(agent, ANSWER, start + timedelta(hours=2))
    assert neighbours([question.pk, answer.pk], span=2) == {question.pk: [], answer.pk: []}
    hits = explained(agent, "wedding venue")
    assert hits[question.pk]["fused"] > 0
    assert answer.pk not in hits or hits[answer.pk]["neighbour"] == 0.0


def test_a_conversation_runs_on_while_each_turn_follows_soon_after_the_last(agent, start):
    steps = [turn(agent, f"turn {i}", start + timedelta(minutes=20 * i)) for i in range(4)]
    ids = [m.pk for m in steps]
    # 60 minutes from the first to the fourth, but never 30 between two turns.
    assert neighbours([ids[1]], span=2) == {ids[1]: [ids[0], ids[2], ids[3]]}
    assert neighbours([ids[3]], span=2) == {ids[3]: [ids[1], ids[2]]}


def test_another_agents_or_users_memory_is_never_a_neighbour(agent, workspace, start):
    other = make_agent(workspace)
    question = turn(agent, QUESTION, start, user="ann")
    theirs = turn(other, ANSWER, start + timedelta(seconds=5), user="ann")
    bobs = turn(agent, ANSWER, start + timedelta(seconds=10), user="bob")
    nobodys = turn(agent, ANSWER, start + timedelta(seconds=15))
    anns = turn(agent, ANSWER, start + timedelta(seconds=20), user="ann")
    assert neighbours([question.pk], span=2) == {question.pk: [anns.pk]}
    assert neighbours([nobodys.pk], span=2) == {nobodys.pk: []}
    assert neighbours([theirs.pk], span=2) == {theirs.pk: []}
    assert neighbours([bobs.pk], span=2) == {bobs.pk: []}


def test_memories_stored_together_at_one_instant_are_not_one_conversation(agent):
    stored = store_memories(agent=agent, items=[MemoryInput(content=t) for t in FILLER])
    assert neighbours([m.pk for m in stored], span=2) == {m.pk: [] for m in stored}


def vector(memory: Memory) -> np.ndarray:
    memory.refresh_from_db()
    assert memory.embedding is not None
    return np.asarray(memory.embedding)


def test_a_spoken_turn_is_embedded_with_the_turn_before_it(agent, start):
    embed = get_embedder().embed_one
    question = turn(agent, QUESTION, start, speaker="Ann")
    answer = turn(agent, ANSWER, start + timedelta(seconds=20), speaker="Bob")
    late = turn(agent, ANSWER, start + timedelta(hours=3), speaker="Bob")
    note = turn(agent, "Buy stamps.", start + timedelta(hours=3, seconds=5))
    assert np.allclose(vector(question), embed(QUESTION), atol=1e-5)
    assert np.allclose(vector(answer), embed(f"{QUESTION}\n{ANSWER}"), atol=1e-5)
    assert np.allclose(vector(late), embed(ANSWER), atol=1e-5)
    assert np.allclose(vector(note), embed("Buy stamps."), atol=1e-5)


def test_turns_of_one_batch_are_embedded_with_the_turn_before_them(agent, start):
    embed = get_embedder().embed_one
    turn(agent, "Are you coming tonight?", start, speaker="Ann")
    items = [
        MemoryInput(
            content=text, created_at=start + timedelta(seconds=s), metadata={"speaker": who}
        )
        for text, s, who in [(QUESTION, 10, "Ann"), (ANSWER, 20, "Bob")]
    ]
    question, answer = store_memories(agent=agent, items=items)
    assert np.allclose(vector(question), embed(f"Are you coming tonight?\n{QUESTION}"), atol=1e-5)
    assert np.allclose(vector(answer), embed(f"{QUESTION}\n{ANSWER}"), atol=1e-5)


# PostgreSQL: reindexing creates the vector index, which a test transaction's pending
# trigger events would refuse.
@pytest.mark.django_db(transaction=True)
def test_reindexing_makes_the_same_vectors_as_storing(agent, start):
    stored = [
        turn(agent, QUESTION, start, speaker="Ann"),
        turn(agent, ANSWER, start + timedelta(seconds=20), speaker="Bob"),
        turn(agent, ANSWER, start + timedelta(hours=3), speaker="Bob"),
    ]
    before = [vector(m) for m in stored]
    assert not np.allclose(before[1], before[2], atol=1e-3)
    reindex_agent(agent=agent, force=True)
    assert all(np.allclose(vector(m), v, atol=1e-5) for m, v in zip(stored, before, strict=True))


@pytest.mark.django_db(transaction=True)
def test_a_speaker_given_as_the_memory_field_or_read_from_the_text_counts_too(agent, start):
    embed = get_embedder().embed_one
    (question,) = store_memories(
        agent=agent, items=[MemoryInput(content=QUESTION, created_at=start, speaker="Ann")]
    )
    (answer,) = store_memories(
        agent=agent,
        items=[MemoryInput(content=f"Bob: {ANSWER}", created_at=start + timedelta(seconds=20))],
    )
    assert answer.speaker == "Bob"
    assert np.allclose(vector(answer), embed(f"{QUESTION}\nBob: {ANSWER}"), atol=1e-5)
    before = [vector(question), vector(answer)]
    reindex_agent(agent=agent, force=True)
    assert all(
        np.allclose(vector(m), v, atol=1e-5)
        for m, v in zip([question, answer], before, strict=True)
    )
