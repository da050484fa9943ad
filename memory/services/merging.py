"""The one merge of memories, and the manual consolidation that uses it.

Every merge (a consolidation here, the exact dedup of memory.services.dedup, the AutoPilot
passes of memory.services.autopilot) goes through :func:`merge_into`: the surviving memory (a
new one for a consolidation, the kept copy for a dedup) takes every source reference, user
tag, access and the highest importance of what it absorbs, keeps the absorbed texts in
``metadata["merged_from"]``, and inherits their fact provenance before they are deleted, so no
fact is erased by a merge. Every other ``memory:<id>`` reference to an absorbed memory (a
session summary's source_refs, a fact source's reference) is repointed to the survivor, so
none is left dangling. Dedup, exact or AutoPilot, never merges across sessions
(memory.maintenance.merge_candidates.merge_scope).

No merge mixes users: every memory of a merge belongs to one user (``user_ref``) or all are
shared (no user); anything else is MixedUsers (``mixed_users``), before anything is written.
A merged memory holds its originals' texts, so a merge across users would show one user's
words to another.

A merge is sized like any write (memory.quotas): the survivor's size is measured anew
(it grows by the absorbed texts it keeps), and the net growth (the survivor's new size less
what it and the absorbed memories measured before) is checked against the hard quotas. A
merge that would take the agent or workspace over one is QuotaExceeded and writes nothing;
one that frees space or keeps usage level never is.

The client-input limits on tags, source references and metadata (tenancy.validation) are not
applied to what a merge accumulates: those values were each valid when stored, and dropping
any of them would lose provenance. Content is the exception: it is embedded, so a
consolidated text must fit CONTENT_MAX_CHARS like any other.
"""

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from dewee.errors import InvalidInput, TooLarge
from memory.embeddings.engine import Embedder
from memory.exceptions import MemoryNotFound, MixedUsers
from memory.maintenance.merge_candidates import merge_user
from memory.models import Memory, MemoryFeedback, MemoryTag, MemoryType
from memory.quotas import Usage, check_quotas, lock_quotas, release_quota_usage
from memory.services.entities import release_mentions
from memory.services.erasure import hand_citations_to_survivor
from memory.services.graph import lock_agent_graph
from memory.services.memory_input import MemoryInput
from memory.services.storing import memory_size_of, memory_tags, store_memories, user_tags
from memory.services.vectors import bump_memory_version
from memory.signals import Learning
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction
from tenancy.validation import CONTENT_MAX_CHARS, clean_choice

MERGE_MIN, MERGE_MAX = 2, 100


def _absorbed_texts(memory: Memory) -> list[dict[str, Any]]:
    """What a merge keeps of an absorbed memory: its text, and the texts it had absorbed."""
    entry: dict[str, Any] = {
        "id": memory.pk,
        "content": memory.content,
        "created_at": memory.created_at.isoformat(),
    }
    earlier = memory.metadata.get("merged_from") if isinstance(memory.metadata, dict) else None
    return [entry, *(earlier if isinstance(earlier, list) else [])]


def lock_merge(agent: Agent) -> None:
    """Before a merge locks its memories: the agent's and workspace's quota rows (which a
    merge checks, and whose counts its deletions update, as a store does first of all),
    then the agent's graph lock
    (memory.services.graph.lock_agent_graph), so that a merge and a graph build never
    deadlock over the memories, their edges and entities."""
    lock_quotas(agent)
    lock_agent_graph(agent)


def lock_memories(
    agent: Agent, ids: Sequence[int], *, for_update: bool = True
) -> dict[int, Memory]:
    """The agent's memories among ``ids``, with their tags, locked until the transaction
    ends (PostgreSQL; SQLite serialises writers anyway) unless only read. A merge's first
    locks, in the one order every merge, store and graph build of the agent follows: the
    quota rows (lock_merge), the agent's graph lock, then the memories by id."""
    rows = (
        Memory.objects.filter(agent=agent, pk__in=list(ids))
        .prefetch_related("tag_rows")
        .order_by("pk")
    )
    if for_update:
        lock_merge(agent)
        rows = rows.select_for_update()
    memories = {m.pk: m for m in rows}
    for memory in memories.values():
        memory.agent = agent
    return memories


