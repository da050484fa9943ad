"""Merging memories: manual consolidation, exact dedup, and the two AutoPilot passes.

Every merge goes through :func:`_merge_into`: the surviving memory (a new one for a
consolidation, the kept copy for a dedup) takes every source reference, user tag, access and
the highest importance of what it absorbs, keeps the absorbed texts in ``metadata
["merged_from"]``, and inherits their fact provenance before they are deleted, so no fact is
erased by a merge. Every other ``memory:<id>`` reference to an absorbed memory (a session
summary's source_refs, a fact source's reference) is repointed to the survivor, so none is
left dangling. Dedup, exact or AutoPilot, never merges across sessions
(memory.merge_candidates.merge_scope).

The client-input limits on tags, source references and metadata (memory.validation) are not
applied to what a merge accumulates: those values were each valid when stored, and dropping
any of them would lose provenance. Content is the exception: it is embedded, so a
consolidated text must fit CONTENT_MAX_CHARS like any other.
"""

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from dewee.errors import DeweeError, InvalidInput, TooLarge
from memory.embeddings.engine import Embedder
from memory.exceptions import MemoryNotFound, TooManyCandidates
from memory.merge_candidates import (
    AUTOPILOT_CLUSTER_MIN,
    AUTOPILOT_LOW_IMPORTANCE,
    TagCluster,
    duplicate_key,
    low_importance_clusters,
    merge_scope,
    near_duplicate_pairs,
    retention_score,
    same_scope,
    states_other_details,
)
from memory.models import Memory, MemoryFeedback, MemoryTag, MemoryType
from memory.services.memories import (
    MemoryInput,
    bump_memory_version,
    memory_tags,
    store_memories,
    user_tags,
)
from memory.services.passes import PassResult
from memory.summaries import extractive_summary
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction
from tenancy.validation import CONTENT_MAX_CHARS, clean_choice

logger = logging.getLogger(__name__)

MERGE_MIN, MERGE_MAX = 2, 100
DEDUP_MAX_CANDIDATES = 5_000
AUTOPILOT_ACTOR = "autopilot"


# --- the one merge ---


def _absorbed_texts(memory: Memory) -> list[dict[str, Any]]:
    """What a merge keeps of an absorbed memory: its text, and the texts it had absorbed."""
    entry: dict[str, Any] = {
        "id": memory.pk,
        "content": memory.content,
        "created_at": memory.created_at.isoformat(),
    }
    earlier = memory.metadata.get("merged_from") if isinstance(memory.metadata, dict) else None
    return [entry, *(earlier if isinstance(earlier, list) else [])]


def _lock(agent: Agent, ids: Sequence[int], *, for_update: bool = True) -> dict[int, Memory]:
    """The agent's memories among ``ids``, with their tags, locked until the transaction
    ends (PostgreSQL; SQLite serialises writers anyway) unless only read."""
    rows = Memory.objects.filter(agent=agent, pk__in=list(ids)).prefetch_related("tag_rows")
    if for_update:
        rows = rows.select_for_update()
    memories = {m.pk: m for m in rows}
    for memory in memories.values():
        memory.agent = agent
    return memories


def _merge_into(
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
    group = [*([] if fresh else [target]), *absorbed]
    ids = [m.pk for m in absorbed]
    # As stored: an earlier merge of the same run may have repointed them since they were
    # loaded.
    stored_refs = dict(
        Memory.objects.filter(pk__in=[target.pk, *ids]).values_list("pk", "source_refs")
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
    target.save(
        update_fields=[
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
        ]
    )
    have = set(memory_tags(target))
    gained = [t for memory in absorbed for t in user_tags(memory) if t not in have]
    MemoryTag.objects.bulk_create(
        [MemoryTag(memory=target, agent_id=target.agent_id, name=t) for t in dict.fromkeys(gained)]
    )
    if gained and hasattr(target, "_prefetched_objects_cache"):
        target._prefetched_objects_cache.pop("tag_rows", None)
    _move_fact_sources(from_ids=ids, to_id=target.pk)
    _repoint_citations(target.agent, from_ids=ids, to_id=target.pk)
    # Votes and flags on a copy are votes on what the survivor says: its history keeps them.
    MemoryFeedback.objects.filter(memory_id__in=ids).update(memory_id=target.pk)
    Memory.objects.filter(pk__in=ids).delete()
    bump_memory_version(target.agent)
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


def _move_fact_sources(*, from_ids: list[int], to_id: int) -> None:
    """Before the absorbed memories go: their facts' provenance points at the survivor,
    so deleting them erases no fact (deletion would otherwise erase facts learned only
    from them)."""
    from facts.models import FactSource

    sources = FactSource.objects.filter(memory_id__in=from_ids)
    # The reference a source was given by default names the memory too.
    sources.filter(reference__in=[f"memory:{pk}" for pk in from_ids]).update(
        reference=f"memory:{to_id}"
    )
    sources.update(memory_id=to_id)


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


# --- manual consolidation ---


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


def _consolidate(
    agent: Agent,
    originals: list[Memory],
    *,
    actor: str,
    reason: str,
    memory_type: str | None,
    content: str | None,
    embedder: Embedder | None,
) -> Memory:
    originals = sorted(originals, key=lambda m: (m.created_at, m.pk))
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
            )
        ],
        embedder=embedder,
    )
    merged.agent = agent
    # Set here rather than through the store path: a merge is not activity in the session.
    sessions = {m.session_id for m in originals}
    session_id = sessions.pop() if len(sessions) == 1 else None
    if session_id is not None:
        Memory.objects.filter(pk=merged.pk).update(session_id=session_id)
        merged.session_id = session_id
    return _merge_into(merged, originals, actor=actor, reason=reason, now=now, fresh=True)


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
    not one of this agent's memories is a 404 and nothing changes."""
    ids = _clean_ids(memory_ids)
    if memory_type is not None:
        memory_type = clean_choice(memory_type, field="memory_type", choices=MemoryType.values)
    with transaction.atomic():
        originals = _lock(agent, ids)
        now = timezone.now()
        # An expired memory waits only for the expiry pass: it is not there to merge.
        missing = [i for i in ids if i not in originals or _expired(originals[i], now)]
        if missing:
            raise MemoryNotFound(f"Memory {missing[0]} not found for this agent")
        if content is None and sum(len(m.content) + 1 for m in originals.values()) > (
            CONTENT_MAX_CHARS + 1
        ):
            raise TooLarge(
                "memory_ids",
                f"these memories' texts joined exceed {CONTENT_MAX_CHARS} characters; "
                "give the merged memory's content",
            )
        return _consolidate(
            agent,
            list(originals.values()),
            actor=actor,
            reason="consolidate",
            memory_type=memory_type,
            content=content,
            embedder=embedder,
        )


