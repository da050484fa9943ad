"""The graph keeps users apart: no edge is built between two users' memories (nor between a
user's and a shared one), a new wording by one user never supersedes another's, manual
links across users are refused, and a walk for a user never reaches another user's
memory."""

import pytest

from memory.models import EdgeType, Memory, MemoryEdge
from memory.services import rebuild_graph
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db

TEXT = "Priya's favourite colour is green and she paints every Sunday."


def edge_pairs(agent):
    return set(MemoryEdge.objects.filter(agent=agent).values_list("source_id", "target_id", "type"))


def touching(agent, memory):
    return {(s, t) for s, t, _ in edge_pairs(agent) if memory.pk in (s, t)}


@pytest.fixture
def three(remember):
    (ann,) = remember(TEXT, user="ann")
    (bob,) = remember(TEXT.replace(".", "!"), user="bob")
    (shared,) = remember(TEXT.replace(".", "!!"))
    (ann_again,) = remember(TEXT.replace(".", "?"), user="ann")
    return ann, bob, shared, ann_again


def test_no_edge_joins_two_users_memories_on_store_or_rebuild(agent, three):
    ann, bob, shared, ann_again = three
    for _ in range(2):
        users = dict(Memory.objects.filter(agent=agent).values_list("pk", "user_ref"))
        edges = edge_pairs(agent)
        assert all(users[s] == users[t] for s, t, _ in edges), edges
        assert not touching(agent, bob)
        assert not touching(agent, shared)
        # The same user's memories are still joined, newer superseding older.
        assert (ann_again.pk, ann.pk, EdgeType.SUPERSEDES) in edges
        rebuild_graph(agent=agent)


def test_a_users_newer_wording_never_supersedes_anothers(agent, three):
    _, bob, shared, _ = three
    superseded = {t for _, t, kind in edge_pairs(agent) if kind == EdgeType.SUPERSEDES}
    assert bob.pk not in superseded
    assert shared.pk not in superseded


def test_a_link_across_users_is_refused(api, three):
    ann, bob, shared, ann_again = three
    for target in (bob, shared):
        response = api.post(f"/v1/memories/{ann.pk}/links", {"target_id": target.pk})
        assert_error(response, 400, "mixed_users")
    assert api.post(f"/v1/memories/{ann.pk}/links", {"target_id": ann_again.pk}).status_code in (
        200,
        201,
    )


def test_a_walk_for_a_user_never_reaches_another_users_memory(api, agent, remember):
    (ann,) = remember("Ann's notes on the garden", user="ann")
    (shared,) = remember("The office closes at six")
    (bob,) = remember("Bob's notes on the garage", user="bob")
    (beyond,) = remember("The office opens at eight")
    # Only these edges, some joining users, as a graph built before users were kept apart
    # could hold: ``beyond`` is reached only through Bob's memory.
    MemoryEdge.objects.filter(agent=agent).delete()
    for source, target in ((ann, shared), (ann, bob), (bob, beyond)):
        MemoryEdge.objects.create(
            agent=agent, source=source, target=target, type=EdgeType.LINKED_BY
        )

    def reached(**params):
        body = api.get(f"/v1/memories/{ann.pk}/graph", depth=3, **params).json()
        return {node["id"] for node in body["nodes"]}

    assert reached() == {shared.pk, bob.pk, beyond.pk}
    assert reached(user="ann") == {shared.pk}
    # Starting at another user's memory is as if it did not exist.
    response = api.get(f"/v1/memories/{bob.pk}/graph", user="ann")
    assert_error(response, 404, "memory_not_found")
    assert api.get(f"/v1/memories/{bob.pk}/graph", user="bob").status_code == 200

    # A path never steps through another user's memory, nor ends at one.
    assert api.get(f"/v1/memories/{ann.pk}/path/{beyond.pk}").json()["length"] == 2
    assert_error(api.get(f"/v1/memories/{ann.pk}/path/{beyond.pk}", user="ann"), 404, "no_path")
    assert_error(
        api.get(f"/v1/memories/{ann.pk}/path/{bob.pk}", user="ann"), 404, "memory_not_found"
    )
    assert api.get(f"/v1/memories/{ann.pk}/path/{shared.pk}", user="ann").json()["length"] == 1
