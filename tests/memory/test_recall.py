"""Recall finds memories by meaning and by keyword, honours every filter, explains itself,
and leaves importance alone."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.exceptions import SessionNotFound
from memory.models import Memory
from memory.recall import (
    FLAGGED_FACTOR,
    QueryClass,
    RecallFilters,
    RecallRequest,
    Weights,
    classify_query,
    recall,
)
from memory.recall.scoring import best_first, flag_factor
from memory.services import MemoryInput, start_session, store_memories

pytestmark = pytest.mark.django_db

CORPUS = [
    "Ann adopted a golden retriever puppy named Biscuit last spring",
    "The quarterly revenue report is due on the 15th",
    "Deploy ticket INC-40213 was caused by an expired TLS certificate",
    "Ann is allergic to peanuts and avoids Thai restaurants",
    "The team offsite will be in Lisbon in October",
    "Bob's favourite programming language is Rust",
]


@pytest.fixture
def corpus(agent):
    return store_memories(agent=agent, items=[MemoryInput(content=c) for c in CORPUS])


def top(agent, query, **fields):
    request = RecallRequest(query=query, **fields)
    return [hit.memory.content for hit in recall(agent=agent, request=request).hits]


def test_recall_by_meaning_without_shared_words(agent, corpus):
    assert top(agent, "Which pet does she own?", routing="vector")[0] == CORPUS[0]
    assert top(agent, "food intolerance", routing="vector")[0] == CORPUS[3]


def test_recall_by_keyword_finds_an_exact_identifier(agent, corpus):
    assert top(agent, "INC-40213", routing="keyword") == [CORPUS[2]]


def test_hybrid_recall_ranks_the_answer_first(agent, corpus):
    assert top(agent, "Where is the offsite this year?")[0] == CORPUS[4]
    assert top(agent, "What language does Bob like to code in?")[0] == CORPUS[5]


def test_top_k_limits_the_results(agent, corpus):
    assert len(top(agent, "Ann", top_k=2)) == 2


def test_recall_never_sees_another_agents_memories(agent, other_agent, corpus):
    store_memories(agent=other_agent, items=[MemoryInput(content="Ann owns a parrot")])
    for routing in ("vector", "keyword", "hybrid", "auto"):
        found = top(agent, "Ann parrot", routing=routing, top_k=20)
        assert "Ann owns a parrot" not in found
    assert top(other_agent, "golden retriever puppy", top_k=20) == ["Ann owns a parrot"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's HNSW index")
def test_an_agent_whose_memories_the_approximate_index_does_not_reach_is_still_recalled(
    agent, other_agent
):
    """The table's nearest vectors are another agent's, and the HNSW scan may visit only a
    few tuples beyond its first pass (as on a big table whose index holds many other or
    dead rows): it ends with none of this agent's memories, which are then ranked exactly."""
    import numpy as np

    from memory.embeddings.engine import get_embedder

    store_memories(agent=agent, items=[MemoryInput(content="Ann owns a parrot")])
    (near,) = get_embedder().embed(["golden retriever puppy"])
    noise = np.random.default_rng(7).normal(0, 0.02, (3000, len(near)))
    vectors = near + noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    Memory.objects.bulk_create(
        Memory(
            agent=other_agent,
            content=f"a dog {i}",
            embedding=vector.astype(np.float32),
            created_at=timezone.now(),
            updated_at=timezone.now(),
        )
        for i, vector in enumerate(vectors)
    )
    with connection.cursor() as cursor:
        # Undone with the test's transaction: the index's plan (the one that needs no
        # sort), and a scan of at most 10 tuples after the first pass.
        cursor.execute("SET enable_sort = off")
        cursor.execute("SET hnsw.max_scan_tuples = 10")
    assert top(agent, "golden retriever puppy", routing="vector") == ["Ann owns a parrot"]


def test_filters_by_session_tags_type_importance_and_time(agent):
    session = start_session(agent=agent)
    old = timezone.now() - timedelta(days=30)
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="cat food brand is Whiskas", session_id=session.pk),
            MemoryInput(content="cat vet appointment on Monday", tags=["vet"]),
            MemoryInput(content="cat sitter procedure", memory_type="procedural"),
            MemoryInput(content="cat allergy note", importance=0.9),
            MemoryInput(content="cat adopted years ago", created_at=old),
        ],
    )

    def only(**filters):
        return top(agent, "cat", filters=RecallFilters(**filters), top_k=10)

    assert only(session_id=session.pk) == ["cat food brand is Whiskas"]
    assert only(tags=["vet"]) == ["cat vet appointment on Monday"]
    assert only(memory_type="procedural") == ["cat sitter procedure"]
    assert only(min_importance=0.8) == ["cat allergy note"]
    assert only(until=old + timedelta(days=1)) == ["cat adopted years ago"]
    assert "cat adopted years ago" not in only(since=old + timedelta(days=1))


