"""The Memories and Sessions tabs in a real browser: pick an agent, search with the real
recall (and the real ONNX model), see the scores, filter, open a memory and delete it behind
its confirmation; list an agent's sessions and open one to its memories.

Every step waits for something that only the step's own answer puts on the page."""

import re

import pytest
from playwright.sync_api import Page, expect

from facts.models import Fact
from memory.models import Memory
from memory.services import MemoryInput, end_session, start_session, store_memories
from tests.factories import make_agent, source, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DENTIST = "Ana (ana@example.com) asked to move her dentist appointment to Friday"


@pytest.fixture
def memories(workspace, agent):
    """support-bot remembers four things, one of them the only source of a fact; alpha-bot
    one, so the lists' "all agents" holds both and the test picks support-bot."""
    store_memories(
        agent=make_agent(workspace, "alpha-bot"),
        items=[MemoryInput(content="Alpha's only note")],
    )
    session = start_session(agent=agent, user="u-ana")
    dentist, globex, _ = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=DENTIST, importance=0.7, tags=["health"], session_id=session.pk),
            MemoryInput(content="Ana started at Globex last month", importance=0.9),
            MemoryInput(
                content="To reset a password, open Settings then Security",
                memory_type="procedural",
                importance=0.3,
            ),
        ],
    )
    store_memories(
        agent=agent,
        items=[MemoryInput(content="Ana prefers email to phone calls", session_id=session.pk)],
    )
    end_session(session=session, summary="Ana rescheduled her dentist visit", reason="client")
    state(agent, "Globex", source=source(memory_id=globex.pk))
    return {"dentist": dentist, "globex": globex, "session": session}


def rows(page: Page):
    return page.locator("#memories-table tbody tr")


def test_operator_searches_filters_opens_and_deletes_a_memory(sign_in, live_server, memories):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/")
    # An operator starts on every agent: alpha-bot's note among support-bot's four.
    expect(rows(page)).to_have_count(5)
    expect(rows(page).filter(has_text="Alpha's only note")).to_contain_text("alpha-bot")
    page.get_by_label("Agent").select_option("support-bot")
    expect(rows(page)).to_have_count(4)
    expect(page.locator("#memories-table")).to_contain_text("Globex last month")

    page.get_by_label("Search").fill("when is the dentist appointment")
    score = page.get_by_role("columnheader", name="Score")
    expect(score).to_be_visible()
    expect(rows(page).first).to_contain_text("dentist appointment")
    why = rows(page).first.locator("details.explain")
    expect(why.get_by_text("Relevance")).not_to_be_visible()
    why.get_by_text("Why").click()
    expect(why.get_by_text("Relevance")).to_be_visible()

    page.get_by_label("Search").fill("")
    expect(score).to_have_count(0)
    page.get_by_label("Type").select_option("procedural")
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("reset a password")
    page.get_by_label("Type").select_option("")
    expect(rows(page)).to_have_count(4)
    page.get_by_label("Min importance").fill("0.6")
    expect(rows(page)).to_have_count(2)
    page.get_by_label("Max importance").fill("0.8")
    expect(rows(page)).to_have_count(1)
    expect(rows(page).first).to_contain_text("dentist")
    assert "max_importance=0.8" in page.url  # the filters are in the URL, to share

    page.get_by_label("Max importance").fill("1")
    expect(rows(page)).to_have_count(2)
    page.get_by_role("link", name="Ana started at Globex last month").click()
    globex = memories["globex"]
    expect(page.get_by_role("heading", name=f"Memory {globex.pk}")).to_be_visible()
    facts = page.locator("section", has=page.get_by_role("heading", name="Facts learned"))
    expect(facts).to_contain_text("Globex")
    expect(facts).to_contain_text("user.employer")

    # Unticked, the browser refuses to send the form (the server refuses it too: see
    # tests/dashboard); the page stays, and so does the memory.
    confirm = page.get_by_label("I understand")
    page.get_by_role("button", name="Delete memory").click()
    assert confirm.evaluate("box => box.validity.valueMissing") is True
    expect(page.get_by_role("heading", name=f"Memory {globex.pk}")).to_be_visible()
    assert Memory.objects.filter(pk=globex.pk).exists()
    confirm.check()
    page.get_by_role("button", name="Delete memory").click()
    expect(page.get_by_text(f"Memory {globex.pk} deleted, with 1 fact")).to_be_visible()
    # Back to the agent's memories, named with its workspace (staff see every workspace).
    assert re.search(r"/dashboard/memory/\?agent=acme%2Fsupport-bot$", page.url)
    expect(rows(page)).to_have_count(3)
    assert not Memory.objects.filter(pk=globex.pk).exists()
    assert not Fact.objects.filter(value="Globex").exists()
    page.goto(f"{live_server.url}/dashboard/facts/?agent=support-bot")
    expect(page.locator("#facts-table")).to_contain_text("No facts match")


def test_memory_page_shows_text_tags_and_entities(sign_in, live_server, memories):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/{memories['dentist'].pk}/")
    expect(page.locator(".memory-content")).to_have_text(DENTIST)
    meta = page.locator("#memory-detail .meta")
    expect(meta).to_contain_text("health")
    # Each entity of the memory, with its type, links to the entity's page.
    entity = page.locator("#memory-entities").get_by_role("link", name="ana@example.com")
    expect(entity).to_be_visible()
    expect(page.locator("#memory-entities")).to_contain_text("ana@example.com email")
    expect(page.locator("#memory-detail")).to_contain_text("No fact cites this memory.")


def test_sessions_tab_lists_sessions_and_opens_one_to_its_memories(
    sign_in, live_server, agent, memories
):
    open_session = start_session(agent=agent, user="u-bo")
    ended = memories["session"]
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/sessions/")
    # Every agent's sessions first (alpha-bot has none), each naming its agent.
    expect(page.locator("#sessions-table tbody tr")).to_have_count(2)
    expect(page.locator("#sessions-table tbody")).to_contain_text("support-bot")
    page.get_by_label("Agent").select_option("support-bot")
    table = page.locator("#sessions-table tbody")
    expect(table.locator("tr")).to_have_count(2)
    newest = table.locator(f"#session-row-{open_session.pk}")
    older = table.locator(f"#session-row-{ended.pk}")
    expect(newest.locator("td[data-label=State]")).to_have_text("active")
    expect(older.locator("td[data-label=State]")).to_have_text("ended")
    expect(older.locator("td[data-label=Memories]")).to_have_text("2")
    expect(older.locator("td[data-label=Summary]")).to_have_text(
        "Ana rescheduled her dentist visit"
    )
    older.locator("td[data-label=Memories]").get_by_role("link", name="2").click()
    expect(page.get_by_label("Session")).to_have_value(str(ended.pk))
    expect(rows(page)).to_have_count(2)
    expect(page.locator("#memories-table")).to_contain_text("prefers email")
    expect(page.locator("#memories-table")).not_to_contain_text("Globex")
