"""Exact dedup (service, API, CLI) and the AutoPilot near-duplicate pass."""

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.utils import timezone

from dewee.cli import main
from facts.models import Fact, FactSource
from memory.exceptions import TooManyCandidates
from memory.maintenance.merge_candidates import content_words, retention_score, states_other_details
from memory.maintenance.near_duplicates import VectorRows, greedy_matching, similar_pairs
from memory.models import SUMMARY_TAG, Memory, MemoryTag
from memory.services import (
    autopilot_dedup_pass,
    consolidate_memories,
    deduplicate_memories,
    end_session,
    idle_sessions_pass,
    start_session,
    user_tags,
)
from memory.services.dedup import DEDUP_MAX_CANDIDATES
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
        "/v1/memories/deduplicate",
        {"agent_id": "support-bot", "memory_type": "episodic", "confirm": True},
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
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot", "confirm": True})
    assert response.status_code == 200
    assert response.json()["dry_run"] is False
    assert Memory.objects.count() == 2


def test_api_deduplicate_only_previews_without_confirm(api, cats):
    plain, comma, shout, _ = cats
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot"})
    assert response.status_code == 200
    assert response.json() == {
        "agent_id": "support-bot",
        "candidates": 4,
        "dry_run": True,
        "merged": 2,
        "groups": [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}],
    }
    assert Memory.objects.count() == 4


def test_api_deduplicate_refuses_dry_run_false_without_confirm(api, cats):
    plain, comma, shout, _ = cats
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot", "dry_run": False})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "confirmation_required"
    assert error["message"] == (
        'This merges 2 duplicates into 1 memories for good; send "confirm": true to proceed'
    )
    assert error["details"]["groups"] == [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}]
    assert Memory.objects.count() == 4
    confirmed = {"agent_id": "support-bot", "dry_run": False, "confirm": True}
    assert api.post("/v1/memories/deduplicate", confirmed).json()["merged"] == 2
    assert Memory.objects.count() == 2