def ensure_one_user(memories: Sequence[Memory]) -> str | None:
    """The one user of ``memories`` (None: all shared); MixedUsers when they are not all of
    one user, or mix a user's memories with shared ones."""
    users = {merge_user(m.user_ref) for m in memories}
    if len(users) > 1:
        named = sorted(u or "(shared)" for u in users)
        raise MixedUsers(
            "These memories belong to different users: "
            f"{', '.join(named)}; only memories of one user (or only shared ones) merge",
            details={"memory_ids": sorted(m.pk for m in memories)},
        )
    return users.pop() if users else None


# What a merge changes of the survivor.
_MERGED_FIELDS = (
    "stored_bytes",
    "metadata_bytes",
    "source_refs",
    "metadata",
    "importance",
    "decay_base",
    "decay_from",
    "access_count",
    "last_accessed_at",
    "created_at",
    "expires_at",
    "ttl_seconds",
    "updated_at",
)


def merge_into(
    target: Memory,
    absorbed: Sequence[Memory],
    *,
    actor: str,
    reason: str,
    now: datetime,
    fresh: bool = False,
) -> Memory:
    """Fold ``absorbed`` into ``target`` and delete them. ``fresh``: ``target`` was just
    made from them, so its own expiry does not count. Runs in the caller's transaction."""
    ensure_one_user([target, *absorbed])
    ids = [m.pk for m in absorbed]
    # What the merge's memories measure now (each as stored: the target counts even when
    # ``fresh``, since it is stored already).
    before = sum((memory_size_of(m, user_tags(m)) for m in [target, *absorbed]), Usage())
    _fold(target, absorbed, now=now, fresh=fresh)
    have = set(memory_tags(target))
    gained = [t for memory in absorbed for t in user_tags(memory) if t not in have]
    gained = list(dict.fromkeys(gained))
    after = memory_size_of(target, [*user_tags(target), *gained])
    # Before anything is written: a refusal leaves the caller's transaction clean.
    check_quotas(agent=target.agent, adding=after - before, existing=True)
    target.stored_bytes, target.metadata_bytes = after.storage_bytes, after.metadata_bytes
    target.save(update_fields=_MERGED_FIELDS)
    MemoryTag.objects.bulk_create(
        [MemoryTag(memory=target, agent_id=target.agent_id, name=t) for t in gained]
    )
    if gained and hasattr(target, "_prefetched_objects_cache"):
        target._prefetched_objects_cache.pop("tag_rows", None)
    _retire(target, ids)
    record_event(
        workspace_id=target.agent.workspace_id,
        agent=target.agent,
        actor=actor,
        action=AuditAction.MEMORY_MERGE,
        target_type="memory",
        target_id=str(target.pk),
        details={"reason": reason, "merged": ids, "into": target.pk},
    )
    return target


