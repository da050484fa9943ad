"""A person is found wherever a memory names their id: in its metadata, its tags and its
source references, not only its user; in either Unicode form of the id; and an id holding
'/' is reached by every interface that exports or erases a person."""

import json
import unicodedata

import pytest

from dewee.cli import main
from facts.models import Fact
from knowledge.people import find_person
from knowledge.people_export import export_person
from knowledge.services import erase_person
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tests.factories import state

pytestmark = pytest.mark.django_db

NFC = unicodedata.normalize("NFC", "josé-ñúñez")
NFD = unicodedata.normalize("NFD", NFC)


def contents(agent):
    return sorted(Memory.objects.filter(agent=agent).values_list("content", flat=True))


def exported(workspace, user):
    return json.loads("".join(export_person(workspace=workspace, user=user)))


def test_memories_naming_the_person_in_metadata_tags_or_source_refs_are_theirs(agent, workspace):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="prefers tea", metadata={"user": "ana"}),
            MemoryInput(content="asked for invoice 12", metadata={"user_id": "ana", "n": 1}),
            MemoryInput(content="billing address changed", metadata={"person": "ana"}),
            MemoryInput(content="call back on monday", tags=["ana"]),
            MemoryInput(content="renewal due", tags=["crm", "user:ana"]),
            MemoryInput(content="from the crm import", source_refs=["user:ana"]),
            # Not hers: another person, a longer id, a value under another key.
            MemoryInput(content="prefers coffee", metadata={"user": "anabel"}),
            MemoryInput(content="uses the mobile app", tags=["anabel", "user:bob"]),
            MemoryInput(content="imported row", source_refs=["user:anabel"]),
            MemoryInput(content="colour blind", metadata={"colour": "ana-green"}),
        ],
    )
    theirs = [
        "asked for invoice 12",
        "billing address changed",
        "call back on monday",
        "from the crm import",
        "prefers tea",
        "renewal due",
    ]
    assert find_person(workspace=workspace, user="ana").totals()["memories"] == 6
    assert sorted(m["content"] for m in exported(workspace, "ana")["memories"]) == theirs

    erase_person(workspace=workspace, user="ana", actor="operator:ann")

    assert contents(agent) == [
        "colour blind",
        "imported row",
        "prefers coffee",
        "uses the mobile app",
    ]


def test_a_summary_made_from_a_memory_tagged_with_the_person_goes_too(agent, workspace):
    [tagged] = store_memories(agent=agent, items=[MemoryInput(content="vip", tags=["user:ana"])])
    store_memories(
        agent=agent, items=[MemoryInput(content="digest", source_refs=[f"memory:{tagged.pk}"])]
    )
    erase_person(workspace=workspace, user="ana", actor="x")
    assert contents(agent) == []


def test_a_user_id_is_stored_in_nfc_whichever_form_the_client_sent(api, agent):
    stored = api.post("/v1/memories", {"agent_id": agent.agent_id, "content": "hi", "user": NFD})
    assert stored.status_code == 201, stored.content
    session = api.post("/v1/sessions", {"agent_id": agent.agent_id, "user": NFD}).json()
    state(agent, "Acme", user=NFD)
    assert Memory.objects.get().user_ref == NFC
    assert Session.objects.get(pk=session["id"]).user_ref == NFC
    assert Fact.objects.get().user_ref == NFC


def _stored_in_nfd(agent):
    """What a server that did not normalise ids stored for the person: every user column in
    NFD (written past the services, as an old release left it)."""
    session = start_session(agent=agent, user="placeholder")
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="turn one", session_id=session.pk),
            MemoryInput(content="lives in Sevilla", user="placeholder"),
            MemoryInput(content=f"{NFD} called twice"),
            MemoryInput(content="tagged", tags=[f"user:{NFD}"]),
        ],
    )
    state(agent, "Acme", user="placeholder")
    Session.objects.update(user_ref=NFD)
    Memory.objects.filter(user_ref="placeholder").update(user_ref=NFD)
    Fact.objects.update(user_ref=NFD)


@pytest.mark.parametrize("form", [NFC, NFD], ids=["nfc", "nfd"])
def test_erasing_either_form_of_an_id_erases_what_was_stored_in_the_other(agent, workspace, form):
    _stored_in_nfd(agent)
    store_memories(agent=agent, items=[MemoryInput(content="someone else", user="erin")])
    assert sorted(m["content"] for m in exported(workspace, form)["memories"]) == [
        f"{NFD} called twice",
        "lives in Sevilla",
        "tagged",
        "turn one",
    ]
    assert len(exported(workspace, form)["facts"]) == 1

    receipt = erase_person(workspace=workspace, user=form, actor="x").receipt

    assert (receipt.counts["memories"], receipt.counts["sessions"]) == (4, 1)
    assert contents(agent) == ["someone else"]
    assert not Session.objects.exists()
    assert not Fact.objects.exists()


def test_the_person_page_and_the_facts_filter_find_an_id_stored_in_nfd(api, agent, admin_client):
    _stored_in_nfd(agent)
    facts = api.get("/v1/facts", agent_id=agent.agent_id, user=NFC).json()
    assert [f["value"] for f in facts["items"]] == ["Acme"]
    page = admin_client.get("/dashboard/memory/people/", {"user": NFC})
    assert page.status_code == 200
    assert "lives in Sevilla" in page.content.decode()


SLASHED = "team/ana"


@pytest.fixture
def slashed(agent):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="asked about the roadmap", user=SLASHED),
            MemoryInput(content="someone else", user="ana"),
        ],
    )
    state(agent, "Acme", user=SLASHED)


@pytest.mark.parametrize("path", ["team/ana", "team%2Fana"])
def test_an_id_holding_a_slash_is_exported_and_erased_through_rest(api, agent, slashed, path):
    response = api.get(f"/v1/people/{path}/export")
    assert response.status_code == 200
    data = json.loads(b"".join(response.streaming_content))
    assert data["user"] == SLASHED
    assert [m["content"] for m in data["memories"]] == ["asked about the roadmap"]
    assert [f["value"] for f in data["facts"]] == ["Acme"]

    erased = api.post("/v1/people/forget", {"user": SLASHED, "confirm": True})
    assert erased.status_code == 200, erased.content
    assert erased.json()["counts"]["memories"] == 1
    assert contents(agent) == ["someone else"]
    assert not Fact.objects.exists()


def test_an_id_holding_a_slash_is_exported_and_erased_through_the_cli(
    capsys, agent, workspace, slashed
):
    assert main(["people", "export", SLASHED, "--workspace", workspace.slug]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["content"] for m in data["memories"]] == ["asked about the roadmap"]
    assert main(["people", "forget", SLASHED, "--workspace", workspace.slug, "--yes"]) == 0
    assert contents(agent) == ["someone else"]
    assert not Fact.objects.exists()
