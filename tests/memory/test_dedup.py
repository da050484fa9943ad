"""Exact dedup (service, API, CLI) and the AutoPilot near-duplicate pass."""

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.utils import timezone

from dewee.cli import main
from facts.models import Fact, FactSource
from memory.consolidation import content_words, retention_score, states_other_details
from memory.exceptions import TooManyCandidates
from memory.models import Memory
from memory.services import (
    autopilot_dedup_pass,
    deduplicate_memories,
    user_tags,
)
from memory.services.consolidation import DEDUP_MAX_CANDIDATES
from tests.factories import source, state

pytestmark = pytest.mark.django_db


def at(day: int, month: int = 1) -> datetime:
    return datetime(2024, month, day, 12, tzinfo=UTC)


def test_words_ignore_case_punctuation_and_spacing_but_not_order():
    assert content_words("The cat sat.") == ("the", "cat", "sat")
    assert content_words("  the  cat,sat!") == ("the", "cat", "sat")
    assert content_words("sat the cat") == ("sat", "the", "cat")


@pytest.fixture
def cats(remember):
    (plain,) = remember(
        "The cat sat.", importance=0.4, source_refs=["msg-1"], tags=["pets"], access_count=2
    )
    (comma,) = remember(
        "the cat, sat",
        importance=0.6,
        source_refs=["msg-2"],
        tags=["animals"],
        created_at=at(10),
        access_count=1,
    )
    (shout,) = remember("THE   CAT SAT!", importance=0.6, created_at=at(3), access_count=4)
    (reordered,) = remember("sat the cat", importance=0.9)
    return plain, comma, shout, reordered


def test_dedup_merges_true_duplicates_into_the_most_important_oldest_copy(agent, cats):
    plain, comma, shout, reordered = cats
    fact = state(agent, "Acme", source=source(kind="memory_document", memory_id=plain.pk)).fact
    report = deduplicate_memories(agent=agent, actor="test")
    # comma and shout tie on importance (0.6); shout is older (3 Jan against 10 Jan).
    assert report.as_dict()["groups"] == [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}]
    assert report.as_dict()["merged"] == 2
    kept = Memory.objects.get(pk=shout.pk)
    assert kept.content == "THE   CAT SAT!"
    assert kept.importance == 0.6
    assert kept.access_count == 7
    assert kept.created_at == at(3)
    assert sorted(kept.source_refs) == sorted(
        ["msg-1", "msg-2", f"memory:{plain.pk}", f"memory:{comma.pk}"]
    )
    assert sorted(user_tags(kept)) == ["animals", "pets"]
    assert sorted(e["content"] for e in kept.metadata["merged_from"]) == [
        "The cat sat.",
        "the cat, sat",
    ]
    assert not Memory.objects.filter(pk__in=[plain.pk, comma.pk]).exists()
    assert Memory.objects.filter(pk=reordered.pk).exists()
    assert Fact.objects.filter(pk=fact.pk).exists()
    assert FactSource.objects.get(fact=fact).memory_id == shout.pk


def test_same_words_with_different_entities_are_not_duplicates(agent, remember):
    named, plain = remember("Ann met Bob in Lisbon", "ann met bob in lisbon")
    report = deduplicate_memories(agent=agent, actor="test")
    assert report.groups == []
    assert Memory.objects.filter(pk__in=[named.pk, plain.pk]).count() == 2


def test_dry_run_reports_groups_and_changes_nothing(agent, cats):
    plain, comma, shout, _ = cats
    before = sorted(Memory.objects.values_list("pk", "content", "importance", "access_count"))
    report = deduplicate_memories(agent=agent, actor="test", dry_run=True)
    assert report.as_dict()["groups"] == [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}]
    assert report.dry_run
    after = sorted(Memory.objects.values_list("pk", "content", "importance", "access_count"))
    assert after == before
    assert Memory.objects.get(pk=shout.pk).metadata == {}


def test_dedup_only_touches_the_type_asked_for(agent, remember):
    (episode,) = remember("Ann likes tea")
    (fact_a, fact_b) = remember("Ann likes tea.", "Ann  likes tea", memory_type="semantic")
    report = deduplicate_memories(agent=agent, actor="test", memory_type="semantic")
    assert report.candidates == 2
    assert report.as_dict()["groups"] == [{"kept": fact_a.pk, "merged": [fact_b.pk]}]
    assert Memory.objects.filter(pk=episode.pk).exists()


def _cheap_memories(agent, count: int, memory_type: str) -> None:
    """Rows without vectors, straight through the ORM: the limit counts rows, and storing
    5,000 memories through the embedder would take most of a minute."""
    now = timezone.now()
    Memory.objects.bulk_create(
        [
            Memory(
                agent=agent,
                content=f"note number {i}",
                memory_type=memory_type,
                created_at=now,
                updated_at=now,
            )
            for i in range(count)
        ],
        batch_size=1000,
    )