def _fold(target: Memory, absorbed: Sequence[Memory], *, now: datetime, fresh: bool) -> None:
    """What the survivor takes of ``absorbed``, set on ``target`` (not saved): their source
    references and texts, the highest importance, their accesses, the earliest creation and
    the longest life."""
    group = [*([] if fresh else [target]), *absorbed]
    # As stored: an earlier merge of the same run may have repointed them since they were
    # loaded.
    stored_refs = dict(
        Memory.objects.filter(pk__in=[target.pk, *(m.pk for m in absorbed)]).values_list(
            "pk", "source_refs"
        )
    )
    refs = list(stored_refs.get(target.pk, target.source_refs))
    for memory in absorbed:
        refs += [*stored_refs.get(memory.pk, memory.source_refs), f"memory:{memory.pk}"]
    # Its own ``memory:<id>`` refs are the record of what it absorbed; it never cites itself.
    itself = f"memory:{target.pk}"
    target.source_refs = [ref for ref in dict.fromkeys(refs) if ref != itself]
    merged_from = list(target.metadata.get("merged_from", []))
    for memory in absorbed:
        merged_from += _absorbed_texts(memory)
    target.metadata = {**target.metadata, "merged_from": merged_from}
    importance = max(m.importance for m in [target, *absorbed])
    if fresh or importance != target.importance:
        # A merge sets importance explicitly: decay restarts from the new value (the
        # originals' importance had already decayed to it).
        target.importance, target.decay_base, target.decay_from = importance, importance, now
    target.access_count += sum(m.access_count for m in absorbed)
    accessed = [m.last_accessed_at for m in [target, *absorbed] if m.last_accessed_at]
    target.last_accessed_at = max(accessed) if accessed else None
    target.created_at = min(m.created_at for m in [target, *absorbed])
    # The merged memory lives as long as the longest-lived of what it holds.
    if all(m.expires_at is not None for m in group):
        target.expires_at = max(m.expires_at for m in group if m.expires_at)
        target.ttl_seconds = max((m.ttl_seconds or 0) for m in group) or None
    else:
        target.expires_at, target.ttl_seconds = None, None
    target.updated_at = now


def _retire(target: Memory, ids: list[int]) -> None:
    """The absorbed memories ``ids`` handed over to the survivor, then deleted: what cites
    them cites it, their feedback is its, and they leave their entities' and quotas' counts."""
    hand_citations_to_survivor(agent=target.agent, from_ids=ids, to_id=target.pk)
    _repoint_citations(target.agent, from_ids=ids, to_id=target.pk)
    # Votes and flags on a copy are votes on what the survivor says: its history keeps them.
    MemoryFeedback.objects.filter(memory_id__in=ids).update(memory_id=target.pk)
    # The absorbed memories' edges go by cascade; their entities' counts are kept right.
    release_mentions(agent=target.agent, memory_ids=ids)
    release_quota_usage(agent=target.agent, model=Memory, ids=ids)
    Memory.objects.filter(pk__in=ids).delete()
    bump_memory_version(target.agent)


def _repoint_citations(agent: Agent, *, from_ids: list[int], to_id: int) -> int:
    """The agent's other memories that cite an absorbed memory (``memory:<id>`` in their
    source_refs: a session's summary cites its turns, a merged memory what it absorbed)
    cite the survivor instead; how many changed. source_refs is a JSON list, which no
    lookup searches on both databases: its text is searched for the quoted reference, and
    the match is confirmed in Python. Their ``updated_at`` stays: what they say is
    unchanged (and the next AutoPilot dedup need not compare them again)."""
    cited = {f"memory:{pk}" for pk in from_ids}
    survivor = f"memory:{to_id}"
    mentions = Q()
    for ref in cited:
        mentions |= Q(refs_text__contains=json.dumps(ref))
    citing = (
        Memory.objects.filter(agent=agent)
        .exclude(pk__in=[to_id, *from_ids])
        .annotate(refs_text=Cast("source_refs", output_field=TextField()))
        .filter(mentions)
        .select_for_update()
        .only("pk", "source_refs")
    )
    changed = 0
    for memory in citing:
        if not cited.intersection(memory.source_refs):
            continue
        refs = [survivor if ref in cited else ref for ref in memory.source_refs]
        memory.source_refs = list(dict.fromkeys(refs))
        memory.save(update_fields=["source_refs"])
        changed += 1
    return changed


def _clean_ids(memory_ids: object) -> list[int]:
    if not isinstance(memory_ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in memory_ids
    ):
        raise InvalidInput("memory_ids", "must be a list of memory ids")
    ids = list(dict.fromkeys(memory_ids))
    if len(ids) < MERGE_MIN:
        raise InvalidInput("memory_ids", f"give at least {MERGE_MIN} distinct memory ids")
    if len(ids) > MERGE_MAX:
        raise TooLarge("memory_ids", f"has {len(ids)} ids; the limit is {MERGE_MAX}")
    return ids


