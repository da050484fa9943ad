"""Entities and the graph in a real browser: a memory's neighbourhood drawn as an SVG, a
node opening the memory it stands for, the depth links swapping the picture in place, an
entity link opening the entity's page and that page leading back to its memories."""

import re

import pytest
from playwright.sync_api import Page, expect

from memory.models import Entity
from memory.services import MemoryInput, start_session, store_memories
from tests.factories import state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def story(agent):
    """Three turns of one session: the first two name Ana and Globex, the third neither."""
    session = start_session(agent=agent, user="u-ana")
    memories = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=text, session_id=session.pk)
            for text in (
                "Ana started a new job at Globex in Lisbon",
                "Ana says Globex has a great canteen",
                "The flight to Porto leaves on Friday",
            )
        ],
    )
    state(agent, "Globex")
    return memories


def test_a_node_and_an_entity_link_open_their_pages(sign_in, live_server, story):
    first, second, third = story
    page: Page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/{first.pk}/")
    graph = page.locator("svg.neighbourhood-graph")
    expect(graph).to_be_visible()
    expect(graph.locator("a.node")).to_have_count(2)
    expect(page.locator("#neighbourhood table")).to_contain_text("shares_entity")

    page.get_by_role("link", name="2 edges away").click()
    expect(graph.locator(f'a[data-memory="{third.pk}"]')).to_be_visible()
    expect(page).to_have_url(re.compile(r"\?depth=2$"))
    expect(page.get_by_role("button", name="Delete memory")).to_be_visible()

    graph.locator(f'a[data-memory="{second.pk}"]').click()
    expect(page).to_have_url(re.compile(rf"/dashboard/memory/{second.pk}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Memory {second.pk}")

    globex = Entity.objects.get(agent=first.agent, name="Globex")
    page.locator("#memory-entities").get_by_role("link", name="Globex").click()
    expect(page).to_have_url(re.compile(rf"/dashboard/memory/entities/{globex.pk}/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("Globex")
    expect(page.locator("#entity-facts")).to_contain_text("user.employer")
    expect(page.locator("#related-entities")).to_contain_text("Ana")

    page.locator("#entity-memories").get_by_role("link", name=re.compile("great canteen")).click()
    expect(page).to_have_url(re.compile(rf"/dashboard/memory/{second.pk}/$"))
