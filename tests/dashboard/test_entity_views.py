"""The Entities pages and a memory's neighbourhood on the dashboard: what they show, scoping
by workspace (another workspace's agent, entity or memory is a 404), htmx fragments, bad
input, and that looking changes nothing."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from facts.models import Fact, Status
from memory.models import Entity, EntityMention, Memory, MemoryEdge
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import Agent
from tests.dashboard.conftest import app
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

ENTITIES = "/dashboard/memory/entities/"
HTMX = {"HX-Request": "true"}


def remember(agent: Agent, *contents: str, **fields) -> list[Memory]:
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


def entity(agent: Agent, name: str) -> Entity:
    return Entity.objects.get(agent=agent, name=name)


def entity_url(item: Entity) -> str:
    return f"{ENTITIES}{item.pk}/"


def memory_url(memory: Memory) -> str:
    return f"/dashboard/memory/{memory.pk}/"


@pytest.fixture
def story(agent):
    """Ana at Globex, in one session (so each turn precedes the next), and Bo elsewhere."""
    session = start_session(agent=agent, user="u-ana")
    memories = remember(
        agent,
        "Ana started a new job at Globex in Lisbon",
        "Ana says Globex has a great canteen",
        "The flight to Porto leaves on Friday",
        session_id=session.pk,
    )
    remember(agent, "Bo prefers email over calls")
    return memories


def test_the_entity_page_shows_its_memories_facts_and_related_entities(staff_client, agent, story):
    state(agent, "Globex")
    globex = entity(agent, "Globex")
    response = staff_client.get(entity_url(globex))
    assert response.status_code == 200
    page = response.text
    assert "<h1>Globex" in page
    assert [m.pk for m in response.context["memories"]] == [story[1].pk, story[0].pk]
    for memory in story[:2]:
        assert f'href="{memory_url(memory)}"' in page
    assert "flight to Porto" not in page
    (fact,) = response.context["facts"]
    assert (fact["value"], fact["predicate"]) == ("Globex", "employer")
    assert f'href="/dashboard/facts/{fact["id"]}/"' in page
    related = {r["name"]: r["shared"] for r in response.context["related"]}
    assert related == {"Ana": 2, "Lisbon": 1}
    ana = entity(agent, "Ana")
    assert f'href="{entity_url(ana)}"' in page


def test_facts_about_an_entity_match_its_name_in_any_case_current_ones_first(
    staff_client, agent, story
):
    older_current = state(agent, "Lisbon", subject="GLOBEX", predicate="headquarters").fact
    replaced = state(agent, "globex").fact
    state(agent, "Initech")
    state(agent, "Acme", subject="user", predicate="city")
    assert Fact.objects.get(pk=replaced.pk).status != Status.CURRENT
    facts = staff_client.get(entity_url(entity(agent, "Globex"))).context["facts"]
    assert [f["id"] for f in facts] == [older_current.pk, replaced.pk]


def test_the_entity_page_pages_its_memories(staff_client, agent):
    remember(agent, *[f"Talked with Ana about ticket {i}" for i in range(30)])
    url = entity_url(entity(agent, "Ana"))
    first = staff_client.get(url)
    assert len(first.context["memories"]) == 25
    cursor = first.context["page"]["next_cursor"]
    assert f"cursor={cursor}" in first.text
    rest = staff_client.get(url, {"cursor": cursor}, headers=HTMX)
    assert "<html" not in rest.text
    assert [m.content for m in rest.context["memories"]] == [
        f"Talked with Ana about ticket {i}" for i in range(4, -1, -1)
    ]
    assert rest.context["page"]["next_cursor"] is None
    assert staff_client.get(url, {"cursor": "not-a-cursor"}).status_code == 400


def test_the_memory_page_links_each_of_its_entities(staff_client, agent, story):
    page = staff_client.get(memory_url(story[0])).text
    entities = re.search(r'id="memory-entities">(.*?)</dd>', page, re.S)
    assert entities is not None
    for name in ("Ana", "Globex", "Lisbon"):
        assert f'href="{entity_url(entity(agent, name))}">{name}</a>' in entities.group(1)


def test_the_entity_list_searches_by_the_start_of_a_name_and_by_type(staff_client, agent, story):
    def names(**params):
        response = staff_client.get(ENTITIES, {"agent": "support-bot", **params})
        assert response.status_code == 200
        return sorted(r["name"] for r in response.context["rows"])

    assert {"Ana", "Globex", "Lisbon", "Porto", "Bo"} <= set(names())
    assert names(q="glo") == ["Globex"]
    assert names(q="Ana", type="person") == ["Ana"]
    assert names(q="Ana", type="place") == []
    page = staff_client.get(ENTITIES, {"agent": "support-bot", "q": "glo"}).text
    assert f'href="{entity_url(entity(agent, "Globex"))}"' in page
    bad = staff_client.get(ENTITIES, {"agent": "support-bot", "type": "planet"})
    assert bad.context.get("rows") is None
    assert "Select a valid choice" in bad.text
    fragment = staff_client.get(ENTITIES, {"agent": "support-bot"}, headers=HTMX)
    assert "<html" not in fragment.text
    assert "<form" not in fragment.text
    assert "Globex" in fragment.text


def test_a_manager_sees_only_their_workspace(manager_client, agent, other_agent, story):
    (theirs,) = remember(other_agent, "Carla joined Globex")
    their_entity = entity(other_agent, "Carla")
    mine = entity(agent, "Globex")
    assert manager_client.get(app(entity_url(their_entity))).status_code == 404
    assert manager_client.get(app(ENTITIES), {"agent": "globex-bot"}).status_code == 404
    assert manager_client.get(app(memory_url(theirs))).status_code == 404
    assert manager_client.get(app(entity_url(mine))).status_code == 200
    listing = manager_client.get(app(ENTITIES))
    assert "support-bot" in listing.text
    assert "globex-bot" not in listing.text
    assert "Carla" not in listing.text
    # The agent's Globex and the other workspace's Globex are two entities.
    page = manager_client.get(app(entity_url(mine)))
    assert [m.pk for m in page.context["memories"]] == [story[1].pk, story[0].pk]
    assert f'href="/app/memory/{story[0].pk}/"' in page.text


def test_a_viewer_may_read_the_entity_pages(viewer_client, agent, story):
    assert viewer_client.get(app(entity_url(entity(agent, "Ana")))).status_code == 200
    assert viewer_client.get(app(ENTITIES)).status_code == 200


def test_the_memory_page_draws_its_neighbourhood_with_a_link_per_memory(staff_client, agent, story):
    first, second, third = story
    response = staff_client.get(memory_url(first))
    drawn = {n["id"] for n in response.context["neighbourhood"]["drawing"]["nodes"]}
    assert drawn == {first.pk, second.pk}
    svg = re.search(r"<svg class=\"neighbourhood-graph\".*?</svg>", response.text, re.S)
    assert svg is not None
    links = re.findall(r'<a class="node[^"]*" href="/dashboard/memory/(\d+)/"', svg.group(0))
    assert sorted(map(int, links)) == sorted(drawn)
    rows = response.context["neighbourhood"]["rows"]
    assert {(r["source"]["id"], r["type"], r["target"]["id"]) for r in rows} == {
        (first.pk, "precedes", second.pk),
        (second.pk, "shares_entity", first.pk),
    }
    table = response.text.split('class="facts-table edges-table"')[1]
    assert f'href="{memory_url(second)}">Memory {second.pk}</a>' in table
    assert "shares_entity" in table
    assert "precedes" in table

    deeper = staff_client.get(memory_url(first), {"depth": 2})
    assert third.pk in {n["id"] for n in deeper.context["neighbourhood"]["drawing"]["nodes"]}


def test_the_depth_links_swap_only_the_neighbourhood_with_htmx(staff_client, story):
    url = memory_url(story[0])
    page = staff_client.get(url).text
    assert f'href="{url}?depth=2"' in page
    assert 'hx-target="#neighbourhood"' in page
    fragment = staff_client.get(url, {"depth": 2}, headers={**HTMX, "HX-Target": "neighbourhood"})
    assert fragment.status_code == 200
    assert "<html" not in fragment.text
    assert "neighbourhood-graph" in fragment.text
    assert "Delete memory" not in fragment.text
    assert f"/dashboard/memory/{story[2].pk}/" in fragment.text
    assert staff_client.get(url, {"depth": 3}).status_code == 400
    assert staff_client.get(url, {"depth": "x"}).status_code == 400


def test_a_memory_with_no_edges_says_so(staff_client, workspace):
    (alone,) = remember(make_agent(workspace, "new-bot"), "The first note of a new agent")
    response = staff_client.get(memory_url(alone))
    assert response.status_code == 200
    assert "No edges yet" in response.text
    assert "neighbourhood-graph" not in response.text


MEMORY_FIELDS = ("access_count", "last_accessed_at", "updated_at", "decay_from", "expires_at")
FACT_FIELDS = ("access_count", "last_accessed_at", "status", "last_confirmed_at")
ENTITY_FIELDS = ("name", "aliases", "mention_count", "first_seen", "last_seen")


def snapshot(agent: Agent) -> dict[str, list]:
    return {
        "memories": sorted(Memory.objects.filter(agent=agent).values_list("pk", *MEMORY_FIELDS)),
        "facts": sorted(Fact.objects.filter(agent=agent).values_list("pk", *FACT_FIELDS)),
        "entities": sorted(Entity.objects.filter(agent=agent).values_list("pk", *ENTITY_FIELDS)),
        "mentions": sorted(EntityMention.objects.filter(agent=agent).values_list("pk", "count")),
        "edges": sorted(MemoryEdge.objects.filter(agent=agent).values_list("pk", "weight")),
    }


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_looking_at_entities_and_neighbourhoods_changes_nothing(
    staff_client, agent, story, headers
):
    state(agent, "Globex")
    before = snapshot(agent)
    globex = entity(agent, "Globex")
    for url, params in [
        (ENTITIES, {"agent": "support-bot"}),
        (ENTITIES, {"agent": "support-bot", "q": "an", "type": "person"}),
        (entity_url(globex), {}),
        (memory_url(story[0]), {}),
        (memory_url(story[0]), {"depth": 2}),
    ]:
        assert staff_client.get(url, params, headers=headers).status_code == 200
    assert snapshot(agent) == before


def queries(client, url: str, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, params).status_code == 200
    return len(captured)


def test_the_pages_cost_the_same_number_of_queries_however_much_they_show(staff_client, agent):
    """Three turns, or twenty-eight memories with more people and facts: the entity page,
    the entity list and the memory page (two levels deep either way) read the same number
    of times."""
    session = start_session(agent=agent, user="u1")
    few = remember(
        agent, "Ana met Bo", "Bo called Carla", "Carla wrote to Dev", session_id=session.pk
    )
    ana = entity(agent, "Ana")
    counts = (
        queries(staff_client, entity_url(ana)),
        queries(staff_client, ENTITIES, agent="support-bot"),
        queries(staff_client, memory_url(few[0]), depth=2),
    )
    remember(agent, *[f"Ana met Person{i} Smith" for i in range(25)])
    for value in ("Ana", "Bo", "Carla"):
        state(agent, value, predicate=f"friend_{value.lower()}")
    assert (
        queries(staff_client, entity_url(ana)),
        queries(staff_client, ENTITIES, agent="support-bot"),
        queries(staff_client, memory_url(few[0]), depth=2),
    ) == counts