def _expired(memory: Memory, now: datetime) -> bool:
    return memory.expires_at is not None and memory.expires_at <= now


# --- exact dedup ---


@dataclass(frozen=True)
class DuplicateGroup:
    kept: int
    merged: list[int]


@dataclass(frozen=True)
class DedupReport:
    agent_id: str
    candidates: int
    dry_run: bool
    groups: list[DuplicateGroup] = field(default_factory=list)

    @property
    def merged(self) -> int:
        return sum(len(g.merged) for g in self.groups)

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "candidates": self.candidates,
            "dry_run": self.dry_run,
            "merged": self.merged,
            "groups": [{"kept": g.kept, "merged": g.merged} for g in self.groups],
        }


def _keep_first(memory: Memory) -> tuple[float, datetime, int]:
    """Dedup keeps the most important copy, then the oldest."""
    return (-memory.importance, memory.created_at, memory.pk)


def _duplicate_groups(memories: list[Memory]) -> list[list[Memory]]:
    groups: dict[object, list[Memory]] = {}
    for memory in memories:
        key = (merge_scope(memory.session_id), duplicate_key(memory.content, memory_tags(memory)))
        groups.setdefault(key, []).append(memory)
    found = [sorted(g, key=_keep_first) for g in groups.values() if len(g) > 1]
    return sorted(found, key=lambda g: g[0].pk)


def deduplicate_memories(
    *, agent: Agent, actor: str, memory_type: str | None = None, dry_run: bool = False
) -> DedupReport:
    """Merge the agent's true duplicates: the same words in the same order (case,
    punctuation and spacing aside), the same entity tags and the same session (or none:
    merge_scope). Each group keeps its most important copy (then the oldest), which absorbs
    the others (see the module docstring).
    At most DEDUP_MAX_CANDIDATES live memories (after the ``memory_type`` filter) are
    compared; more is refused rather than half done. ``dry_run`` reports the groups and
    writes nothing."""
    if memory_type is not None:
        memory_type = clean_choice(memory_type, field="memory_type", choices=MemoryType.values)
    now = timezone.now()
    with transaction.atomic():
        candidates = Memory.objects.filter(agent=agent).live(now)
        if memory_type is not None:
            candidates = candidates.filter(memory_type=memory_type)
        count = candidates.count()
        if count > DEDUP_MAX_CANDIDATES:
            raise TooManyCandidates(
                f"Agent {agent.agent_id!r} has {count} candidate memories; dedup compares at "
                f"most {DEDUP_MAX_CANDIDATES} at once: narrow it with memory_type",
                details={"candidates": count, "limit": DEDUP_MAX_CANDIDATES},
            )
        rows = candidates.select_for_update() if not dry_run else candidates
        memories = list(rows.prefetch_related("tag_rows").order_by("id"))
        for memory in memories:
            memory.agent = agent
        groups = _duplicate_groups(memories)
        if not dry_run:
            for kept, *others in groups:
                _merge_into(kept, others, actor=actor, reason="dedup", now=now)
    return DedupReport(
        agent_id=agent.agent_id,
        candidates=count,
        dry_run=dry_run,
        groups=[DuplicateGroup(kept=g[0].pk, merged=[m.pk for m in g[1:]]) for g in groups],
    )


# --- AutoPilot ---


