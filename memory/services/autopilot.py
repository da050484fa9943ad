"""The AutoPilot passes: merge each agent's near duplicates, and consolidate its clusters of
low-importance memories, through the one merge (memory.services.merging). Which memories
qualify is memory.maintenance.merge_candidates."""

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from dewee.errors import DeweeError
from memory.exceptions import QuotaExceeded
from memory.maintenance.merge_candidates import (
    AUTOPILOT_CLUSTER_MIN,
    AUTOPILOT_LOW_IMPORTANCE,
    TagCluster,
    low_importance_clusters,
    merge_user,
    retention_score,
    same_scope,
    states_other_details,
)
from memory.maintenance.near_duplicates import near_duplicate_pairs
from memory.models import Memory, MemoryType
from memory.services.merging import lock_memories, merge_into, merge_into_new
from memory.services.passes import PassResult
from memory.services.storing import user_tags
from memory.sessions.summaries import extractive_summary
from tenancy.models import Agent
from tenancy.validation import CONTENT_MAX_CHARS

logger = logging.getLogger(__name__)

AUTOPILOT_ACTOR = "autopilot"


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
    session, or both without one, and of the same user, or both shared (merge_scope): of
    each pair the memory with the higher retention score absorbs the other through the same
    merge as the exact dedup. Pairs that state other numbers or entities stay apart (counted
    as ``kept_apart``). A memory is merged at most once per pass; each merge is its own
    transaction, and a pair that changed or vanished meanwhile is skipped, as is one whose
    merge would go over a hard quota (counted as ``skipped``)."""
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
            try:
                with transaction.atomic():
                    pair = lock_memories(agent, [first, second])
                    # Gone, edited into other details or out of its session, since the pairs
                    # were found.
                    if (
                        len(pair) < 2
                        or not same_scope(*pair.values())
                        or states_other_details(*pair.values())
                    ):
                        continue
                    kept, absorbed = sorted(pair.values(), key=lambda m: _retention(m, now))[::-1]
                    merge_into(
                        kept, [absorbed], actor=AUTOPILOT_ACTOR, reason="autopilot_dedup", now=now
                    )
            except QuotaExceeded as exc:
                # The kept copy grows by the absorbed text it keeps: over a hard quota the
                # pair stays apart (nothing was written) and the other pairs go ahead.
                logger.warning("autopilot dedup of %s and %s skipped: %s", first, second, exc)
                result.add(agent.workspace_id, skipped=1)
                continue
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
        locked = lock_memories(agent, cluster.memory_ids, for_update=not dry_run)
        members = _fitting(
            [
                m
                for m in locked.values()
                if m.importance < AUTOPILOT_LOW_IMPORTANCE
                and not m.is_expired(now)
                and set(cluster.tags) <= set(user_tags(m))
                # Its user may have changed since the cluster was found.
                and merge_user(m.user_ref) == cluster.user_ref
            ]
        )
        if len(members) < AUTOPILOT_CLUSTER_MIN:
            return 0
        if not dry_run:
            merge_into_new(
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
    AUTOPILOT_LOW_IMPORTANCE) of one user (or all shared) that share a pair of user tags
    into one semantic memory (see memory.maintenance.merge_candidates.tag_clusters for how
    clusters are chosen). Each cluster is its own transaction and is re-checked under lock;
    members whose joined texts would not fit one memory are left for a later pass."""
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
