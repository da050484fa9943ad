"""Forgetting a person in a real browser: from a fact's user to a preview that names what
goes per kind and per agent, behind a typed confirmation, to the receipt; and the export
download."""

import json

import pytest
from playwright.sync_api import expect

from facts.models import Fact
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import ErasureReceipt
from tests.factories import make_agent, state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

USER = "dana-3f9"


@pytest.fixture
def person(agent, workspace):
    session = start_session(agent=agent, user=USER, metadata={"email": "dana@example.org"})
    store_memories(
        agent=agent,
        items=[MemoryInput(content=f"Dana turn {n}", session_id=session.pk) for n in range(2)],
    )
    sales = make_agent(workspace, "sales-bot")
    store_memories(agent=sales, items=[MemoryInput(content="Asked for a quote", user=USER)])
    state(agent, "Acme", user="erin")
    return state(agent, "Acme", user=USER).fact


def test_forget_person_from_a_fact_previews_per_agent_then_erases_on_the_typed_id(
    sign_in, live_server, person
):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/{person.pk}/")
    page.get_by_role("link", name=f"Forget person “{USER}”…").click()
    expect(page.get_by_role("heading", name=f"Forget person “{USER}”")).to_be_visible()
    table = page.locator("#person-counts")
    expect(table.locator("thead")).to_contain_text("support-bot")
    expect(table.locator("thead")).to_contain_text("sales-bot")
    expect(table.locator('tr[data-kind="memories"] td')).to_have_text(["3", "2", "1"])
    expect(table.locator('tr[data-kind="sessions"] td')).to_have_text(["1", "1", "0"])
    expect(table.locator('tr[data-kind="facts"] td')).to_have_text(["1", "1", "0"])

    page.evaluate("window.notReloaded = true")
    page.get_by_label("to confirm").fill("dana")
    page.get_by_role("button", name="Erase this person for good").click()
    expect(page.locator(".field-error")).to_contain_text(f"Type '{USER}' exactly to erase.")
    assert page.evaluate("window.notReloaded") is True  # the panel was swapped in place
    assert Memory.objects.count() == 3

    page.get_by_label("to confirm").fill(USER)
    page.get_by_role("button", name="Erase this person for good").click()
    page.wait_for_url("**/receipts/**")
    expect(page.locator("#receipt")).to_contain_text("held about one person")
    expect(page.locator("#receipt")).not_to_contain_text(USER)
    assert ErasureReceipt.objects.get().counts["memories"] == 3
    assert (Memory.objects.count(), Session.objects.count()) == (0, 0)
    assert list(Fact.objects.values_list("user_ref", flat=True)) == ["erin"]


def test_the_facts_list_leads_to_the_person_and_its_export(sign_in, live_server, person):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/?agent=support-bot")
    page.get_by_role("link", name=USER, exact=True).click()
    page.get_by_role("link", name=f"Forget person “{USER}” (everything, every agent)…").click()
    expect(page.get_by_role("heading", name=f"Forget person “{USER}”")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name=f"Export everything about {USER} (JSON)").click()
    data = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert sorted(m["content"] for m in data["memories"]) == [
        "Asked for a quote",
        "Dana turn 0",
        "Dana turn 1",
    ]
    assert data["sessions"][0]["metadata"] == {"email": "dana@example.org"}
    assert Memory.objects.count() == 3