def test_expired_memories_are_never_recalled(agent):
    (gone,) = store_memories(
        agent=agent, items=[MemoryInput(content="temporary door code 4711", ttl_seconds=60)]
    )
    assert top(agent, "door code") == ["temporary door code 4711"]
    Memory.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    for routing in ("vector", "keyword", "auto"):
        assert top(agent, "door code", routing=routing) == []


def test_explain_returns_the_components_of_the_score(agent, corpus):
    result = recall(agent=agent, request=RecallRequest(query="TLS certificate", explain=True))
    best = result.hits[0]
    e = best.explanation
    assert e is not None
    assert best.memory.content == CORPUS[2]
    assert e["vector"] > 0
    assert e["keyword"] > 0
    w = e["weights"]
    expected = (
        w["relevance"] * e["relevance"]
        + w["importance"] * e["importance"]
        + (w["recency"] * e["recency"])
    )
    assert best.score == pytest.approx(expected)


def test_the_score_weighs_the_three_signals_and_keeps_a_share_when_flagged():
    weights = Weights(relevance=0.8, importance=0.1, recency=0.1)
    signals = {"relevance": 1.0, "importance": 0.5, "recency": 0.0}
    assert weights.score(**signals, flag_factor=flag_factor(None)) == pytest.approx(0.85)
    flagged = weights.score(**signals, flag_factor=flag_factor(timezone.now()))
    assert flagged == pytest.approx(0.85 * FLAGGED_FACTOR)


def test_weights_can_put_importance_first(agent):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="espresso machine manual", importance=0.1),
            MemoryInput(content="notes about the coffee grinder", importance=1.0),
        ],
    )
    ranked = top(
        agent, "espresso machine", weights=Weights(relevance=0.05, importance=1.0, recency=0.0)
    )
    assert ranked[0] == "notes about the coffee grinder"


def test_rrf_fusion_is_available(agent, corpus):
    assert top(agent, "TLS certificate incident", fusion="rrf")[0] == CORPUS[2]


def test_neighbouring_turns_of_a_strong_match_are_recalled(agent):
    session = start_session(agent=agent)
    turns = [
        "Have you picked the venue for the wedding?",
        "Yes! The old lighthouse by the harbour.",
        "Unrelated chatter about the weather today.",
    ]
    store_memories(
        agent=agent, items=[MemoryInput(content=t, session_id=session.pk) for t in turns]
    )
    ranked = top(agent, "wedding venue", top_k=2)
    assert set(ranked) == {turns[0], turns[1]}


ACCESS = ("access_count", "last_accessed_at", "decay_base", "decay_from", "expires_at")


def access_of_all() -> dict[int, tuple]:
    return {pk: tuple(rest) for pk, *rest in Memory.objects.values_list("pk", *ACCESS)}


def test_a_recall_records_no_access_unless_asked(agent, corpus):
    before = access_of_all()
    (hit,) = recall(agent=agent, request=RecallRequest(query="TLS certificate", top_k=1)).hits
    assert access_of_all() == before
    # The hit shows the memory as it is, not an access that did not happen.
    assert tuple(getattr(hit.memory, name) for name in ACCESS) == before[hit.memory.pk]


def test_recall_records_access_but_keeps_importance(agent, corpus):
    request = RecallRequest(query="TLS certificate", top_k=1)
    recall(agent=agent, request=request, record_access=True)
    memory = Memory.objects.get(content=CORPUS[2])
    assert (memory.access_count, memory.importance) == (1, 0.5)
    assert Memory.objects.filter(access_count=0).count() == len(CORPUS) - 1


def test_a_recall_shows_the_access_it_recorded(agent, corpus):
    request = RecallRequest(query="TLS certificate", top_k=1)
    (first,) = recall(agent=agent, request=request, record_access=True).hits
    stored = Memory.objects.get(pk=first.memory.pk)
    assert (first.memory.access_count, first.memory.last_accessed_at) == (
        1,
        stored.last_accessed_at,
    )
    assert first.memory.last_accessed_at is not None
    (second,) = recall(agent=agent, request=request, record_access=True).hits
    assert second.memory.access_count == 2 == Memory.objects.get(pk=stored.pk).access_count