def merge_into_new(
    agent: Agent,
    originals: list[Memory],
    *,
    actor: str,
    reason: str,
    memory_type: str | None,
    content: str | None,
    embedder: Embedder | None,
) -> Memory:
    """Store one new memory made of ``originals`` (``content``, else their texts joined,
    oldest first; ``memory_type``, else their common type, else semantic) and merge them
    into it; a consolidation, by hand or by the AutoPilot. Runs in the caller's transaction,
    with the originals locked."""
    originals = sorted(originals, key=lambda m: (m.created_at, m.pk))
    user = ensure_one_user(originals)
    types = {m.memory_type for m in originals}
    if memory_type is None:
        memory_type = types.pop() if len(types) == 1 else MemoryType.SEMANTIC
    now = timezone.now()
    (merged,) = store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content=content if content is not None else "\n".join(m.content for m in originals),
                memory_type=memory_type,
                importance=max(m.importance for m in originals),
                created_at=min(m.created_at for m in originals),
                # About the originals' user (they have one, or are all shared).
                user=user,
            )
        ],
        embedder=embedder,
        # The facts learned from the originals move to it (hand_citations_to_survivor).
        learning=Learning.OFF,
        # Counted, not refused here: what counts against the quotas is the merge's net
        # growth once the originals are gone, which merge_into checks.
        enforce_quotas=False,
    )
    merged.agent = agent
    # Set here rather than through the store path: a merge is not activity in the session.
    sessions = {m.session_id for m in originals}
    session_id = sessions.pop() if len(sessions) == 1 else None
    if session_id is not None:
        Memory.objects.filter(pk=merged.pk).update(session_id=session_id)
        merged.session_id = session_id
    return merge_into(merged, originals, actor=actor, reason=reason, now=now, fresh=True)


def consolidate_memories(
    *,
    agent: Agent,
    memory_ids: list[int],
    actor: str,
    memory_type: str | None = None,
    content: str | None = None,
    embedder: Embedder | None = None,
) -> Memory:
    """Merge 2..100 of the agent's memories into one new memory, all or nothing.

    The new memory holds ``content`` (default: the originals' texts, oldest first, one per
    line), every user tag and source reference of the originals plus ``memory:<id>`` for
    each, their highest importance, earliest creation, summed accesses and latest access,
    the common session (if they share one), and ``memory_type`` (default: their common type,
    else semantic). It is stored through the store path (embedded, keyword-indexed, entity
    tags recomputed). Facts learned from an original now cite the new memory. An id that is
    not one of this agent's memories is a 404 and nothing changes. Memories of different
    users (or a user's with shared ones) are MixedUsers (400 ``mixed_users``); a merge that
    would take the agent or workspace over a hard quota is QuotaExceeded (413)."""
    ids = _clean_ids(memory_ids)
    if memory_type is not None:
        memory_type = clean_choice(memory_type, field="memory_type", choices=MemoryType.values)
    with transaction.atomic():
        originals = lock_memories(agent, ids)
        now = timezone.now()
        # An expired memory waits only for the expiry pass: it is not there to merge.
        missing = [i for i in ids if i not in originals or originals[i].is_expired(now)]
        if missing:
            raise MemoryNotFound(f"Memory {missing[0]} not found for this agent")
        ensure_one_user(list(originals.values()))
        if content is None and sum(len(m.content) + 1 for m in originals.values()) > (
            CONTENT_MAX_CHARS + 1
        ):
            raise TooLarge(
                "memory_ids",
                f"these memories' texts joined exceed {CONTENT_MAX_CHARS} characters; "
                "give the merged memory's content",
            )
        return merge_into_new(
            agent,
            list(originals.values()),
            actor=actor,
            reason="consolidate",
            memory_type=memory_type,
            content=content,
            embedder=embedder,
        )
