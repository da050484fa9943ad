"""Editing one stored memory (update_memory): what is given changes and the rest stays,
checked and embedded first, then written with what the memory derives (its tags, its
mentions, its size against the quotas) in one transaction, and audited when a person or an
API key made the edit.
"""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from language.entities import Entity
from memory.embeddings.engine import Embedder, get_embedder
from memory.exceptions import MemoryNotFound
from memory.models import Memory, MemoryTag, MemoryType
from memory.quotas import QuotaWarning, Usage, check_quotas
from memory.services.entities import (
    add_mentions,
    allowed_entities,
    memory_mentions,
    release_mentions,
)
from memory.services.graph import graph_on_store
from memory.services.policy import MemoryPolicy, get_memory_policy
from memory.services.sessions import record_session_activity
from memory.services.storing import memory_size_of, tag_rows, user_tags
from memory.services.vectors import bump_memory_version, claim_embedding_model
from tenancy.audit import record_event
from tenancy.models import AuditAction
from tenancy.validation import (
    CONTENT_MAX_CHARS,
    clean_choice,
    clean_metadata,
    clean_tags,
    clean_text,
    clean_unit_interval,
)

_UNSET: Any = object()


def update_memory(
    *,
    memory: Memory,
    content: str = _UNSET,
    memory_type: str = _UNSET,
    importance: float = _UNSET,
    tags: list[str] = _UNSET,
    metadata: dict[str, Any] = _UNSET,
    embedder: Embedder | None = None,
    quota_warnings: list[QuotaWarning] | None = None,
    actor: str | None = None,
) -> Memory:
    """Change what is given, leave the rest; all or nothing. Everything is validated, and
    new content embedded, before anything is written; then the memory's row is locked and
    the memory, its tags (new content is re-tagged; the keyword index follows by trigger or
    generated column), the vector cache's version and its session's activity are written
    in one transaction. An edit is activity of the memory's session. An edit that grows the
    memory is checked against the quotas by how much it grows it (QuotaExceeded over a hard
    one; soft warnings are appended to ``quota_warnings``); one that shrinks it never is.
    A memory deleted (or merged away) meanwhile is MemoryNotFound. With an ``actor`` (a
    person or an API key), the edit is audited in the same transaction (``memory.update``:
    the fields given, importance before and after, how many tags came and went; never the
    content or the tags themselves, which the memory's own erasure must not leave behind).
    Returns the memory as stored."""
    now = timezone.now()
    changes, new_tags, model = _clean_changes(
        content, memory_type, importance, metadata, tags, embedder=embedder, now=now
    )
    with transaction.atomic():
        # Locked, so that two edits of one memory do not interleave their tag rewrites.
        stored = Memory.objects.select_for_update().filter(pk=memory.pk).first()
        if stored is None:
            raise MemoryNotFound(f"Memory {memory.pk} not found for this agent")
        stored.agent = memory.agent
        resized = "content" in changes or "metadata" in changes or new_tags is not None
        old_tags = user_tags(stored) if resized else []
        before = memory_size_of(stored, old_tags)  # measured anew: older rows have no sizes
        before_importance = stored.importance
        for name, value in changes.items():
            setattr(stored, name, value)
        fields = [*changes, "updated_at"]
        if resized:
            kept = new_tags if new_tags is not None else old_tags
            fields += _resize(stored, before, kept, quota_warnings)
        if model is not None:
            claim_embedding_model(stored.agent, model)
        stored.updated_at = now
        stored.save(update_fields=fields)
        _rederive(stored, changes, new_tags, old_tags)
        if stored.session_id is not None:
            record_session_activity(session_ids=[stored.session_id], now=now)
        if actor is not None:
            _audit(stored, actor, changes, new_tags, old_tags, before_importance)
    return stored


