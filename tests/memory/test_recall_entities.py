"""Recall's entity pass and the graph: a query that names someone ranks what they said and
what mentions them higher, a newer wording ranks above the one it supersedes, and the
explanation shows by how much."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.graph.entities import named_entities
from memory.models import EdgeType, MemoryEdge
from memory.recall import RecallRequest, recall
from memory.recall.filters import SHARED_ONLY, Audience
from memory.recall.relevance import (
    ENTITY_WEIGHT,
    SPEAKER_WEIGHT,
    SUPERSEDED_FACTOR,
    speaking,
    without_names,
)
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db


def first_stage(explanation: dict) -> float:
    """The first stage's relevance, which these passes make (the learned ranker, when it
    runs, orders by its own and keeps this one as ``first_stage``)."""
    return float(explanation.get("first_stage", explanation["relevance"]))


# Other memories, so that the search scores spread as in a real agent's memory (min-max
# fusion over two memories alone turns any difference into 1 against 0).
OTHERS = [
    "The quarterly revenue report is due on the 15th",
    "Deploy ticket INC-40213 was caused by an expired TLS certificate",
    "The team offsite will be in Lisbon in October",
    "We ordered new chairs for the meeting room",
    "Remember to water the office plants on Mondays",
]


@pytest.fixture(autouse=True)
def others(agent):
    store_memories(agent=agent, items=[MemoryInput(content=text) for text in OTHERS])


def hits(agent, query, top_k=10):
    request = RecallRequest(query=query, top_k=top_k, explain=True)
    return recall(agent=agent, request=request).hits


@pytest.mark.parametrize("person", ["Caroline", "Melanie"])
def test_a_named_speakers_own_words_rank_first(agent, person):
    # The same words from two people: only who said them tells the memories apart.
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="I signed up for a pottery class last week", speaker="Caroline"),
            MemoryInput(content="I signed up for a pottery class last week!", speaker="Melanie"),
        ],
    )
    first, second, *_ = hits(agent, f"What class did {person} sign up for?")
    assert first.memory.speaker == person
    assert (first.explanation["speaker"], second.explanation["speaker"]) == (1.0, 0.0)
    assert first_stage(first.explanation) - first.explanation["fused"] >= SPEAKER_WEIGHT


def test_a_speaker_is_matched_by_first_name(agent):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Dmitri Ivanov: the release slipped to Friday"),
            MemoryInput(content="Olga Petrova: the release slipped to Friday."),
        ],
    )
    first, second, *_ = hits(agent, "When did Dmitri say the release would ship?")
    assert first.memory.speaker == "Dmitri Ivanov"
    assert second.explanation["speaker"] == 0.0


def test_memories_that_mention_the_named_entity_get_the_entity_share(agent):
    mentions, other = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Lunch with Priya at the harbour cafe was great"),
            MemoryInput(content="Lunch with Tomasz at the harbour cafe was great"),
        ],
    )
    by_id = {hit.memory.pk: hit.explanation for hit in hits(agent, "Where did I eat with Priya?")}
    assert by_id[mentions.pk]["entity"] == 1.0
    assert by_id[other.pk]["entity"] == 0.0
    # Half the names of a query that names two people, one of them mentioned.
    both = {hit.memory.pk: hit.explanation for hit in hits(agent, "Did Priya meet Hiroshi?")}
    assert both[mentions.pk]["entity"] == 0.5
    assert first_stage(both[mentions.pk]) == pytest.approx(
        both[mentions.pk]["fused"] + ENTITY_WEIGHT * 0.5 + 0.5 * both[mentions.pk]["neighbour"]
    )


@pytest.mark.parametrize("query", ["Who did Maria Lopez meet?", "Who did Lopez meet?"])
def test_a_whole_name_answers_to_itself_and_to_its_last_name(agent, query):
    # One entity, "Maria Lopez": the query names her in full (both its words count once
    # each) or by her last name.
    mentions, other = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Lunch with Maria Lopez at the harbour cafe was great"),
            MemoryInput(content="Lunch with Tomasz Nowak at the harbour cafe was great"),
        ],
    )
    by_id = {hit.memory.pk: hit.explanation for hit in hits(agent, query)}
    assert by_id[mentions.pk]["entity"] == 1.0
    assert by_id[other.pk]["entity"] == 0.0


def test_a_query_without_names_adds_nothing(agent):
    store_memories(
        agent=agent,
        items=[MemoryInput(content="Lunch with Priya at the harbour cafe", speaker="Priya")],
    )
    hit = hits(agent, "where was lunch?")[0]
    assert hit.memory.speaker == "Priya"
    assert (hit.explanation["entity"], hit.explanation["speaker"]) == (0.0, 0.0)


def test_a_superseded_memory_ranks_below_its_newer_wording(agent):
    text = "Priya's favourite colour is green and she paints every Sunday"
    now = timezone.now()
    old, new = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"{text}.", created_at=now - timedelta(hours=3)),
            MemoryInput(content=f"{text}!", created_at=now),
        ],
    )
    assert MemoryEdge.objects.filter(source=new, target=old, type=EdgeType.SUPERSEDES).exists()
    first, second, *_ = hits(agent, "What colour does Priya like?")
    assert (first.memory.pk, second.memory.pk) == (new.pk, old.pk)
    assert (first.explanation["superseded"], second.explanation["superseded"]) == (False, True)
    parts = second.explanation
    undemoted = (
        parts["fused"]
        + ENTITY_WEIGHT * parts["entity"]
        + SPEAKER_WEIGHT * parts["speaker"]
        + 0.5 * parts["neighbour"]
    )
    assert first_stage(parts) == pytest.approx(SUPERSEDED_FACTOR * undemoted)


@pytest.mark.parametrize(
    ("query", "names", "meaning"),
    [
        ("What do Melanie's kids like?", {"melanie"}, "What do kids like?"),
        ("Did Caroline and Melanie go?", {"caroline"}, "Did and Melanie go?"),
        ("What did Dmitri say?", set(), "What did Dmitri say?"),
        ("Melanie?", {"melanie"}, "Melanie?"),
    ],
)
def test_the_querys_meaning_leaves_out_only_the_names_given(query, names, meaning):
    assert without_names(query, names) == meaning


def test_only_people_who_speak_are_left_to_the_entity_pass(agent):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="I adopted a puppy called Biscuit", speaker="Melanie"),
            MemoryInput(content="Biscuit chewed the sofa again"),
        ],
    )
    assert named_entities(agent, []) == {}
    named = named_entities(agent, ["melanie", "biscuit", "nobody"])
    assert sorted(key for keys in named.values() for key in keys) == ["biscuit", "melanie"]
    assert speaking(agent, named, SHARED_ONLY) == {"melanie"}
    # The recall finds Melanie's words by what is asked, and says she spoke them.
    (first, *_) = hits(agent, "What pet did Melanie adopt?")
    assert first.memory.speaker == "Melanie"
    assert first.explanation["speaker"] == 1.0


def test_how_a_query_is_read_depends_on_the_users_own_conversations_only(agent):
    # Melanie speaks only in Ana's conversations: for Bob, her name stays in the query's
    # meaning as any word does (another user's memories must not shape his recall).
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="I adopted a puppy called Biscuit", speaker="Melanie", user="ana"),
            MemoryInput(content="Melanie sent the invoice", user="bob"),
        ],
    )
    named = named_entities(agent, ["melanie"])
    assert speaking(agent, named, Audience(user="ana")) == {"melanie"}
    assert speaking(agent, named, Audience(user="bob")) == set()
    assert speaking(agent, named, SHARED_ONLY) == set()
