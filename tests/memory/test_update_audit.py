"""update_memory's audit: an edit by a person or a key leaves a ``memory.update`` event
naming the fields, never the content or the tags; the REST PATCH is audited too."""

import pytest

from dewee.errors import InvalidInput
from memory.models import Memory
from memory.services import MemoryInput, store_memories, update_memory
from tenancy.models import AuditAction, AuditEvent

pytestmark = pytest.mark.django_db


def remember(agent, **fields) -> Memory:
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content="Ana drinks tea", **fields)])
    return memory


def test_edit_with_an_actor_is_audited_without_content_or_tags(agent):
    memory = remember(agent, tags=["private-tag"])
    update_memory(memory=memory, actor="operator:ops", content="Ana drinks coffee", tags=["x"])
    (event,) = AuditEvent.objects.filter(action=AuditAction.MEMORY_UPDATE)
    assert (event.target_type, event.target_id, event.workspace_id) == (
        "memory",
        str(memory.pk),
        agent.workspace_id,
    )
    assert event.details == {"fields": ["content", "tags"], "tags": {"added": 1, "removed": 1}}
    assert "coffee" not in str(event.details)
    assert "private-tag" not in str(event.details)


def test_a_rejected_edit_records_nothing(agent):
    memory = remember(agent)
    with pytest.raises(InvalidInput):
        update_memory(memory=memory, actor="operator:ops", importance=2.0)
    assert not AuditEvent.objects.filter(action=AuditAction.MEMORY_UPDATE).exists()


def test_rest_patch_is_audited_with_the_key_as_actor(api, agent):
    memory = remember(agent)
    response = api.client.patch(
        f"/v1/memories/{memory.pk}",
        data='{"importance": 0.9}',
        content_type="application/json",
        headers=api.headers,
    )
    assert response.status_code == 200
    (event,) = AuditEvent.objects.filter(action=AuditAction.MEMORY_UPDATE)
    assert event.actor.startswith("key:test key#")
    assert event.details == {"fields": ["importance"], "importance": {"from": 0.5, "to": 0.9}}
