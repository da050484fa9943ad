"""Manual consolidation (service and API) and the AutoPilot consolidation pass."""

from datetime import UTC, datetime

import pytest

from facts.models import Fact, FactSource
from memory.exceptions import MemoryNotFound
from memory.models import Memory, MemoryFeedback
from memory.recall import RecallRequest, recall
from memory.services import (
    autopilot_consolidate_pass,
    consolidate_memories,
    memory_tags,
    record_feedback,
    user_tags,
)
from memory.sessions.summaries import extractive_summary
from tenancy.models import AuditAction, AuditEvent
from tests.factories import source, state

pytestmark = pytest.mark.django_db


def at(day: int, month: int = 1) -> datetime:
    return datetime(2024, month, day, 12, tzinfo=UTC)


@pytest.fixture
def trio(remember):
    """Three memories of Ann, stored out of chronological order."""
    (window,) = remember(
        "Ann prefers window seats on long flights",
        tags=["travel", "prefs"],
        source_refs=["msg-1"],
        importance=0.4,
        created_at=at(10),
        access_count=2,
        last_accessed_at=at(1, 2),
    )
    (food,) = remember(
        "Ann is vegetarian and avoids airline meals",
        tags=["travel", "food"],
        source_refs=["msg-2", "msg-1"],
        importance=0.7,
        created_at=at(5),
        access_count=3,
        last_accessed_at=at(1, 3),
    )
    (manager,) = remember("Ann's manager is Priya", importance=0.2, created_at=at(20))
    return window, food, manager


def test_merged_memory_keeps_everything_the_originals_held(agent, trio):
    window, food, manager = trio
    merged = consolidate_memories(
        agent=agent, memory_ids=[window.pk, food.pk, manager.pk], actor="test"
    )
    merged = Memory.objects.get(pk=merged.pk)
    # Oldest first: food (5 Jan), window (10 Jan), manager (20 Jan).
    assert merged.content == (
        "Ann is vegetarian and avoids airline meals\n"
        "Ann prefers window seats on long flights\n"
        "Ann's manager is Priya"
    )
    assert sorted(user_tags(merged)) == ["food", "prefs", "travel"]
    assert "entity:name:priya" in memory_tags(merged)
    assert sorted(merged.source_refs) == sorted(
        ["msg-1", "msg-2", f"memory:{window.pk}", f"memory:{food.pk}", f"memory:{manager.pk}"]
    )
    assert merged.importance == 0.7
    assert merged.created_at == at(5)
    assert merged.access_count == 5
    assert merged.last_accessed_at == at(1, 3)
    assert merged.memory_type == "episodic"
    assert [(e["id"], e["content"]) for e in merged.metadata["merged_from"]] == [
        (food.pk, "Ann is vegetarian and avoids airline meals"),
        (window.pk, "Ann prefers window seats on long flights"),
        (manager.pk, "Ann's manager is Priya"),
    ]
    assert merged.metadata["merged_from"][0]["created_at"].startswith("2024-01-05")
    assert not Memory.objects.filter(pk__in=[window.pk, food.pk, manager.pk]).exists()
    event = AuditEvent.objects.get(action=AuditAction.MEMORY_MERGE)
    assert event.target_id == str(merged.pk)
    assert sorted(event.details["merged"]) == sorted([window.pk, food.pk, manager.pk])


def test_merged_memory_is_found_by_recall_and_keyword_search(agent, trio, remember):
    remember("The deploy freeze starts on Friday", "Invoices go out on the first Monday")
    merged = consolidate_memories(agent=agent, memory_ids=[m.pk for m in trio], actor="test")
    by_vector = recall(
        agent=agent, request=RecallRequest(query="vegetarian airline meals", routing="vector")
    )
    assert by_vector.hits[0].memory.pk == merged.pk
    by_keyword = recall(agent=agent, request=RecallRequest(query="Priya", routing="keyword"))
    assert [hit.memory.pk for hit in by_keyword.hits] == [merged.pk]


def test_fact_learned_from_an_original_survives_and_cites_the_merged_memory(agent, trio):
    window, food, _ = trio
    fact = state(agent, "Acme", source=source(kind="memory_document", memory_id=window.pk)).fact
    merged = consolidate_memories(agent=agent, memory_ids=[window.pk, food.pk], actor="test")
    assert Fact.objects.filter(pk=fact.pk).exists()
    assert list(FactSource.objects.filter(fact=fact).values_list("memory_id", flat=True)) == [
        merged.pk
    ]


def test_feedback_on_an_original_stays_in_the_merged_memorys_history(agent, trio):
    window, food, _ = trio
    record_feedback(memory=window, kind="upvote", actor="test")
    record_feedback(memory=food, kind="downvote", actor="test")
    merged = consolidate_memories(agent=agent, memory_ids=[window.pk, food.pk], actor="test")
    assert sorted(MemoryFeedback.objects.filter(memory=merged).values_list("kind", flat=True)) == [
        "downvote",
        "upvote",
    ]


