"""The entities REST API and manual links: shapes, errors, isolation, and reads that write
nothing."""

import pytest

from memory.models import EdgeType, Entity, MemoryEdge
from tenancy.models import AuditAction, AuditEvent

pytestmark = pytest.mark.django_db


def test_extract_finds_entities_and_the_speaker_and_stores_nothing(api, agent):
    response = api.post("/v1/memories/extract", {"text": "Caroline: I moved to Boston"})
    assert response.status_code == 200
    body = response.json()
    assert body["speaker"] == "Caroline"
    assert {(e["type"], e["value"]) for e in body["entities"]} == {
        ("person", "caroline"),
        ("place", "boston"),
    }
    assert not Entity.objects.exists()


def test_extract_refuses_an_empty_text(api):
    response = api.post("/v1/memories/extract", {"text": " "})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"


def test_a_stored_memory_has_its_speaker_and_its_entities(api, agent):
    stored = api.post(
        "/v1/memories", {"agent_id": agent.agent_id, "content": "Caroline: I moved to Boston"}
    ).json()
    assert stored["speaker"] == "Caroline"
    given = api.post(
        "/v1/memories/batch",
        {"agent_id": agent.agent_id, "items": [{"content": "hi", "speaker": "Mel"}]},
    ).json()
    assert given["items"][0]["speaker"] == "Mel"
    found = api.get(f"/v1/memories/{stored['id']}/entities").json()
    assert [(e["type"], e["name"], e["as_speaker"]) for e in found] == [
        ("person", "Caroline", True),
        ("place", "Boston", False),
    ]


def test_an_agents_entities_are_listed_with_counts_search_type_and_pages(api, agent, remember):
    remember("Caroline: I moved to Boston", "Melanie: Boston, Caroline? Nice", "Carl said hi")
    page = api.get(f"/v1/agents/{agent.agent_id}/entities", limit=2).json()
    assert len(page["items"]) == 2
    assert page["next_cursor"]
    rest = api.get(f"/v1/agents/{agent.agent_id}/entities", cursor=page["next_cursor"]).json()
    names = {e["name"]: e["mention_count"] for e in page["items"] + rest["items"]}
    assert names == {"Caroline": 2, "Boston": 2, "Melanie": 1, "Carl": 1}
    found = api.get(f"/v1/agents/{agent.agent_id}/entities", q="CAR").json()["items"]
    assert {e["name"] for e in found} == {"Caroline", "Carl"}
    places = api.get(f"/v1/agents/{agent.agent_id}/entities", type="place").json()["items"]
    assert [e["name"] for e in places] == ["Boston"]
    bad = api.get(f"/v1/agents/{agent.agent_id}/entities", type="planet")
    assert bad.status_code == 400


def test_another_workspaces_agent_entities_and_memories_are_not_found(
    api, other_api, agent, remember
):
    (memory,) = remember("Caroline: I moved to Boston")
    entity = Entity.objects.get(key="caroline")
    assert other_api.get(f"/v1/agents/{agent.agent_id}/entities").status_code == 404
    assert other_api.get(f"/v1/memories/{memory.pk}/entities").status_code == 404
    url = f"/v1/agents/{agent.agent_id}/entities/{entity.pk}"
    assert api.get(url).status_code == 200
    assert other_api.get(url).status_code == 404


