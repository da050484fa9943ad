"""Deleting the memory behind a slot's current value: the value it superseded, learned from a
memory still kept, is believed again (DESIGN.md, fact rules; facts.services.erasure)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, Status
from facts.services import end_fact
from memory.services import MemoryInput, store_memories
from tenancy.models import AuditAction, AuditEvent
from tests.facts.test_api import body

pytestmark = pytest.mark.django_db


def remember(agent, content):
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=content)])
    return memory


def learn(api, memory, value, **fields):
    """The employer of u1 is ``value``, as ``memory`` says."""
    source = {"kind": "memory_document", "memory_id": memory.pk, "excerpt": f"I work at {value}"}
    response = api.post("/v1/facts", body(value=value, source=source, **fields))
    assert response.status_code == 200, response.content
    return response.json()


def delete_memory(api, memory):
    response = api.delete(f"/v1/memories/{memory.pk}")
    assert response.status_code in (200, 204), response.content


def listed(api, **params):
    response = api.get("/v1/facts", agent_id="support-bot", user="u1", **params)
    assert response.status_code == 200, response.content
    return {(f["value"], f["status"]) for f in response.json()["items"]}


def test_deleting_the_memory_behind_the_newer_value_makes_the_older_one_current(api, agent):
    m1, m2 = remember(agent, "I work at Acme"), remember(agent, "I work at Dropbox now")
    acme = learn(api, m1, "Acme")["fact"]
    assert learn(api, m2, "Dropbox")["outcome"] == "superseded"

    delete_memory(api, m2)

    assert listed(api) == {("Acme", "current")}
    assert listed(api, status="current") == {("Acme", "current")}
    detail = api.get(f"/v1/facts/{acme['id']}").json()
    assert detail["status"] == "current"
    # Believed again from the deletion on, and it says why, in the fact and its audit log.
    fact = Fact.objects.get(pk=acme["id"])
    assert fact.believed_until is None
    assert fact.believed_from is not None
    assert fact.believed_from > fact.recorded_at
    assert fact.restored_at == fact.believed_from
    event = AuditEvent.objects.get(action=AuditAction.FACT_RESTORE, target_id=str(acme["id"]))
    assert event.details["outcome"] == "current"
    assert event.details["cause"] == "replacement_erased"
    assert event.details["memories"] == [m2.pk]
    assert event.actor
    # The changes feed shows it back in use.
    since = (fact.believed_from - timedelta(seconds=1)).isoformat()
    changes = api.get("/v1/facts/changes", agent_id="support-bot", since=since).json()
    assert ("restored", acme["id"]) in {(c["kind"], c["fact"]["id"]) for c in changes["items"]}


@pytest.mark.django_db(transaction=True)
def test_facts_learned_from_stored_memories_fall_back_when_the_newer_memory_goes(api, agent):
    def store(content):
        response = api.post(
            "/v1/memories",
            {"agent_id": "support-bot", "content": content, "user": "ana", "extract_facts": "sync"},
        )
        assert response.status_code == 201, response.content
        return response.json()

    store("I live in Jakarta and I work at Google")
    newer = store("I just moved to Surabaya for my new job at Anthropic")
    assert api.delete(f"/v1/memories/{newer['id']}").status_code in (200, 204)

    response = api.get("/v1/facts", agent_id="support-bot", user="ana", status="current")
    current = {(f["predicate"], f["value"]) for f in response.json()["items"]}
    assert current == {("city", "Jakarta"), ("employer", "Google")}


def test_a_chain_falls_back_one_value_per_deletion(api, agent):
    m1, m2, m3 = (remember(agent, f"note {n}") for n in range(3))
    learn(api, m1, "Acme")
    learn(api, m2, "Dropbox")
    learn(api, m3, "Canva")

    delete_memory(api, m3)
    assert listed(api) == {("Acme", "history"), ("Dropbox", "current")}
    delete_memory(api, m2)
    assert listed(api) == {("Acme", "current")}


def test_values_erased_together_fall_back_past_both(api, agent):
    m1, m2, m3 = (remember(agent, f"note {n}") for n in range(3))
    learn(api, m1, "Acme")
    learn(api, m2, "Dropbox")
    learn(api, m3, "Canva")

    response = api.post("/v1/memories/forget", {"agent_id": "support-bot", "ids": [m2.pk, m3.pk]})
    assert response.status_code == 200, response.content
    assert listed(api) == {("Acme", "current")}


def test_nothing_comes_back_without_evidence_or_when_the_value_ended(api, agent):
    # Erased with its successor: no source is left for it.
    m1, m2 = remember(agent, "I work at Acme"), remember(agent, "I work at Dropbox")
    learn(api, m1, "Acme")
    learn(api, m2, "Dropbox")
    response = api.post("/v1/memories/forget", {"agent_id": "support-bot", "ids": [m1.pk, m2.pk]})
    assert response.status_code == 200, response.content
    assert listed(api) == set()

    # Ended ("I left Acme") before another value came: the slot stays empty.
    m3, m4 = remember(agent, "I work at Acme"), remember(agent, "I work at Canva")
    acme = Fact.objects.get(pk=learn(api, m3, "Acme")["fact"]["id"])
    end_fact(fact=acme, actor="test")
    learn(api, m4, "Canva")
    delete_memory(api, m4)
    assert listed(api) == {("Acme", "history")}


def test_a_value_deleted_by_a_person_stays_deleted(api, agent):
    m1, m2 = remember(agent, "I work at Acme"), remember(agent, "I work at Dropbox")
    acme = learn(api, m1, "Acme")["fact"]
    learn(api, m2, "Dropbox")
    assert api.delete(f"/v1/facts/{acme['id']}", reason="wrong").status_code == 200
    delete_memory(api, m2)
    assert listed(api) == {("Acme", "deleted")}


def test_deleting_the_memory_of_a_history_value_changes_nothing_current(api, agent):
    m1, m2 = remember(agent, "I work at Acme"), remember(agent, "I work at Dropbox")
    learn(api, m1, "Acme")
    learn(api, m2, "Dropbox")
    learn(api, remember(agent, "I work at Canva"), "Canva")
    delete_memory(api, m2)
    assert listed(api) == {("Acme", "history"), ("Canva", "current")}
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).exists()


def test_a_value_handed_over_to_a_future_one_holds_again_without_end(api, agent):
    m1, m2 = remember(agent, "I work at Google"), remember(agent, "I join Canva next month")
    google = learn(api, m1, "Google")["fact"]
    starts = (timezone.now() + timedelta(days=30)).isoformat()
    learn(api, m2, "Canva", valid_from=starts)
    assert Fact.objects.get(pk=google["id"]).valid_to is not None

    delete_memory(api, m2)

    fact = Fact.objects.get(pk=google["id"])
    assert (fact.status, fact.valid_to) == (Status.CURRENT, None)
