"""Editing a memory's importance and tags from its page: through update_memory (the REST
PATCH's service), audited, for managers and staff only, errors in the form, isolated."""

import pytest

from memory.models import Memory
from memory.services import MemoryInput, store_memories, user_tags
from tenancy.models import Agent, AuditAction, AuditEvent
from tests.dashboard.conftest import app

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def remember(agent: Agent, content: str = "The user likes green tea", **fields) -> Memory:
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=content, **fields)])
    return memory


def edit_url(memory: Memory) -> str:
    return f"/dashboard/memory/{memory.pk}/edit/"


def stored(memory: Memory) -> Memory:
    return Memory.objects.get(pk=memory.pk)


def events(memory: Memory) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=AuditAction.MEMORY_UPDATE, target_id=memory.pk))


def test_staff_edits_importance_and_tags_and_is_sent_back_to_the_page(staff_client, agent):
    memory = remember(agent, tags=["tea"], importance=0.5)
    response = staff_client.post(
        edit_url(memory), {"importance": "0.8", "tags": "tea\ndrinks, hot\n"}
    )
    assert (response.status_code, response["Location"]) == (302, f"/dashboard/memory/{memory.pk}/")
    after = stored(memory)
    assert after.importance == 0.8
    assert after.decay_base == 0.8  # decay starts again from the new value
    assert user_tags(after) == ["tea", "drinks, hot"]
    (event,) = events(memory)
    assert event.actor == "operator:ops"
    assert event.agent_id == agent.pk
    assert event.details == {
        "fields": ["importance", "tags"],
        "importance": {"from": 0.5, "to": 0.8},
        "tags": {"added": 1, "removed": 0},
    }
    assert "Memory saved." in staff_client.get(response["Location"]).text


def test_entity_tags_are_kept_and_not_offered_for_editing(staff_client, agent):
    memory = remember(agent, "Ana met Bob in Paris", tags=["trip"])
    page = staff_client.get(f"/dashboard/memory/{memory.pk}/")
    assert page.context["edit_form"]["tags"].value() == "trip"
    entity_tags = list(page.context["memory"]["entities"])
    staff_client.post(edit_url(memory), {"importance": "0.5", "tags": ""})
    refreshed = staff_client.get(f"/dashboard/memory/{memory.pk}/").context["memory"]
    assert refreshed["tags"] == []
    assert refreshed["entities"] == entity_tags


def test_a_tags_only_edit_leaves_importance_and_its_decay_alone(staff_client, agent):
    memory = remember(agent, tags=["tea"], importance=0.5)
    before = stored(memory)
    staff_client.post(edit_url(memory), {"importance": "0.5", "tags": "coffee"})
    after = stored(memory)
    assert (after.importance, after.decay_from) == (before.importance, before.decay_from)
    assert events(memory)[0].details["fields"] == ["tags"]


def test_unchanged_form_writes_nothing(staff_client, agent):
    memory = remember(agent, tags=["tea"], importance=0.5)
    before = stored(memory).updated_at
    response = staff_client.post(
        edit_url(memory), {"importance": "0.5", "tags": "tea"}, headers=HTMX
    )
    assert response.status_code == 200
    assert "Nothing to save" in response.text
    assert stored(memory).updated_at == before
    assert events(memory) == []


def test_htmx_edit_returns_the_detail_with_the_new_values(manager_client, agent):
    memory = remember(agent, tags=["tea"], importance=0.5)
    response = manager_client.post(
        app(edit_url(memory)), {"importance": "0.25", "tags": "tea\nmorning"}, headers=HTMX
    )
    assert response.status_code == 200
    assert "<html" not in response.text
    assert 'id="memory-detail"' in response.text
    assert "<code>morning</code>" in response.text
    assert "0.25" in response.text
    assert "Memory saved." in response.text
    assert events(memory)[0].actor == "operator:mia"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"importance": "1.5", "tags": ""}, "importance", "less than or equal to 1"),
        ({"importance": "", "tags": ""}, "importance", "required"),
        ({"importance": "nan", "tags": ""}, "importance", ""),
        ({"importance": "0.5", "tags": "x" * 201}, "tags", "tags"),
        ({"importance": "0.5", "tags": "\n".join(f"t{i}" for i in range(60))}, "tags", "limit"),
    ],
)
def test_invalid_values_come_back_in_the_form_and_change_nothing(
    staff_client, agent, data, field, message
):
    memory = remember(agent, tags=["tea"], importance=0.5)
    response = staff_client.post(edit_url(memory), data)
    assert response.status_code == 400
    errors = response.context["edit_form"].errors
    assert field in errors
    assert message in " ".join(errors[field])
    assert 'class="field-error"' in response.text
    after = stored(memory)
    assert (after.importance, user_tags(after)) == (0.5, ["tea"])
    assert events(memory) == []
    htmx = staff_client.post(edit_url(memory), data, headers=HTMX)
    assert htmx.status_code == 200  # htmx swaps only 2xx: the form with its errors
    assert 'class="field-error"' in htmx.text


def test_viewer_sees_no_form_and_a_post_is_403(viewer_client, agent):
    memory = remember(agent, tags=["tea"], importance=0.5)
    page = viewer_client.get(app(f"/dashboard/memory/{memory.pk}/")).text
    assert 'id="memory-edit"' not in page
    response = viewer_client.post(app(edit_url(memory)), {"importance": "0.9", "tags": ""})
    assert response.status_code == 403
    assert stored(memory).importance == 0.5
    assert events(memory) == []


def test_manager_page_shows_the_form(manager_client, agent):
    memory = remember(agent)
    page = manager_client.get(app(f"/dashboard/memory/{memory.pk}/")).text
    assert f'action="/app/memory/{memory.pk}/edit/"' in page


def test_another_workspace_memory_is_a_404_and_unchanged(manager_client, agent, other_agent):
    theirs = remember(other_agent, tags=["secret"], importance=0.5)
    response = manager_client.post(app(edit_url(theirs)), {"importance": "0.9", "tags": ""})
    assert response.status_code == 404
    assert stored(theirs).importance == 0.5
    assert events(theirs) == []


def test_get_is_not_allowed(staff_client, agent):
    assert staff_client.get(edit_url(remember(agent))).status_code == 405
