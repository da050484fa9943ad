"""The dashboard's person pages: the erasure's preview and typed confirmation, and the
export download; for staff and managers only, within what they may see."""

import json

import pytest

from facts.models import Fact
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import ErasureReceipt
from tenancy.receipts import user_digest
from tests.dashboard.conftest import app
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

FORGET = "/dashboard/memory/people/forget/"
EXPORT = "/dashboard/memory/people/export/"
USER = "dana-3f9"


@pytest.fixture
def person(agent, workspace):
    session = start_session(agent=agent, user=USER, metadata={"email": "dana@example.org"})
    store_memories(
        agent=agent, items=[MemoryInput(content="Dana lives in Porto", session_id=session.pk)]
    )
    sales = make_agent(workspace, "sales-bot")
    store_memories(agent=sales, items=[MemoryInput(content="Asked for a quote", user=USER)])
    return state(agent, "Acme", user=USER).fact


def counts_of(page) -> dict[str, dict[str, int | None]]:
    return {row["kind"]: row for row in page.context["rows"]}


def test_the_fact_page_and_the_filtered_facts_list_offer_the_person(staff_client, person):
    # Staff see every workspace, so their links name the agent with its workspace.
    page = staff_client.get(f"/dashboard/facts/{person.pk}/").text
    assert f'href="{FORGET}?agent=acme/support-bot&amp;user={USER}"' in page
    assert f"{EXPORT}?agent=acme/support-bot&amp;user={USER}" in page
    listed = staff_client.get("/dashboard/facts/", {"agent": "support-bot", "user": USER}).text
    assert f'href="{FORGET}?agent=acme/support-bot&amp;user={USER}"' in listed


def test_the_preview_names_what_goes_per_kind_and_per_agent_and_erases_nothing(
    staff_client, person
):
    page = staff_client.get(FORGET, {"agent": "support-bot", "user": USER})
    assert page.status_code == 200
    assert page.context["agents"] == ["support-bot", "sales-bot"]
    rows = counts_of(page)
    assert (rows["memories"]["total"], rows["memories"]["agents"]) == (2, [1, 1])
    assert (rows["sessions"]["total"], rows["sessions"]["agents"]) == (1, [1, 0])
    assert (rows["facts"]["total"], rows["facts"]["agents"]) == (1, [1, 0])
    assert "<h1>Forget person “dana-3f9”</h1>" in page.text
    assert "Type <code>dana-3f9</code> to confirm" in page.text
    assert (Memory.objects.count(), Session.objects.count(), Fact.objects.count()) == (2, 1, 1)


def test_htmx_gets_the_panel_only(staff_client, person):
    page = staff_client.get(
        FORGET, {"agent": "support-bot", "user": USER}, headers={"HX-Request": "true"}
    )
    assert page.text.lstrip().startswith('<section id="person-forget-panel"')


def test_a_wrong_confirmation_erases_nothing_and_says_what_to_type(staff_client, person):
    body = {"agent": "support-bot", "user": USER, "confirmation": "dana"}
    page = staff_client.post(FORGET, body)
    assert page.status_code == 200
    assert "Type &#x27;dana-3f9&#x27; exactly to erase." in page.text
    assert Memory.objects.count() == 2
    assert not ErasureReceipt.objects.exists()


def test_the_typed_confirmation_erases_and_redirects_to_the_receipt(manager_client, person):
    body = {"agent": "support-bot", "user": USER, "confirmation": USER}
    answer = manager_client.post(app(FORGET), body)
    receipt = ErasureReceipt.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/app/receipts/{receipt.pk}/"
    assert (Memory.objects.count(), Session.objects.count(), Fact.objects.count()) == (0, 0, 0)
    shown = manager_client.get(answer["Location"]).text
    assert "Everything workspace <strong>acme</strong> held about one" in shown
    assert user_digest(USER) in shown
    assert USER not in shown


def test_htmx_confirmation_redirects_the_client(staff_client, person):
    body = {"agent": "support-bot", "user": USER, "confirmation": USER}
    answer = staff_client.post(FORGET, body, headers={"HX-Request": "true"})
    assert answer["HX-Redirect"] == f"/dashboard/receipts/{ErasureReceipt.objects.get().pk}/"


def test_viewers_may_not_forget_or_export(viewer_client, person):
    query = {"agent": "support-bot", "user": USER}
    assert viewer_client.get(app(FORGET), query).status_code == 403
    assert viewer_client.post(app(FORGET), {**query, "confirmation": USER}).status_code == 403
    assert viewer_client.get(app(EXPORT), query).status_code == 403
    assert Memory.objects.count() == 2


def test_another_workspaces_agent_is_not_found(manager_client, other_agent):
    state(other_agent, "Globex", user=USER)
    query = {"agent": "globex-bot", "user": USER}
    assert manager_client.get(app(FORGET), query).status_code == 404
    assert manager_client.post(app(FORGET), {**query, "confirmation": USER}).status_code == 404
    assert manager_client.get(app(EXPORT), query).status_code == 404
    assert Fact.objects.count() == 1


def test_a_missing_user_is_a_bad_request(staff_client, agent):
    assert staff_client.get(FORGET, {"agent": "support-bot"}).status_code == 400


def test_the_export_is_a_json_download_of_the_person(staff_client, person):
    answer = staff_client.get(EXPORT, {"agent": "support-bot", "user": USER})
    assert answer["Content-Disposition"] == 'attachment; filename="person-export.json"'
    data = json.loads(b"".join(answer.streaming_content))
    assert sorted(m["content"] for m in data["memories"]) == [
        "Asked for a quote",
        "Dana lives in Porto",
    ]
    assert Memory.objects.count() == 2
