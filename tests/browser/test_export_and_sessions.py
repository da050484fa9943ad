"""In a real browser: filter the memories and download the filtered list as CSV; edit a
memory's tags and importance in place; open a session's own page from the Sessions list.

Every step waits for something that only the step's own answer puts on the page."""

import csv
import io

import pytest
from playwright.sync_api import Page, expect

from memory.models import Memory
from memory.services import MemoryInput, end_session, start_session, store_memories, user_tags
from tenancy.models import AuditAction, AuditEvent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rows(page: Page):
    return page.locator("#memories-table tbody tr")


def test_export_filtered_memories_edit_tags_and_open_a_session(sign_in, live_server, agent):
    session = start_session(agent=agent, user="u-ana")
    chat, procedure, _ = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Ana asked about her invoice", session_id=session.pk),
            MemoryInput(
                content="=To reset a password, open Settings",
                memory_type="procedural",
                tags=["howto"],
                importance=0.3,
            ),
            MemoryInput(content="Ana likes short answers", session_id=session.pk),
        ],
    )
    end_session(session=session, summary="Ana's invoice question", reason="client")
    page = sign_in("ops", staff=True)

    page.goto(f"{live_server.url}/dashboard/memory/?agent=support-bot")
    expect(rows(page)).to_have_count(3)
    page.get_by_label("Type").select_option("procedural")
    expect(rows(page)).to_have_count(1)
    with page.expect_download() as download:
        page.get_by_role("link", name="Export CSV").click()
    assert download.value.suggested_filename.startswith("memories-support-bot-")
    text = download.value.path().read_text(encoding="utf-8-sig")
    exported = list(csv.DictReader(io.StringIO(text)))
    assert [(r["id"], r["content"], r["tags"]) for r in exported] == [
        (str(procedure.pk), "'=To reset a password, open Settings", '["howto"]')
    ]

    rows(page).first.get_by_role("link").first.click()
    expect(page.get_by_role("heading", name=f"Memory {procedure.pk}")).to_be_visible()
    page.get_by_label("Tags").fill("howto\nsecurity")
    page.get_by_label("Importance", exact=True).fill("0.6")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Memory saved.")).to_be_visible()
    expect(page.locator("#memory-detail .meta")).to_contain_text("security")
    edited = Memory.objects.get(pk=procedure.pk)
    assert (user_tags(edited), edited.importance) == (["howto", "security"], 0.6)
    event = AuditEvent.objects.get(action=AuditAction.MEMORY_UPDATE)
    assert event.actor == "operator:ops"
    page.get_by_label("Importance", exact=True).fill("7")
    page.get_by_label("Importance", exact=True).evaluate("input => input.form.noValidate = true")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#memory-edit .field-error")).to_contain_text("less than or equal to 1")
    assert Memory.objects.get(pk=procedure.pk).importance == 0.6

    page.goto(f"{live_server.url}/dashboard/memory/sessions/?agent=support-bot")
    page.get_by_role("link", name=f"Session {session.pk}").click()
    expect(page.get_by_role("heading", name=f"Session {session.pk}")).to_be_visible()
    turns = page.locator("#session-turns tbody tr")
    expect(turns).to_have_count(2)
    expect(turns.first).to_contain_text("invoice")
    expect(page.locator("#session-summary")).to_contain_text("Ana's invoice question")
    assert chat.pk < procedure.pk


def test_a_session_number_opens_the_session_whose_turns_are_numbered_without_its_summary(
    sign_in, live_server, agent
):
    session = start_session(agent=agent, user="u-ben")
    said = ["Ben's parcel is late", "It was sent on Monday", "He wants a refund", "Refund sent"]
    stored = store_memories(
        agent=agent, items=[MemoryInput(content=c, session_id=session.pk) for c in said]
    )
    end_session(session=session, summary="Ben's late parcel was refunded", reason="client")
    summary = Memory.objects.get(session=session, tag_rows__name="session-summary")
    page = sign_in("ops", staff=True)

    # From the person page and from the Memories list, the session's number opens its page.
    page.goto(f"{live_server.url}/dashboard/memory/people/?user=u-ben")
    page.locator(f"#person-session-{session.pk}").get_by_role("link", name=str(session.pk)).click()
    expect(page.get_by_role("heading", name=f"Session {session.pk}")).to_be_visible()
    page.goto(f"{live_server.url}/dashboard/memory/?agent=support-bot")
    refund = rows(page).filter(has_text="He wants a refund")
    refund.get_by_role("link", name=str(session.pk)).click()
    expect(page.get_by_role("heading", name=f"Session {session.pk}")).to_be_visible()

    # Its turns are numbered 1 to 4 in the order said; the summary is the summary, not a turn.
    turns = page.locator("#session-turns tbody tr")
    expect(turns).to_have_count(4)
    expect(turns.locator("td[data-label='#']")).to_have_text(["1", "2", "3", "4"])
    expect(page.locator("#session-turns")).not_to_contain_text("refunded")
    expect(page.locator("#session-summary")).to_contain_text("Ben's late parcel was refunded")
    turns.first.get_by_role("link", name="1").click()
    expect(page).to_have_url(f"{live_server.url}/dashboard/memory/{stored[0].pk}/")
    assert summary.pk > stored[-1].pk
