"""Recall explains a score only when asked (``explain``): each hit then names every signal
behind its score; otherwise no explanation is assembled at all."""

import pytest

from dewee.cli import main
from memory.recall import RecallRequest, recall
from memory.recall import pipeline as recall_pipeline
from memory.recall.ranker import FEATURES, get_ranker
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db

# What each search gave a memory: the normalised scores are kept for the second stage, the
# raw ones only for an explanation.
RAW_SEARCHES = {"vector", "keyword"}
SEARCHES = RAW_SEARCHES | {"vector_norm", "keyword_norm"}
SIGNALS = SEARCHES | {
    "fused",
    "entity",
    "speaker",
    "neighbour",
    "superseded",
    "relevance",
    "flag_factor",
    "importance",
    "recency",
}
EXPLANATION = SIGNALS | {"query_class", "vector_weight", "weights", "score", "features"}


def explanation_keys() -> set[str]:
    """With a ranker (memory.recall.ranker) each hit also shows its first stage's relevance
    and each feature's part in the ranker's score."""
    return EXPLANATION | ({"first_stage", "ranker"} if get_ranker() else set())


@pytest.fixture
def memories(agent):
    return store_memories(
        agent=agent,
        items=[
            MemoryInput(content=text)
            for text in (
                "The TLS certificate of the API gateway expired on Monday.",
                "Ana renewed the TLS certificate with the new authority.",
                "Lunch was a sandwich.",
            )
        ],
    )


def ask(agent, **fields):
    return recall(agent=agent, request=RecallRequest(query="TLS certificate", **fields))


def test_without_explain_no_hit_carries_an_explanation(agent, memories):
    hits = ask(agent).hits
    assert hits
    assert all(hit.explanation is None for hit in hits)


def test_with_explain_each_hit_names_each_signal(agent, memories):
    hits = ask(agent, explain=True).hits
    assert hits
    for hit in hits:
        assert set(hit.explanation) == explanation_keys()
        assert set(hit.explanation["features"]) == set(FEATURES)
        assert set(hit.explanation["weights"]) == {"relevance", "importance", "recency"}
        assert hit.explanation["score"] == hit.score


def test_explaining_changes_no_score_nor_order(agent, memories):
    plain, explained = ask(agent).hits, ask(agent, explain=True).hits
    assert [h.memory.pk for h in plain] == [h.memory.pk for h in explained]
    # Recency moves on between the two recalls, by a hair.
    assert [h.score for h in plain] == pytest.approx([h.score for h in explained])


def test_without_explain_the_search_scores_are_not_even_kept(agent, memories, monkeypatch):
    """The work is skipped, not only its output: relevance keeps what the score needs."""
    kept = []
    relevance = recall_pipeline.relevance

    def spy(*args, **kwargs):
        parts = relevance(*args, **kwargs)
        kept.append({name for entry in parts.values() for name in entry})
        return parts

    monkeypatch.setattr(recall_pipeline, "relevance", spy)
    ask(agent)
    ask(agent, explain=True)
    plain, explained = kept
    assert not plain & RAW_SEARCHES
    assert explained >= SEARCHES


def test_the_api_explains_only_when_asked(api, agent, memories):
    body = {"agent_id": agent.agent_id, "query": "TLS certificate"}
    plain = api.post("/v1/memory/recall", body)
    assert plain.status_code == 200, plain.content
    for item in plain.json()["items"]:
        assert item["explanation"] is None
        # importance and speaker are the memory's own fields, as every memory shows them.
        assert not set(item) & (SIGNALS - {"importance", "speaker"})
    explained = api.post("/v1/memory/recall", {**body, "explain": True})
    assert explained.status_code == 200, explained.content
    items = explained.json()["items"]
    assert items
    for item in items:
        assert set(item["explanation"]) == explanation_keys()


def test_the_cli_explains_only_when_asked(agent, memories, capsys):
    search = ["memory", "search", "--agent", agent.agent_id, "--query", "TLS certificate"]
    assert main([*search, "--json"]) == 0
    plain = capsys.readouterr().out
    assert '"explanation"' not in plain
    assert main([*search, "--json", "--explain"]) == 0
    assert '"vector_norm"' in capsys.readouterr().out


def test_the_dashboard_search_shows_each_rows_signals(admin_client, agent, memories):
    response = admin_client.get("/dashboard/memory/", {"agent": agent.agent_id, "q": "TLS"})
    rows = response.context["rows"]
    assert rows
    assert all(set(row["explanation"]) == explanation_keys() for row in rows)