def test_api_deduplicate_dry_run_wins_over_confirm(api, cats):
    body = {"agent_id": "support-bot", "dry_run": True, "confirm": True}
    response = api.post("/v1/memories/deduplicate", body)
    assert response.status_code == 200
    assert response.json()["dry_run"] is True
    assert Memory.objects.count() == 4


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_json(capsys, cats):
    plain, comma, shout, _ = cats
    code = main(["memory", "dedup", "--agent", "support-bot", "--dry-run", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["groups"] == [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}]
    assert Memory.objects.count() == 4
    code = main(["memory", "dedup", "--agent", "support-bot", "--yes", "--json"])
    out, _ = capsys.readouterr()
    assert (code, json.loads(out)["merged"], json.loads(out)["dry_run"]) == (0, 2, False)
    assert Memory.objects.count() == 2
    code = main(["memory", "dedup", "--agent", "support-bot", "--yes"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Merged 0 duplicates" in out
    code = main(["memory", "dedup", "--agent", "nobody", "--json"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert json.loads(out)["error"]["code"] == "agent_not_found"


def everything() -> list[tuple]:
    # The embeddings are arrays (no plain ==); the content they come from is compared.
    columns = [f.attname for f in Memory._meta.concrete_fields if f.name != "embedding"]
    memories = Memory.objects.order_by("pk").values_list(*columns)
    tags = MemoryTag.objects.order_by("pk").values_list()
    return [*memories, *tags, *FactSource.objects.order_by("pk").values_list()]


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_without_yes_shows_what_would_merge_and_changes_nothing(capsys, cats):
    plain, comma, shout, _ = cats
    before = everything()
    code = main(["memory", "dedup", "--agent", "support-bot"])
    out, err = capsys.readouterr()
    assert code == 2  # as every destructive command without --yes
    assert out.splitlines() == [
        "Would merge 2 duplicates into 1 memories of support-bot (4 compared).",
        f"  keep {shout.pk} <- {comma.pk}, {plain.pk}",
    ]
    assert "--yes" in err
    assert everything() == before


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_json_without_yes_is_one_refusal_with_the_groups(capsys, cats):
    plain, comma, shout, _ = cats
    before = everything()
    code = main(["memory", "dedup", "--agent", "support-bot", "--json"])
    out, _ = capsys.readouterr()
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (2, "confirmation_required")
    assert "--yes" in error["message"]
    assert error["details"] == {
        "agent_id": "support-bot",
        "candidates": 4,
        "dry_run": True,
        "merged": 2,
        "groups": [{"kept": shout.pk, "merged": [comma.pk, plain.pk]}],
    }
    assert everything() == before


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_with_nothing_to_merge_needs_no_yes(capsys, agent):
    code = main(["memory", "dedup", "--agent", "support-bot"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "Would merge 0 duplicates" in out


@pytest.mark.django_db(transaction=True)
def test_cli_dedup_dry_run_wins_over_yes(capsys, cats):
    before = everything()
    code = main(["memory", "dedup", "--agent", "support-bot", "--dry-run", "--yes", "--json"])
    out, _ = capsys.readouterr()
    assert (code, json.loads(out)["dry_run"], json.loads(out)["merged"]) == (0, True, 2)
    assert everything() == before


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
    from tenancy.models import Agent

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


def unit(*rows):
    matrix = np.array(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_similar_pairs_across_blocks_best_first_each_pair_once():
    ids = np.array([1, 2, 3, 4], dtype=np.int64)
    matrix = unit([1, 0], [0.99, 0.141], [1, 0.01], [0, 1])
    blocks = iter([VectorRows(ids[i : i + 1], matrix[i : i + 1]) for i in range(4)])
    # Queries 1 and 3 (the recent ones) against every memory, one row per block.
    pairs = similar_pairs(VectorRows(ids[[0, 2]], matrix[[0, 2]]), blocks, threshold=0.98)
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
        # The same numbers in another order are other details: a set of them was one and the
        # same, and 32 MCP sessions storing "Session 5 note 3" and "Session 3 note 5" lost
        # acknowledged writes to the dedup.
        (
            "Session 5 note 3: the user prefers tea",
            "Session 3 note 5: the user prefers tea",
        ),
        # They contradict each other: the same check as facts learned from text.
        (
            "the staging database should not be restarted during the deploy window",
            "the staging database should be restarted during the deploy window",
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
        ("Room 12 on floor 3 is free", "Room 3 on floor 12 is free", True),
        ("Invoice 12 is paid, 12 days late", "Invoice 12 is paid, days late", True),
        ("The user likes green tea.", "The user likes green tea!", False),
        ("The offsite is in May", "The offsite is in June", True),
        (
            "the cache should not be flushed on deploy",
            "the cache should be flushed on deploy",
            True,
        ),
        ("i never drink coffee after lunch", "i drink coffee after lunch", True),
        ("i don't eat meat, i'm vegetarian", "i do not eat meat, i'm a vegetarian", False),
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


# --- merges stay within a conversation and leave no reference dangling ---


def dangling_references(agent) -> list[tuple[int, str]]:
    """(memory id, reference) for each ``memory:<id>`` that names no memory of the agent,
    apart from a merged memory's record of what it absorbed (also in merged_from)."""
    ids = set(Memory.objects.filter(agent=agent).values_list("pk", flat=True))
    found = []
    for memory in Memory.objects.filter(agent=agent):
        absorbed = {entry["id"] for entry in memory.metadata.get("merged_from", [])}
        for ref in memory.source_refs:
            if ref.startswith("memory:") and int(ref[7:]) not in ids | absorbed:
                found.append((memory.pk, ref))
    return found


def test_exact_dedup_merges_only_within_a_session_or_among_memories_without_one(agent, remember):
    one, two = start_session(agent=agent), start_session(agent=agent)
    (first,) = remember("Thanks, that is all for today.", session_id=one.pk)
    (again,) = remember("thanks, that is all for today", session_id=one.pk)
    (elsewhere,) = remember("Thanks, that is all for today.", session_id=two.pk)
    (loose,) = remember("Thanks, that is all for today!")
    (loose_again,) = remember("thanks that is all for today")

    report = deduplicate_memories(agent=agent, actor="test")

    assert sorted((g.kept, g.merged) for g in report.groups) == [
        (first.pk, [again.pk]),
        (loose.pk, [loose_again.pk]),
    ]
    left = set(Memory.objects.filter(agent=agent).values_list("pk", flat=True))
    assert left == {first.pk, elsewhere.pk, loose.pk}
    assert Memory.objects.get(pk=elsewhere.pk).session_id == two.pk


def test_api_deduplicate_keeps_every_sessions_turns(api, agent, remember):
    sessions = [start_session(agent=agent) for _ in range(3)]
    for session in sessions:
        remember("Thanks, bye!", session_id=session.pk)
    remember("Thanks, bye!")
    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot", "confirm": True})
    assert response.status_code == 200
    assert (response.json()["candidates"], response.json()["merged"]) == (4, 0)
    for session in sessions:
        assert Memory.objects.filter(session=session).count() == 1


def test_autopilot_never_merges_near_duplicates_of_different_sessions(agent, remember, settings):
    # Each turn embedded alone, so that the copies are as alike as their words.
    settings.DEWEE_EMBED_SESSION_CONTEXT = False
    one, two = start_session(agent=agent), start_session(agent=agent)
    (mine,) = remember("The user's favourite programming language is Python", session_id=one.pk)
    (theirs,) = remember("The user's favorite programming language is Python", session_id=two.pk)
    (loose,) = remember("The user's favourite programming language is Python.")
    assert min(cosine(mine, theirs), cosine(mine, loose)) >= 0.93

    assert autopilot_dedup_pass().touched == 0
    assert Memory.objects.filter(agent=agent).count() == 3

    # A copy in the same session still merges.
    (copy,) = remember("The user's favourite programming language is Python!", session_id=one.pk)
    result = autopilot_dedup_pass()
    assert dict(result.counts) == {"merged": 1}
    left = set(Memory.objects.filter(agent=agent).values_list("pk", flat=True))
    assert {theirs.pk, loose.pk} <= left
    assert len(left & {mine.pk, copy.pk}) == 1


def test_similar_pairs_pair_only_rows_of_one_scope():
    ids = np.array([1, 2, 3, 4], dtype=np.int64)
    matrix = unit([1, 0], [1, 0], [1, 0], [1, 0])
    # Sessions 7 and 8, and 0 for a memory without one.
    scopes = np.array([7, 8, 7, 0], dtype=np.int64)
    corpus = VectorRows(ids, matrix, scopes)
    # One neighbour per memory: its copies in other scopes must not take that place.
    pairs = similar_pairs(corpus, iter([corpus]), threshold=0.9, per_memory=1)
    assert [(a, b) for _, a, b in greedy_matching(pairs)] == [(1, 3)]


def test_a_summary_citing_a_merged_turn_cites_the_survivor(agent, remember):
    session = start_session(agent=agent)
    turns = remember(
        "Ann asked about tea.",
        "We have green tea.",
        "We have green tea!",
        "Ann ordered two boxes.",
        session_id=session.pk,
    )
    idle_sessions_pass(now=timezone.now() + timedelta(hours=5))
    summary = Memory.objects.get(tag_rows__name=SUMMARY_TAG)
    assert summary.source_refs == [f"session:{session.pk}"] + [f"memory:{m.pk}" for m in turns]

    report = deduplicate_memories(agent=agent, actor="test")

    assert [(g.kept, g.merged) for g in report.groups] == [(turns[1].pk, [turns[2].pk])]
    summary.refresh_from_db()
    assert summary.source_refs == [
        f"session:{session.pk}",
        f"memory:{turns[0].pk}",
        f"memory:{turns[1].pk}",
        f"memory:{turns[3].pk}",
    ]
    assert dangling_references(agent) == []


def test_autopilot_repoints_a_summary_to_the_turn_that_absorbed_another(agent, remember, settings):
    settings.DEWEE_EMBED_SESSION_CONTEXT = False
    session = start_session(agent=agent)
    turns = remember(
        "Which language should the new service use?",
        "The user's favourite programming language is Python",
        "The user's favorite programming language is Python",
        "Then the service will be written in Python.",
        session_id=session.pk,
    )
    end_session(session=session, summary="The new service will be written in Python")

    assert dict(autopilot_dedup_pass().counts) == {"merged": 1}

    (survivor,) = Memory.objects.filter(pk__in=[turns[1].pk, turns[2].pk])
    summary = Memory.objects.get(tag_rows__name=SUMMARY_TAG)
    assert f"memory:{survivor.pk}" in summary.source_refs
    assert dangling_references(agent) == []
    # The survivor records what it absorbed, and never cites itself.
    absorbed = turns[2] if survivor.pk == turns[1].pk else turns[1]
    assert f"memory:{absorbed.pk}" in survivor.source_refs
    assert f"memory:{survivor.pk}" not in survivor.source_refs


def test_a_consolidation_repoints_what_cited_its_originals(agent, remember):
    session = start_session(agent=agent)
    turns = remember(
        "Standup is at 9:30.",
        "Retro is on Thursdays.",
        "Planning is on Mondays.",
        "Demos are on Fridays.",
        session_id=session.pk,
    )
    idle_sessions_pass(now=timezone.now() + timedelta(hours=5))
    merged = consolidate_memories(agent=agent, memory_ids=[turns[0].pk, turns[1].pk], actor="t")
    summary = Memory.objects.get(tag_rows__name=SUMMARY_TAG)
    assert summary.source_refs == [
        f"session:{session.pk}",
        f"memory:{merged.pk}",
        f"memory:{turns[2].pk}",
        f"memory:{turns[3].pk}",
    ]
    assert dangling_references(agent) == []


def test_a_fact_sources_reference_follows_the_merge(agent, cats):
    plain, _, shout, _ = cats
    learned = source(kind="memory_document", memory_id=plain.pk, reference="")
    fact = state(agent, "Acme", source=learned).fact
    assert FactSource.objects.get(fact=fact).reference == f"memory:{plain.pk}"
    deduplicate_memories(agent=agent, actor="test")
    moved = FactSource.objects.get(fact=fact)
    assert (moved.memory_id, moved.reference) == (shout.pk, f"memory:{shout.pk}")