def test_feedback_on_a_memory_merged_away_meanwhile_is_a_clean_404(agent, trio, api):
    window, food, _ = trio
    consolidate_memories(agent=agent, memory_ids=[window.pk, food.pk], actor="test")
    with pytest.raises(MemoryNotFound):
        record_feedback(memory=window, kind="upvote", actor="test")  # loaded before the merge
    response = api.post(f"/v1/memories/{window.pk}/feedback", {"kind": "upvote"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "memory_not_found"


def test_type_and_session_follow_the_originals(agent, remember, session):
    a, b = remember("Standup is at 9:30", "Retro is on Thursdays", session_id=session.pk)
    # Of the session's user, outside the session: memories of one user merge.
    (c,) = remember("Ann likes tea", memory_type="semantic", user="u1")
    same = consolidate_memories(agent=agent, memory_ids=[a.pk, b.pk], actor="test")
    assert (same.memory_type, same.session_id) == ("episodic", session.pk)
    mixed = consolidate_memories(agent=agent, memory_ids=[same.pk, c.pk], actor="test")
    assert (mixed.memory_type, mixed.session_id) == ("semantic", None)
    # A merge of a merge keeps every absorbed text.
    assert {e["content"] for e in mixed.metadata["merged_from"]} >= {
        "Standup is at 9:30",
        "Retro is on Thursdays",
        "Ann likes tea",
    }


def test_given_content_and_type_win(agent, remember):
    a, b = remember("Ann flies on Monday", "Ann flies Monday morning")
    merged = consolidate_memories(
        agent=agent,
        memory_ids=[a.pk, b.pk],
        actor="test",
        content="Ann flies on Monday morning",
        memory_type="procedural",
    )
    assert (merged.content, merged.memory_type) == ("Ann flies on Monday morning", "procedural")
    assert [e["content"] for e in merged.metadata["merged_from"]] == [
        "Ann flies on Monday",
        "Ann flies Monday morning",
    ]


# --- API ---


def test_api_consolidate_returns_the_new_memory(api, remember):
    a, b = remember("Ann prefers aisle seats", "Ann prefers aisle seats on trains", tags=["t"])
    response = api.post(
        "/v1/memories/consolidate",
        {"agent_id": "support-bot", "memory_ids": [a.pk, b.pk], "memory_type": "semantic"},
    )
    assert response.status_code == 201
    body = response.json()
    assert body["content"] == "Ann prefers aisle seats\nAnn prefers aisle seats on trains"
    assert body["memory_type"] == "semantic"
    assert body["tags"] == ["t"]
    assert body["entities"] == ["entity:name:ann"]
    assert sorted(body["source_refs"]) == sorted([f"memory:{a.pk}", f"memory:{b.pk}"])
    assert len(body["metadata"]["merged_from"]) == 2
    assert api.get(f"/v1/memories/{a.pk}").status_code == 404
    assert api.get(f"/v1/memories/{body['id']}").json()["content"] == body["content"]


def test_api_another_workspaces_memory_is_a_404_and_nothing_changes(api, remember, other_agent):
    (mine,) = remember("Ann prefers aisle seats")
    (theirs,) = remember("Globex secret plan", target=other_agent)
    response = api.post(
        "/v1/memories/consolidate",
        {"agent_id": "support-bot", "memory_ids": [mine.pk, theirs.pk]},
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "memory_not_found"
    assert Memory.objects.filter(pk__in=[mine.pk, theirs.pk]).count() == 2
    assert not AuditEvent.objects.filter(action=AuditAction.MEMORY_MERGE).exists()


def test_api_another_workspace_cannot_consolidate_our_agent(other_api, remember):
    a, b = remember("one", "two")
    response = other_api.post(
        "/v1/memories/consolidate", {"agent_id": "support-bot", "memory_ids": [a.pk, b.pk]}
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "agent_not_found"
    assert Memory.objects.filter(pk__in=[a.pk, b.pk]).count() == 2


@pytest.mark.parametrize("ids", [["one"], ["one", "one"]])
def test_api_fewer_than_two_distinct_ids_is_a_400(api, remember, ids):
    (memory,) = remember("Ann prefers aisle seats")
    response = api.post(
        "/v1/memories/consolidate",
        {"agent_id": "support-bot", "memory_ids": [memory.pk for _ in ids]},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert response.json()["error"]["details"] == {"field": "memory_ids"}
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_api_more_than_a_hundred_ids_is_refused(api, remember):
    response = api.post(
        "/v1/memories/consolidate",
        {"agent_id": "support-bot", "memory_ids": list(range(1, 102))},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"


def test_api_an_expired_memory_is_not_there_to_merge(api, remember):
    alive, expired = remember("Standup is at 9:30", "Retro is on Thursdays")
    Memory.objects.filter(pk=expired.pk).update(expires_at=datetime(2020, 1, 1, tzinfo=UTC))
    response = api.post(
        "/v1/memories/consolidate",
        {"agent_id": "support-bot", "memory_ids": [alive.pk, expired.pk]},
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "memory_not_found"
    assert Memory.objects.filter(pk__in=[alive.pk, expired.pk]).count() == 2


def test_api_texts_too_long_to_join_ask_for_the_content(api, remember):
    long_ones = remember("a" * 9_000, "b" * 9_000)
    body = {"agent_id": "support-bot", "memory_ids": [m.pk for m in long_ones]}
    response = api.post("/v1/memories/consolidate", body)
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("too_large", {"field": "memory_ids"})
    assert "content" in error["message"]
    assert api.post("/v1/memories/consolidate", {**body, "content": "a and b"}).status_code == 201


# --- AutoPilot consolidation ---


@pytest.fixture
def clusters(remember):
    """A low-importance cluster on (billing, refund); a (shipping, delay) trio where one
    member matters (0.3); a low memory that carries only one of the tags."""
    low = [
        remember("Refund asked for order 1", tags=["billing", "refund"], importance=0.1)[0],
        remember("Refund asked for order 2", tags=["refund", "billing", "x"], importance=0.2)[0],
        remember("Refund asked for order 3", tags=["billing", "refund"], importance=0.29)[0],
    ]
    mixed = [
        remember("Parcel late in Ohio", tags=["shipping", "delay"], importance=0.1)[0],
        remember("Parcel late in Texas", tags=["shipping", "delay"], importance=0.2)[0],
        remember("Parcel late in Maine", tags=["shipping", "delay"], importance=0.3)[0],
    ]
    (loner,) = remember("Billing address changed", tags=["billing"], importance=0.05)
    return low, mixed, loner


def test_autopilot_consolidates_a_low_importance_cluster_into_one_semantic_memory(agent, clusters):
    low, mixed, loner = clusters
    result = autopilot_consolidate_pass()
    assert (result.touched, dict(result.counts)) == (3, {"clusters": 1, "merged": 3})
    assert dict(result.by_workspace[agent.workspace_id]) == {
        "touched": 3,
        "clusters": 1,
        "merged": 3,
    }
    assert not Memory.objects.filter(pk__in=[m.pk for m in low]).exists()
    merged = Memory.objects.get(metadata__merged_from__isnull=False)
    assert merged.memory_type == "semantic"
    assert merged.importance == 0.29
    assert merged.content == extractive_summary([m.content for m in low])
    assert [e["content"] for e in merged.metadata["merged_from"]] == [
        "Refund asked for order 1",
        "Refund asked for order 2",
        "Refund asked for order 3",
    ]
    assert sorted(user_tags(merged)) == ["billing", "refund", "x"]
    # One member of the shipping trio matters: that cluster is left alone, as is the loner.
    assert Memory.objects.filter(pk__in=[m.pk for m in mixed] + [loner.pk]).count() == 4


def test_autopilot_consolidation_dry_run_changes_nothing(agent, clusters):
    before = sorted(Memory.objects.values_list("pk", "content", "importance"))
    result = autopilot_consolidate_pass(dry_run=True)
    assert (result.touched, dict(result.counts)) == (3, {"clusters": 1, "merged": 3})
    assert sorted(Memory.objects.values_list("pk", "content", "importance")) == before


def test_autopilot_consolidation_only_runs_on_the_agents_given(agent, clusters, other_agent):
    from tenancy.models import Agent

    result = autopilot_consolidate_pass(agents=Agent.objects.filter(pk=other_agent.pk))
    assert result.touched == 0
    assert Memory.objects.filter(pk__in=[m.pk for m in clusters[0]]).count() == 3


def test_tag_clusters_take_the_biggest_pair_first_and_each_memory_once():
    from memory.maintenance.merge_candidates import tag_clusters

    memories = [(1, ["a", "b"]), (2, ["b", "a"]), (3, ["a", "b"])]
    memories += [(4, ["c", "d"]), (5, ["c", "d"]), (6, ["d", "c"]), (7, ["a", "b", "c", "d"])]
    # (a, b) and (c, d) are both carried by 4; (a, b) goes first (ties by name), takes 7,
    # and leaves (c, d) with 3: still a cluster.
    clusters = tag_clusters(memories)
    assert [(c.tags, c.memory_ids) for c in clusters] == [
        (("a", "b"), [1, 2, 3, 7]),
        (("c", "d"), [4, 5, 6]),
    ]
    capped = tag_clusters([(i, ["x", "y"]) for i in range(1, 9)], max_size=3)
    assert [c.memory_ids for c in capped] == [[1, 2, 3], [4, 5, 6]]