def test_more_than_five_thousand_candidates_are_refused_unless_narrowed(agent, api, remember):
    _cheap_memories(agent, DEDUP_MAX_CANDIDATES + 1, "working")
    remember("Ann likes tea", "Ann likes tea!")
    with pytest.raises(TooManyCandidates):
        deduplicate_memories(agent=agent, actor="test", memory_type="working", dry_run=True)
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "too_many_candidates"
    assert "memory_type" in error["message"]
    assert error["details"] == {"candidates": DEDUP_MAX_CANDIDATES + 3, "limit": 5000}
    response = api.post(
        "/v1/memories/deduplicate", {"agent_id": "support-bot", "memory_type": "episodic"}
    )
    assert response.status_code == 200
    assert (response.json()["candidates"], response.json()["merged"]) == (2, 1)


def test_api_deduplicate(api, other_api, cats):
    plain, comma, shout, _ = cats
    response = other_api.post("/v1/memories/deduplicate", {"agent_id": "support-bot"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "agent_not_found"
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot", "dry_run": True})
    assert response.status_code == 200
    assert response.json() == {
        "agent_id": "support-bot",
        "candidates": 4,
        "dry_run": True,
        "merged": 2,
        "groups": [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}],
    }
    assert Memory.objects.count() == 4
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot"})
    assert response.json()["dry_run"] is False
    assert Memory.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_json(capsys, cats):
    plain, comma, shout, _ = cats
    code = main(["memory", "dedup", "--agent", "support-bot", "--dry-run", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["groups"] == [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}]
    assert Memory.objects.count() == 4
    code = main(["memory", "dedup", "--agent", "support-bot", "--json"])
    out, _ = capsys.readouterr()
    assert (code, json.loads(out)["merged"], json.loads(out)["dry_run"]) == (0, 2, False)
    assert Memory.objects.count() == 2
    code = main(["memory", "dedup", "--agent", "support-bot"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Merged 0 duplicates" in out
    code = main(["memory", "dedup", "--agent", "nobody", "--json"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert json.loads(out)["error"]["code"] == "agent_not_found"


# --- AutoPilot dedup ---


def test_retention_score_against_hand_computed_values():
    now = at(1, 6)
    # 0.6 x 0.5 + 0.2 x ln(4)/ln(11) + 0.2 x 0.5 ** (30 / 30)
    assert retention_score(
        importance=0.5,
        access_count=3,
        last_accessed_at=now - timedelta(days=30),
        created_at=at(1),
        now=now,
    ) == pytest.approx(0.3 + 0.2 * 0.5781282 + 0.1, abs=1e-6)
    # Never accessed, created 60 days ago: 0.6 x 0.2 + 0 + 0.2 x 0.25.
    assert retention_score(
        importance=0.2,
        access_count=0,
        last_accessed_at=None,
        created_at=now - timedelta(days=60),
        now=now,
    ) == pytest.approx(0.17)
    # Used more than ten times counts as fully used.
    assert retention_score(
        importance=1.0, access_count=50, last_accessed_at=now, created_at=now, now=now
    ) == pytest.approx(1.0)


def cosine(a: Memory, b: Memory) -> float:
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.embedding is not None
    assert b.embedding is not None
    return float(np.dot(a.embedding, b.embedding))


@pytest.fixture
def offsite(remember):
    now = timezone.now()
    (older,) = remember(
        "Ann booked the Lisbon offsite venue for the team in May",
        importance=0.5,
        created_at=now - timedelta(days=60),
    )
    (newer,) = remember(
        "Ann has booked the Lisbon offsite venue for the team in May",
        importance=0.5,
        access_count=10,
        last_accessed_at=now,
    )
    (budget,) = remember("The quarterly budget review moved to Thursday afternoon")
    assert cosine(older, newer) >= 0.93
    assert cosine(older, budget) < 0.5
    return older, newer, budget


def test_autopilot_merges_near_duplicates_keeping_the_higher_retention(agent, offsite):
    older, newer, budget = offsite
    # Retention: newer 0.3 + 0.2 + 0.2 = 0.7; older 0.3 + 0 + 0.2 x 0.25 = 0.35.
    result = autopilot_dedup_pass()
    assert (result.touched, dict(result.counts)) == (2, {"merged": 1})
    assert not Memory.objects.filter(pk=older.pk).exists()
    kept = Memory.objects.get(pk=newer.pk)
    assert kept.content.startswith("Ann has booked")
    assert [e["content"] for e in kept.metadata["merged_from"]] == [older.content]
    assert f"memory:{older.pk}" in kept.source_refs
    assert kept.created_at == older.created_at
    assert Memory.objects.filter(pk=budget.pk).exists()


def test_autopilot_dedup_dry_run_changes_nothing(agent, offsite):
    before = sorted(Memory.objects.values_list("pk", "content", "importance"))
    result = autopilot_dedup_pass(dry_run=True)
    assert (result.touched, dict(result.counts)) == (2, {"merged": 1})
    assert sorted(Memory.objects.values_list("pk", "content", "importance")) == before


def test_a_memory_is_merged_at_most_once_per_pass(agent, remember):
    memories = remember(
        "The user's favourite programming language is Python",
        "The user's favorite programming language is Python",
        "The user's favourite programming language is Python.",
    )
    assert Memory.objects.filter(agent=agent).count() == 3
    assert autopilot_dedup_pass().touched == 2
    assert Memory.objects.filter(pk__in=[m.pk for m in memories]).count() == 2
    assert autopilot_dedup_pass().touched == 2
    assert Memory.objects.filter(pk__in=[m.pk for m in memories]).count() == 1


def test_autopilot_dedup_leaves_other_agents_alone(agent, offsite, other_agent):
    from memory.models import Agent

    result = autopilot_dedup_pass(agents=Agent.objects.filter(pk=other_agent.pk))
    assert result.touched == 0
    assert Memory.objects.filter(agent=agent).count() == 3


def test_autopilot_compares_only_what_changed_since_its_last_run(agent, remember):
    from memory.models import MaintenanceJob, MaintenanceRun, RunStatus

    old = remember(
        "The user's favourite programming language is Python",
        "The user's favorite programming language is Python",
    )
    # A finished run after these were stored: they were compared then (and kept apart,
    # say, by an operator), so the next pass does not compare them again.
    MaintenanceRun.objects.create(
        job=MaintenanceJob.DEDUP, status=RunStatus.SUCCEEDED, started_at=timezone.now()
    )
    assert autopilot_dedup_pass().touched == 0
    # A new copy is compared against every memory of the agent, old ones included.
    (new,) = remember("The user's favourite programming language is Python!")
    assert autopilot_dedup_pass().touched == 2
    assert Memory.objects.filter(pk__in=[m.pk for m in [*old, new]]).count() == 2


def test_similar_pairs_across_blocks_best_first_each_pair_once():
    from memory.consolidation import greedy_matching, similar_pairs

    def unit(*rows):
        matrix = np.array(rows, dtype=np.float32)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    ids = np.array([1, 2, 3, 4], dtype=np.int64)
    matrix = unit([1, 0], [0.99, 0.141], [1, 0.01], [0, 1])
    blocks = iter([(ids[i : i + 1], matrix[i : i + 1]) for i in range(4)])
    # Queries 1 and 3 (the recent ones) against every memory, one row per block.
    pairs = similar_pairs((ids[[0, 2]], matrix[[0, 2]]), blocks, threshold=0.98)
    # cos(1,3) = 0.99995, cos(2,3) = 0.9914, cos(1,2) = 0.9901; 4 is orthogonal.
    assert [(a, b) for _, a, b in pairs] == [(1, 3), (2, 3), (1, 2)]
    assert pairs[0][0] == pytest.approx(0.99995, abs=1e-4)
    assert [(a, b) for _, a, b in greedy_matching(pairs)] == [(1, 3)]


@pytest.mark.parametrize(
    "pair",
    [
        (
            "The customer asked for a refund of order 1003 yesterday",
            "The customer asked for a refund of order 1007 yesterday",
        ),
        (
            "Ann booked the Lisbon offsite venue for the team in May",
            "Ann booked the Lisbon offsite venue for the team in June",
        ),
    ],
)
def test_autopilot_keeps_apart_near_duplicates_that_state_other_details(agent, remember, pair):
    first, second = remember(*pair)
    assert cosine(first, second) >= 0.93  # alike enough to merge on similarity alone
    result = autopilot_dedup_pass(dry_run=True)
    assert (result.touched, dict(result.counts)) == (0, {"kept_apart": 1})
    result = autopilot_dedup_pass()
    assert (result.touched, dict(result.counts)) == (0, {"kept_apart": 1})
    assert Memory.objects.filter(pk__in=[first.pk, second.pk]).count() == 2


@pytest.mark.parametrize(
    ("first", "second", "apart"),
    [
        ("We met Ann at the cafe", "We met Bob at the cafe", True),
        ("Invoice 12 is paid", "Invoice 13 is paid", True),
        ("The user likes green tea.", "The user likes green tea!", False),
        ("The offsite is in May", "The offsite is in June", True),
    ],
)
def test_which_pairs_state_other_details(remember, first, second, apart):
    pair = Memory.objects.filter(pk__in=[m.pk for m in remember(first, second)])
    assert states_other_details(*pair.prefetch_related("tag_rows")) is apart


def test_a_pair_kept_apart_does_not_rob_a_memory_of_its_true_duplicate(agent, remember):
    may, june, also_may = remember(
        "Ann booked the Lisbon offsite venue for the team in May",
        "Ann booked the Lisbon offsite venue for the team in June",
        "Ann booked the Lisbon offsite venue for everyone in May",
    )
    # May's closest match is June (kept apart); its true duplicate comes second.
    assert cosine(may, june) > cosine(may, also_may) >= 0.93 > cosine(june, also_may)
    result = autopilot_dedup_pass()
    assert dict(result.counts) == {"kept_apart": 1, "merged": 1}
    left = set(Memory.objects.filter(agent=agent).values_list("pk", flat=True))
    assert june.pk in left
    assert len(left & {may.pk, also_may.pk}) == 1
