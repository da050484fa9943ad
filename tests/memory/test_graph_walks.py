"""Walks of the graph: the shortest path between two memories (edges followed either way,
expired memories stepped around, the depth bound, a clear answer when there is no path) and
a traversal that reaches no expired memory."""

from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from memory.exceptions import PathNotFound
from memory.graph import paths as graph_paths
from memory.graph.paths import shortest_path
from memory.graph.queries import traverse_graph
from memory.models import Memory
from memory.services import link_memories

pytestmark = pytest.mark.django_db

TEXTS = [
    "the boiler pressure reads two bar",
    "quarterly invoices go out on the fifth",
    "penguins huddle against antarctic wind",
    "the bakery opens at seven on sundays",
    "a sonnet has fourteen lines",
    "tide tables for the northern harbour",
    "the violin needs new strings",
]


@pytest.fixture
def notes(agent, remember):
    return remember(*TEXTS)


def link(agent, *pairs):
    for source, target in pairs:
        link_memories(agent=agent, source=source, target=target, actor="test")


def path(source, target, **options):
    found = shortest_path(source=source, target=target, types="linked_by", **options)
    return [m["id"] for m in found["memories"]], [
        (e["source"], e["target"]) for e in found["edges"]
    ]


def test_a_path_runs_along_edges_whichever_way_they_point(agent, notes):
    a, b, c, d, *_ = notes
    link(agent, (a, b), (c, b), (c, d))  # a -> b <- c -> d
    ids, edges = path(a, d)
    assert ids == [a.pk, b.pk, c.pk, d.pk]
    assert edges == [(a.pk, b.pk), (c.pk, b.pk), (c.pk, d.pk)]
    back_ids, back_edges = path(d, a)
    assert back_ids == list(reversed(ids))
    assert back_edges == list(reversed(edges))


def test_the_shorter_of_two_routes_is_taken(agent, notes):
    a, b, c, d, e, f, _ = notes
    link(agent, (a, b), (b, c), (c, d), (d, e), (a, f), (f, e))
    assert path(a, e)[0] == [a.pk, f.pk, e.pk]


@pytest.mark.parametrize("expired_max", [graph_paths.EXPIRED_MAX, 0])
def test_a_path_steps_around_expired_memories(agent, notes, monkeypatch, expired_max):
    # Read once for the search, or (more expired than EXPIRED_MAX) level by level.
    monkeypatch.setattr(graph_paths, "EXPIRED_MAX", expired_max)
    a, b, c, d, e, *_ = notes
    link(agent, (a, b), (b, e), (a, c), (c, d), (d, e))
    Memory.objects.filter(pk=b.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert path(a, e)[0] == [a.pk, c.pk, d.pk, e.pk]
    Memory.objects.filter(pk=d.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    with pytest.raises(PathNotFound):
        path(a, e)


def test_the_depth_bound_is_a_bound_on_edges(agent, notes):
    chain = notes[:5]
    link(agent, *pairwise(chain))
    ids, _ = path(chain[0], chain[4], max_depth=4)
    assert ids == [m.pk for m in chain]
    with pytest.raises(PathNotFound, match="at most 3 edges"):
        path(chain[0], chain[4], max_depth=3)


def test_no_path_is_a_clear_404_that_writes_nothing(api, agent, notes):
    a, b, c, *_ = notes
    link(agent, (a, b))
    before = Memory.objects.values_list("id", "access_count", "last_accessed_at")
    before_rows = list(before.order_by("id"))
    response = api.get(f"/v1/memories/{a.pk}/path/{c.pk}", types="linked_by")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "no_path"
    assert f"from memory {a.pk} to memory {c.pk}" in error["message"]
    assert list(before.order_by("id")) == before_rows


def test_a_traversal_neither_reaches_nor_passes_through_expired_memories(agent, notes):
    a, b, c, d, *_ = notes
    link(agent, (a, b), (b, c), (a, d))

    def reached():
        walk = traverse_graph(memory=a, depth=2, types="linked_by")
        return [(n["id"], n["depth"]) for n in walk["nodes"]], walk["edges"]

    nodes, _ = reached()
    assert sorted(nodes) == sorted([(b.pk, 1), (d.pk, 1), (c.pk, 2)])
    Memory.objects.filter(pk=b.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    nodes, edges = reached()
    assert nodes == [(d.pk, 1)]
    assert [(e["source"], e["target"]) for e in edges] == [(a.pk, d.pk)]
