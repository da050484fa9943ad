"""No merge mixes users: the exact dedup, the AutoPilot passes and a consolidation by hand
merge only memories of one user, or only shared ones."""

import pytest

from memory.exceptions import MixedUsers
from memory.models import Memory
from memory.services import (
    autopilot_consolidate_pass,
    autopilot_dedup_pass,
    consolidate_memories,
    deduplicate_memories,
)
from tests.facts.test_api import assert_error
from tests.memory.test_dedup import cosine

pytestmark = pytest.mark.django_db

TEXT = "My favourite programming language is Python"


def left(agent):
    return set(Memory.objects.filter(agent=agent).values_list("pk", flat=True))


def test_exact_dedup_merges_only_copies_of_one_user(api, agent, remember):
    (ann,) = remember(TEXT, user="ann")
    (ann_again,) = remember(TEXT + ".", user="ann")
    (bob,) = remember(TEXT, user="bob")
    (shared,) = remember(TEXT)
    (shared_again,) = remember(TEXT + "!")

    response = api.post("/v1/memories/deduplicate", {"agent_id": "support-bot", "confirm": True})

    assert response.status_code == 200
    groups = sorted((g["kept"], g["merged"]) for g in response.json()["groups"])
    assert groups == [(ann.pk, [ann_again.pk]), (shared.pk, [shared_again.pk])]
    assert left(agent) == {ann.pk, bob.pk, shared.pk}
    assert Memory.objects.get(pk=ann.pk).user_ref == "ann"
    assert Memory.objects.get(pk=shared.pk).user_ref is None


def test_exact_dedup_service_keeps_users_apart(agent, remember):
    remember(TEXT, user="ann")
    remember(TEXT, user="bob")
    assert deduplicate_memories(agent=agent, actor="test").groups == []


def test_autopilot_dedup_never_merges_near_duplicates_of_different_users(agent, remember, settings):
    settings.DEWEE_EMBED_SESSION_CONTEXT = False
    (ann,) = remember(TEXT, user="ann")
    (bob,) = remember(TEXT.replace("favourite", "favorite"), user="bob")
    (shared,) = remember(TEXT + ".")
    assert min(cosine(ann, bob), cosine(ann, shared)) >= 0.93

    assert autopilot_dedup_pass().touched == 0
    assert left(agent) == {ann.pk, bob.pk, shared.pk}

    # A copy of the same user still merges, into one of that user's memories.
    (ann_again,) = remember(TEXT + "!", user="ann")
    assert dict(autopilot_dedup_pass().counts) == {"merged": 1}
    survivors = left(agent)
    assert {bob.pk, shared.pk} <= survivors
    (kept,) = survivors & {ann.pk, ann_again.pk}
    assert Memory.objects.get(pk=kept).user_ref == "ann"


def test_autopilot_consolidation_clusters_each_users_memories_apart(agent, remember):
    low = {"importance": 0.1, "tags": ["billing", "refund"]}
    ann = remember("Refund one", "Refund two", user="ann", **low)
    bob = remember("Refund three", "Refund four", user="bob", **low)
    shared = remember("Refund five", "Refund six", **low)

    # Six memories share the tags, but no user has three: nothing is consolidated.
    assert autopilot_consolidate_pass().touched == 0
    assert Memory.objects.filter(agent=agent).count() == 6

    ann += remember("Refund seven", user="ann", **low)
    result = autopilot_consolidate_pass()
    assert dict(result.counts) == {"clusters": 1, "merged": 3}
    merged = Memory.objects.get(agent=agent, pk__in=left(agent) - {m.pk for m in bob + shared})
    assert merged.user_ref == "ann"
    assert {e["id"] for e in merged.metadata["merged_from"]} == {m.pk for m in ann}


def test_api_consolidate_of_different_users_is_refused(api, agent, remember):
    (ann,) = remember("Ann likes tea", user="ann")
    (bob,) = remember("Bob likes coffee", user="bob")
    (shared,) = remember("The office has a kettle")
    for ids in ([ann.pk, bob.pk], [ann.pk, shared.pk]):
        body = {"agent_id": "support-bot", "memory_ids": ids}
        error = assert_error(api.post("/v1/memories/consolidate", body), 400, "mixed_users")
        assert error["details"]["memory_ids"] == sorted(ids)
    assert left(agent) == {ann.pk, bob.pk, shared.pk}
    with pytest.raises(MixedUsers):
        consolidate_memories(agent=agent, memory_ids=[bob.pk, shared.pk], actor="test")

    # Of one user, it merges and the new memory is that user's.
    (ann_too,) = remember("Ann likes green tea", user="ann")
    body = {"agent_id": "support-bot", "memory_ids": [ann.pk, ann_too.pk]}
    response = api.post("/v1/memories/consolidate", body)
    assert response.status_code == 201
    assert Memory.objects.get(pk=response.json()["id"]).user_ref == "ann"
