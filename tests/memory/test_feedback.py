"""Feedback on memories: the arithmetic of votes, flags in recall, and the API's history,
summary and health; errors and isolation."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memory.models import Memory, MemoryFeedback
from memory.recall import FLAGGED_FACTOR, RecallRequest, recall
from memory.services import MemoryInput, record_feedback, store_memories
from tenancy.models import ApiKey
from tests.factories import make_agent
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db


def memory_of(agent, content="Ann likes green tea", importance=0.5):
    (memory,) = store_memories(
        agent=agent, items=[MemoryInput(content=content, importance=importance)]
    )
    return memory


def fresh(memory):
    return Memory.objects.get(pk=memory.pk)


# --- the service ---


def test_an_upvote_adds_five_hundredths_and_five_percent_and_counts_as_an_access(agent):
    memory = memory_of(agent, importance=0.5)
    now = timezone.now()
    result = record_feedback(memory=memory, kind="upvote", actor="key:abc", now=now)
    memory = fresh(memory)
    assert memory.importance == pytest.approx(0.575)  # 0.5 + 0.05 + 0.025
    assert (memory.access_count, memory.last_accessed_at) == (1, now)
    # Decay starts over from the new importance.
    assert (memory.decay_base, memory.decay_from) == (pytest.approx(0.575), now)
    feedback = result.feedback
    assert (feedback.kind, feedback.actor, feedback.importance_before) == ("upvote", "key:abc", 0.5)
    assert feedback.importance_after == pytest.approx(0.575)


def test_an_upvote_stops_at_one(agent):
    memory = memory_of(agent, importance=0.98)
    record_feedback(memory=memory, kind="upvote", actor="t")  # 0.98 + 0.05 + 0.049 = 1.079
    assert fresh(memory).importance == 1.0


def test_a_downvote_takes_fifteen_hundredths_and_stops_at_zero(agent):
    memory = memory_of(agent, importance=0.5)
    now = timezone.now()
    record_feedback(memory=memory, kind="downvote", actor="t", now=now)
    assert fresh(memory).importance == pytest.approx(0.35)
    low = memory_of(agent, "Ann once mentioned rain", importance=0.1)
    record_feedback(memory=low, kind="downvote", actor="t", now=now)
    low = fresh(low)
    assert (low.importance, low.decay_base, low.decay_from) == (0.0, 0.0, now)
    assert low.access_count == 0  # only an upvote is an access


def test_a_flag_marks_the_memory_and_leaves_its_importance(agent):
    memory = memory_of(agent, importance=0.6)
    now = timezone.now()
    result = record_feedback(memory=memory, kind="flag", actor="t", note="off topic", now=now)
    memory = fresh(memory)
    assert (memory.importance, memory.flagged_at, memory.access_count) == (0.6, now, 0)
    assert (result.feedback.importance_before, result.feedback.importance_after) == (0.6, 0.6)
    assert result.feedback.note == "off topic"


def test_an_unknown_kind_is_refused_and_nothing_is_recorded(agent):
    from dewee.errors import InvalidInput

    memory = memory_of(agent)
    with pytest.raises(InvalidInput) as caught:
        record_feedback(memory=memory, kind="like", actor="t")
    assert caught.value.field == "kind"
    assert not MemoryFeedback.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_votes_all_count():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite runs one writer at a time: there is no race to lose")
    from tests.factories import make_workspace

    agent = make_agent(make_workspace("race"), "race-bot")
    memory = memory_of(agent, importance=0.1)
    barrier = threading.Barrier(4)

    def vote():
        try:
            barrier.wait()
            record_feedback(memory=memory, kind="upvote", actor="t")
        finally:
            connection.close()

    threads = [threading.Thread(target=vote) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    memory = fresh(memory)
    # x -> 1.05 x + 0.05 four times from 0.1: (0.1 + 1) * 1.05^4 - 1 = 0.337056875
    assert memory.importance == pytest.approx(0.337056875)
    assert memory.access_count == 4


# --- recall ---


def test_recall_ranks_a_flagged_memory_below_an_otherwise_equal_one(agent):
    # No name: two copies that share one would be a newer wording superseding the older
    # (memory.services.graph), which recall demotes.
    older = memory_of(agent, "drinks oolong tea every morning")
    newer = memory_of(agent, "drinks oolong tea every morning")
    request = RecallRequest(query="oolong tea", top_k=2, explain=True, rerank=False)
    # Unflagged, the newer one wins the tie (a hair more recent).
    assert [h.memory.pk for h in recall(agent=agent, request=request).hits] == [newer.pk, older.pk]

    record_feedback(memory=newer, kind="flag", actor="t")
    hits = recall(agent=agent, request=request).hits

    assert [h.memory.pk for h in hits] == [older.pk, newer.pk]
    top, flagged = hits
    assert top.explanation is not None
    assert flagged.explanation is not None
    assert (top.explanation["flag_factor"], flagged.explanation["flag_factor"]) == (1.0, 0.5)
    assert flagged.score == pytest.approx(FLAGGED_FACTOR * top.score, rel=1e-6)

    # Unflagged again (a mistaken flag), it ranks as before, and both are in its history.
    record_feedback(memory=newer, kind="unflag", actor="t")
    hits = recall(agent=agent, request=request).hits
    assert [h.memory.pk for h in hits] == [newer.pk, older.pk]
    assert fresh(newer).flagged_at is None
    assert [f.kind for f in newer.feedback.order_by("id")] == ["flag", "unflag"]


# --- the API ---


def vote(api, memory_id, kind, note=None):
    body = {"kind": kind} | ({"note": note} if note is not None else {})
    return api.post(f"/v1/memories/{memory_id}/feedback", body)


def test_api_feedback_returns_the_memory_and_the_record(api, agent, workspace):
    memory = memory_of(agent, importance=0.5)
    response = vote(api, memory.pk, "upvote", note="spot on")
    assert response.status_code == 201
    body = response.json()
    assert body["memory"]["id"] == memory.pk
    assert body["memory"]["importance"] == pytest.approx(0.575)
    assert (body["memory"]["access_count"], body["memory"]["flagged_at"]) == (1, None)
    key = ApiKey.objects.get(workspace=workspace)
    feedback = body["feedback"]
    assert {k: feedback[k] for k in ("memory_id", "kind", "note", "actor")} == {
        "memory_id": memory.pk,
        "kind": "upvote",
        "note": "spot on",
        "actor": f"key:test key#{key.pk}",
    }
    assert feedback["importance_before"] == 0.5
    assert feedback["importance_after"] == pytest.approx(0.575)

    flagged = vote(api, memory.pk, "flag").json()
    assert flagged["memory"]["flagged_at"] is not None
    assert flagged["memory"]["importance"] == pytest.approx(0.575)


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"kind": "like"}, 400, "invalid_input", "kind"),
        ({}, 400, "invalid_input", "kind"),
        ({"kind": "upvote", "extra": 1}, 400, "invalid_input", "extra"),
        ({"kind": "flag", "note": "x" * 1001}, 413, "too_large", "note"),
    ],
)
def test_api_feedback_validation(api, agent, body, status, code, field):
    memory = memory_of(agent)
    error = assert_error(api.post(f"/v1/memories/{memory.pk}/feedback", body), status, code)
    # Schema errors list every field; a domain rule names its one.
    details = error["details"]
    named = details["errors"][0]["field"] if "errors" in details else details["field"]
    assert named == field
    assert not MemoryFeedback.objects.exists()


def test_api_history_is_newest_first_a_page_at_a_time(api, agent):
    memory = memory_of(agent)
    for kind in ("upvote", "downvote", "flag"):
        vote(api, memory.pk, kind)
    first = api.get(f"/v1/memories/{memory.pk}/feedback", limit=2).json()
    assert [f["kind"] for f in first["items"]] == ["flag", "downvote"]
    rest = api.get(
        f"/v1/memories/{memory.pk}/feedback", limit=2, cursor=first["next_cursor"]
    ).json()
    assert ([f["kind"] for f in rest["items"]], rest["next_cursor"]) == (["upvote"], None)
    # upvote 0.5 -> 0.575, then downvote -> 0.425, then a flag leaves it.
    assert [f["importance_after"] for f in first["items"]] == pytest.approx([0.425, 0.425])


def test_api_agent_summary(api, agent):
    liked = memory_of(agent, "Ann's order ships on Monday")
    disliked = memory_of(agent, "Ann hates everything")
    noise = memory_of(agent, "lorem ipsum dolor")
    for _ in range(3):
        vote(api, liked.pk, "upvote")
    vote(api, disliked.pk, "upvote")
    vote(api, disliked.pk, "downvote")
    vote(api, disliked.pk, "downvote")
    vote(api, noise.pk, "flag")
    # One vote from two weeks ago counts in all time only.
    old = MemoryFeedback.objects.create(
        memory=liked,
        agent=agent,
        kind="upvote",
        actor="t",
        importance_before=0.5,
        importance_after=0.575,
    )
    MemoryFeedback.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=14))

    body = api.get("/v1/agents/support-bot/feedback/summary").json()

    assert body["agent_id"] == "support-bot"
    assert body["counts"] == {
        "all_time": {"upvote": 5, "downvote": 2, "flag": 1, "unflag": 0},
        "last_7_days": {"upvote": 4, "downvote": 2, "flag": 1, "unflag": 0},
    }
    assert body["flagged_now"] == 1
    assert body["most_upvoted"] == [
        {
            "memory_id": liked.pk,
            "content": "Ann's order ships on Monday",
            "upvotes": 4,
            "downvotes": 0,
            "flags": 0,
        },
        {
            "memory_id": disliked.pk,
            "content": "Ann hates everything",
            "upvotes": 1,
            "downvotes": 2,
            "flags": 0,
        },
    ]
    assert [m["memory_id"] for m in body["most_downvoted"]] == [disliked.pk]
    assert [(m["memory_id"], m["flags"]) for m in body["most_flagged"]] == [(noise.pk, 1)]


def test_api_summary_shortens_long_content(api, agent):
    memory = memory_of(agent, "word " * 100)
    vote(api, memory.pk, "flag")
    (row,) = api.get("/v1/agents/support-bot/feedback/summary").json()["most_flagged"]
    assert row["content"] == ("word " * 100).strip()[:120]


def test_api_health_counts_the_workspace_and_calls_for_attention(
    api, agent, workspace, other_api, other_agent
):
    quiet = make_agent(workspace, "quiet-bot")
    good, bad = memory_of(agent), memory_of(quiet, "spam spam")
    for _ in range(5):
        vote(api, good.pk, "upvote")
    for _ in range(4):
        vote(api, bad.pk, "downvote")
    # Another workspace's feedback is not this workspace's health.
    theirs = memory_of(other_agent, "their memory")
    for _ in range(10):
        vote(other_api, theirs.pk, "flag")

    body = api.get("/v1/feedback/health").json()
    # Nine pieces of feedback: too few to judge, whatever the share.
    assert body["last_7d"] == {"upvote": 5, "downvote": 4, "flag": 0, "unflag": 0, "total": 9}
    assert body["last_24h"] == body["last_7d"]
    assert body["negative_share_7d"] == pytest.approx(4 / 9)
    assert body["status"] == "ok"
    assert body["thresholds"] == {"min_feedback_7d": 10, "negative_share": 0.5}
    assert body["agents_most_negative"] == [{"agent_id": "quiet-bot", "negative": 4, "total": 4}]

    vote(api, good.pk, "flag")  # ten, five negative: half
    body = api.get("/v1/feedback/health").json()
    assert (body["last_7d"]["total"], body["negative_share_7d"], body["status"]) == (
        10,
        0.5,
        "attention",
    )
    assert body["agents_most_negative"] == [
        {"agent_id": "quiet-bot", "negative": 4, "total": 4},
        {"agent_id": "support-bot", "negative": 1, "total": 6},
    ]

    other = other_api.get("/v1/feedback/health").json()
    assert other["last_7d"] == {"upvote": 0, "downvote": 0, "flag": 10, "unflag": 0, "total": 10}
    assert other["status"] == "attention"


def test_api_health_of_a_workspace_without_feedback(api, agent):
    body = api.get("/v1/feedback/health").json()
    assert body["last_24h"] == {"upvote": 0, "downvote": 0, "flag": 0, "unflag": 0, "total": 0}
    assert (body["negative_share_7d"], body["status"], body["agents_most_negative"]) == (
        None,
        "ok",
        [],
    )


def test_feedback_older_than_a_day_leaves_the_24_hour_counts(api, agent):
    memory = memory_of(agent)
    vote(api, memory.pk, "downvote")
    MemoryFeedback.objects.update(created_at=timezone.now() - timedelta(hours=25))
    body = api.get("/v1/feedback/health").json()
    assert (body["last_24h"]["total"], body["last_7d"]["downvote"]) == (0, 1)


def test_another_workspaces_memory_and_agent_are_404(api, other_api, agent, other_agent):
    theirs = memory_of(other_agent, "their memory")
    assert_error(vote(api, theirs.pk, "upvote"), 404, "memory_not_found")
    assert_error(api.get(f"/v1/memories/{theirs.pk}/feedback"), 404, "memory_not_found")
    assert_error(api.get("/v1/agents/globex-bot/feedback/summary"), 404, "agent_not_found")
    assert fresh(theirs).importance == 0.5
    assert not MemoryFeedback.objects.exists()
    assert_error(vote(api, 987654, "upvote"), 404, "memory_not_found")