def _agents(agents: QuerySet[Agent] | None) -> list[Agent]:
    # A list, not a cursor: the passes write between agents.
    return list((agents if agents is not None else Agent.objects.all()).order_by("pk"))


def _retention(memory: Memory, now: datetime) -> tuple[float, float, int]:
    score = retention_score(
        importance=memory.importance,
        access_count=memory.access_count,
        last_accessed_at=memory.last_accessed_at,
        created_at=memory.created_at,
        now=now,
    )
    # Ties keep the older memory.
    return (score, -memory.created_at.timestamp(), -memory.pk)


def autopilot_dedup_pass(
    *, agents: QuerySet[Agent] | None = None, now: datetime | None = None, dry_run: bool = False
) -> PassResult:
    """Merge each agent's near duplicates (cosine >= AUTOPILOT_DEDUP_SIMILARITY) of the same
    session, or both without one (merge_scope): of each pair the memory with the higher
    retention score absorbs the other through the same merge as the exact dedup. Pairs that
    state other numbers or entities stay apart (counted as ``kept_apart``). A memory is
    merged at most once per pass; each merge is its own transaction, and a pair that changed
    or vanished meanwhile is skipped."""
    now = now or timezone.now()
    result = PassResult()
    for agent in _agents(agents):
        if not agent.embedding_model:
            continue
        pairs, kept_apart = near_duplicate_pairs(agent, now=now)
        if kept_apart:
            result.add(agent.workspace_id, kept_apart=kept_apart)
        for score, first, second in pairs:
            if dry_run:
                result.add(agent.workspace_id, touched=2, merged=1)
                continue
            with transaction.atomic():
                pair = _lock(agent, [first, second])
                # Gone, edited into other details or out of its session, since the pairs
                # were found.
                if (
                    len(pair) < 2
                    or not same_scope(*pair.values())
                    or states_other_details(*pair.values())
                ):
                    continue
                kept, absorbed = sorted(pair.values(), key=lambda m: _retention(m, now))[::-1]
                _merge_into(
                    kept, [absorbed], actor=AUTOPILOT_ACTOR, reason="autopilot_dedup", now=now
                )
            logger.info(
                "autopilot dedup: memory %s absorbed %s (%.3f)", kept.pk, absorbed.pk, score
            )
            result.add(agent.workspace_id, touched=2, merged=1)
    return result


def _fitting(members: list[Memory]) -> list[Memory]:
    """The oldest members whose texts, joined, fit one memory."""
    kept, size = [], -1
    for memory in sorted(members, key=lambda m: (m.created_at, m.pk)):
        size += len(memory.content) + 1
        if size > CONTENT_MAX_CHARS:
            break
        kept.append(memory)
    return kept


def _summary(originals: list[Memory]) -> str | None:
    """A short extractive summary of the originals; None (their texts are joined instead)
    when there is nothing to extract."""
    return extractive_summary([m.content for m in originals]).strip() or None


def _consolidate_cluster(agent: Agent, cluster: TagCluster, *, now: datetime, dry_run: bool) -> int:
    """Consolidate one cluster, re-checked under lock; how many memories it merged (or
    would merge), 0 when it no longer qualifies."""
    with transaction.atomic():
        locked = _lock(agent, cluster.memory_ids, for_update=not dry_run)
        members = _fitting(
            [
                m
                for m in locked.values()
                if m.importance < AUTOPILOT_LOW_IMPORTANCE
                and not _expired(m, now)
                and set(cluster.tags) <= set(user_tags(m))
            ]
        )
        if len(members) < AUTOPILOT_CLUSTER_MIN:
            return 0
        if not dry_run:
            _consolidate(
                agent,
                members,
                actor=AUTOPILOT_ACTOR,
                reason="autopilot_consolidate",
                memory_type=MemoryType.SEMANTIC,
                content=_summary(members),
                embedder=None,
            )
    return len(members)


def autopilot_consolidate_pass(
    *, agents: QuerySet[Agent] | None = None, now: datetime | None = None, dry_run: bool = False
) -> PassResult:
    """Consolidate each agent's clusters of >= 3 low-importance memories (all below
    AUTOPILOT_LOW_IMPORTANCE) that share a pair of user tags into one semantic memory
    (see memory.merge_candidates.tag_clusters for how clusters are chosen). Each cluster is its
    own transaction and is re-checked under lock; members whose joined texts would not fit
    one memory are left for a later pass."""
    now = now or timezone.now()
    result = PassResult()
    for agent in _agents(agents):
        for cluster in low_importance_clusters(agent, now=now):
            try:
                merged = _consolidate_cluster(agent, cluster, now=now, dry_run=dry_run)
            except DeweeError as exc:
                # E.g. the agent awaits re-embedding with the configured model: the other
                # agents' clusters still go ahead.
                logger.warning("autopilot consolidation of %s skipped: %s", agent, exc)
                result.add(agent.workspace_id, skipped=1)
                continue
            if merged:
                result.add(agent.workspace_id, touched=merged, clusters=1, merged=merged)
    return result