def test_showing_the_access_costs_no_query_per_hit(agent, corpus):
    def queries(top_k):
        with CaptureQueriesContext(connection) as captured:
            request = RecallRequest(query="Ann", top_k=top_k)
            hits = recall(agent=agent, request=request, record_access=True).hits
        assert len(hits) == top_k
        return len(captured)

    queries(1)  # the vector cache is loaded once, by the first recall
    assert queries(5) == queries(1)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"query": ""}, "query"),
        ({"top_k": 0}, "top_k"),
        ({"top_k": 101}, "top_k"),
        ({"routing": "psychic"}, "routing"),
        ({"fusion": "blend"}, "fusion"),
        ({"filters": RecallFilters(memory_type="dream")}, "memory_type"),
        ({"filters": RecallFilters(min_importance=1.5)}, "min_importance"),
    ],
)
def test_bad_requests_are_refused(agent, corpus, fields, field):
    with pytest.raises(InvalidInput) as error:
        recall(agent=agent, request=RecallRequest(**{"query": "x", **fields}), record_access=True)
    assert error.value.field == field
    assert not Memory.objects.filter(access_count__gt=0).exists()


def test_unknown_session_filter_is_not_found(agent, corpus):
    with pytest.raises(SessionNotFound):
        recall(
            agent=agent, request=RecallRequest(query="x", filters=RecallFilters(session_id=99_999))
        )


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("When did Ann adopt the puppy?", QueryClass.TEMPORAL),
        ("What do Ann and Bob have in common?", QueryClass.MULTI_HOP),
        ("INC-40213", QueryClass.KEYWORD),
        ("What kind of restaurants does she avoid and why is that so?", QueryClass.MULTI_HOP),
        ("What kind of restaurants does she usually avoid?", QueryClass.SEMANTIC),
    ],
)
def test_query_classification(query, kind):
    assert classify_query(query) == kind


def test_the_vector_cache_follows_inserts_updates_and_deletes(agent):
    """Each recall sees the agent's memories as they are now, whatever changed in between
    (the embedded edition keeps vectors in memory and refreshes them by difference)."""
    from memory.services import delete_memory, update_memory

    (first,) = store_memories(agent=agent, items=[MemoryInput(content="Ann plays the cello")])
    assert top(agent, "string instrument", routing="vector") == ["Ann plays the cello"]
    (second,) = store_memories(agent=agent, items=[MemoryInput(content="Bob grows tomatoes")])
    assert top(agent, "vegetable garden", routing="vector")[0] == "Bob grows tomatoes"
    update_memory(memory=second, content="Bob restores old motorbikes")
    assert top(agent, "vintage motorcycle repair", routing="vector")[0] == (
        "Bob restores old motorbikes"
    )
    delete_memory(memory=first, actor="t")
    assert top(agent, "string instrument", routing="vector") == ["Bob restores old motorbikes"]


def test_memories_above_the_best_match_do_not_tie_at_a_cap(agent, settings):
    """Relevance is not capped: two memories that match and sit next to each other used to
    tie at 1.0 (with equal importance and recency), and the tie went to the newer one. (The
    first stage's relevance: the learned ranker is off here.)"""
    settings.DEWEE_RECALL_RANKER = "off"
    extra = "A new cafe opened by the harbour."
    store_memories(agent=agent, items=[MemoryInput(content=c) for c in [*CORPUS, extra]])
    session = start_session(agent=agent)
    pair = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=t, session_id=session.pk)
            for t in (
                "The lighthouse wedding venue by the harbour wants a deposit.",
                "The wedding venue is the old lighthouse.",
            )
        ],
    )
    request = RecallRequest(
        query="lighthouse wedding venue by the harbour", top_k=3, routing="keyword", explain=True
    )
    hits = recall(agent=agent, request=request).hits
    relevance = {hit.memory.pk: (hit.explanation or {})["relevance"] for hit in hits}
    best, second = sorted(pair, key=lambda m: -relevance[m.pk])
    assert relevance[best.pk] > relevance[second.pk] > 1.0
    assert [hit.memory.pk for hit in hits[:2]] == [best.pk, second.pk]


def test_equal_scores_rank_by_relevance_then_fused_score_then_recency_then_id():
    rows = [(0.5, 1, 0.5, 0.2), (0.5, 2, 0.5, 0.2), (0.5, 3, 0.5, 0.9), (0.5, 4, 0.5, 0.2)]
    parts = {
        1: {"relevance": 0.7, "fused": 0.6},
        2: {"relevance": 0.7, "fused": 0.6},
        3: {"relevance": 0.7, "fused": 0.6},
        4: {"relevance": 0.7, "fused": 0.7},
    }
    assert [row[1] for row in best_first(rows, parts)] == [4, 3, 2, 1]
    parts[1]["relevance"] = 0.8
    assert [row[1] for row in best_first(rows, parts)] == [1, 4, 3, 2]