def test_an_entity_of_another_agent_is_not_found(api, agent, workspace, remember):
    from tests.factories import make_agent

    second = make_agent(workspace, "second-bot")
    remember("Caroline: hi", target=second)
    entity = Entity.objects.get(agent=second)
    response = api.get(f"/v1/agents/{agent.agent_id}/entities/{entity.pk}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "entity_not_found"


def test_reads_write_nothing(api, agent, remember):
    (memory,) = remember("Caroline: I moved to Boston")
    before = list(Entity.objects.values())
    api.get(f"/v1/agents/{agent.agent_id}/entities", q="bo")
    api.get(f"/v1/memories/{memory.pk}/entities")
    assert list(Entity.objects.values()) == before


def test_a_manual_link_is_made_audited_refused_twice_and_removed(api, agent, remember):
    a, b = remember("tea notes", "coffee notes")
    made = api.post(f"/v1/memories/{a.pk}/links", {"target_id": b.pk})
    assert made.status_code == 201
    assert made.json()["type"] == "linked_by"
    assert made.json()["created_by"]
    again = api.post(f"/v1/memories/{a.pk}/links", {"target_id": b.pk})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "link_exists"
    assert AuditEvent.objects.filter(action=AuditAction.MEMORY_LINK).count() == 1
    gone = api.delete(f"/v1/memories/{a.pk}/links/{b.pk}")
    assert gone.status_code == 204
    assert not MemoryEdge.objects.filter(type=EdgeType.LINKED_BY).exists()
    assert AuditEvent.objects.filter(action=AuditAction.MEMORY_UNLINK).count() == 1
    assert api.delete(f"/v1/memories/{a.pk}/links/{b.pk}").status_code == 404


def test_a_link_to_itself_or_a_missing_memory_is_refused(api, agent, remember):
    (a,) = remember("tea notes")
    itself = api.post(f"/v1/memories/{a.pk}/links", {"target_id": a.pk})
    assert itself.status_code == 400
    assert itself.json()["error"]["code"] == "invalid_link"
    assert api.post(f"/v1/memories/{a.pk}/links", {"target_id": 999999}).status_code == 404
    assert api.post("/v1/memories/999999/links", {"target_id": a.pk}).status_code == 404


def test_a_link_never_crosses_agents_or_workspaces(
    api, other_api, agent, other_agent, workspace, remember
):
    from tests.factories import make_agent

    (mine,) = remember("tea notes")
    (theirs,) = remember("their notes", target=other_agent)
    (sibling,) = remember("sibling notes", target=make_agent(workspace, "sibling-bot"))
    assert api.post(f"/v1/memories/{mine.pk}/links", {"target_id": theirs.pk}).status_code == 404
    assert api.post(f"/v1/memories/{mine.pk}/links", {"target_id": sibling.pk}).status_code == 404
    assert (
        other_api.post(f"/v1/memories/{mine.pk}/links", {"target_id": mine.pk}).status_code == 404
    )
    assert not MemoryEdge.objects.filter(type=EdgeType.LINKED_BY).exists()


def test_the_entity_policy_is_validated_and_returned(api, agent):
    url = f"/v1/agents/{agent.agent_id}/memory_policy"
    bad = api.client.put(
        url,
        data='{"entity_types": ["planet"]}',
        content_type="application/json",
        headers=api.headers,
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_memory_policy"
    ok = api.client.put(
        url,
        data='{"entity_types": ["person"], "extract_entities": true}',
        content_type="application/json",
        headers=api.headers,
    )
    assert ok.status_code == 200
    assert ok.json()["entity_types"] == ["person"]
    assert ok.json()["extract_entities"] is True
    assert api.get(url).json()["entity_types"] == ["person"]


def test_two_full_names_who_met_are_people_and_a_person_only_policy_keeps_both(api, agent):
    text = "Maria Lopez met John Carter in Lisbon."
    response = api.post("/v1/memories/extract", {"text": text})
    assert response.status_code == 200, response.content
    assert {(e["type"], e["value"]) for e in response.json()["entities"]} == {
        ("person", "maria lopez"),
        ("person", "john carter"),
        ("place", "lisbon"),
    }
    policy = api.client.put(
        f"/v1/agents/{agent.agent_id}/memory_policy",
        data='{"entity_types": ["person"]}',
        content_type="application/json",
        headers=api.headers,
    )
    assert policy.status_code == 200, policy.content
    stored = api.post("/v1/memories", {"agent_id": agent.agent_id, "content": text}).json()
    found = api.get(f"/v1/memories/{stored['id']}/entities").json()
    assert {(e["type"], e["name"]) for e in found} == {
        ("person", "Maria Lopez"),
        ("person", "John Carter"),
    }