def _clean_changes(
    content: str,
    memory_type: str,
    importance: float,
    metadata: dict[str, Any],
    tags: list[str],
    *,
    embedder: Embedder | None,
    now: datetime,
) -> tuple[dict[str, Any], list[str] | None, Embedder | None]:
    """The fields given, checked in order (the error names the first that fails), and new
    content embedded: the changes to write, the new user tags (None: kept as they are) and
    the embedder of the new content (None: no new content)."""
    changes: dict[str, Any] = {}
    if memory_type is not _UNSET:
        changes["memory_type"] = clean_choice(
            memory_type, field="memory_type", choices=MemoryType.values
        )
    if importance is not _UNSET:
        value = clean_unit_interval(importance, field="importance")
        # An explicit importance restarts decay from the new value.
        changes.update(importance=value, decay_base=value, decay_from=now)
    if metadata is not _UNSET:
        changes["metadata"] = clean_metadata(metadata)
    new_tags = clean_tags(tags) if tags is not _UNSET else None
    model: Embedder | None = None
    if content is not _UNSET:
        text = clean_text(content, field="content", max_chars=CONTENT_MAX_CHARS)
        model = embedder or get_embedder()
        changes.update(
            content=text, embedding=model.embed_one(text), embedding_model=model.model_id
        )
    return changes, new_tags, model


def _resize(
    stored: Memory, before: Usage, tags: list[str], quota_warnings: list[QuotaWarning] | None
) -> list[str]:
    """The edited memory measured anew, with these user ``tags``, and checked against the
    quotas by how it changed from ``before``; its sizes set. The fields they take."""
    size = memory_size_of(stored, tags)
    warnings = check_quotas(
        agent=stored.agent, adding=size - before, existing=True, memory_id=stored.pk
    )
    if quota_warnings is not None:
        quota_warnings.extend(warnings)
    stored.stored_bytes = size.storage_bytes
    stored.metadata_bytes = size.metadata_bytes
    return ["stored_bytes", "metadata_bytes"]


def _rederive(
    stored: Memory, changes: dict[str, Any], new_tags: list[str] | None, old_tags: list[str]
) -> None:
    """What the edited memory derives from its text and tags, written anew when they
    changed: its tag rows (with the entity tags of its text), its mentions, and the vector
    cache's version."""
    if new_tags is not None or "content" in changes:
        keep = new_tags if new_tags is not None else old_tags
        policy = get_memory_policy(stored.agent)
        entities = allowed_entities(stored.content, policy)
        MemoryTag.objects.filter(memory=stored).delete()
        MemoryTag.objects.bulk_create(tag_rows(stored, keep, entities))
        if "content" in changes:
            _remention(stored, entities, policy)
    if "content" in changes:
        bump_memory_version(stored.agent)


def _remention(memory: Memory, entities: list[Entity], policy: MemoryPolicy) -> None:
    """New text, new mentions: the old ones leave their entities' counts; edges stay."""
    release_mentions(agent=memory.agent, memory_ids=[memory.pk])
    mentions = memory_mentions(found=entities, speaker=memory.speaker, policy=policy)
    if graph_on_store():
        add_mentions(agent=memory.agent, found=[(memory, mentions)])


def _audit(
    stored: Memory,
    actor: str,
    changes: dict[str, Any],
    new_tags: list[str] | None,
    old_tags: list[str],
    before_importance: float,
) -> None:
    """The edit's ``memory.update`` event: the fields given, importance before and after,
    how many tags came and went; never the content or the tags themselves."""
    derived = {"decay_base", "decay_from", "embedding", "embedding_model"}
    given = sorted({*changes} - derived) + (["tags"] if new_tags is not None else [])
    details: dict[str, Any] = {"fields": given}
    if "importance" in changes:
        details["importance"] = {"from": before_importance, "to": stored.importance}
    if new_tags is not None:
        details["tags"] = {
            "added": len(set(new_tags) - set(old_tags)),
            "removed": len(set(old_tags) - set(new_tags)),
        }
    record_event(
        workspace_id=stored.agent.workspace_id,
        agent=stored.agent,
        actor=actor,
        action=AuditAction.MEMORY_UPDATE,
        target_type="memory",
        target_id=str(stored.pk),
        details=details,
    )
