"""The exact dedup: an agent's true duplicates (the same words, entity tags and session)
merged into one copy each (memory.services.merging)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from memory.exceptions import TooManyCandidates
from memory.maintenance.merge_candidates import duplicate_key, merge_scope
from memory.models import Memory, MemoryType
from memory.services.merging import lock_merge, merge_into
from memory.services.storing import memory_tags
from tenancy.models import Agent
from tenancy.validation import clean_choice

DEDUP_MAX_CANDIDATES = 5_000


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
        key = (
            merge_scope(memory.session_id, memory.user_ref),
            duplicate_key(memory.content, memory_tags(memory)),
        )
        groups.setdefault(key, []).append(memory)
    found = [sorted(g, key=_keep_first) for g in groups.values() if len(g) > 1]
    return sorted(found, key=lambda g: g[0].pk)


def deduplicate_memories(
    *,
    agent: Agent,
    actor: str,
    memory_type: str | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DedupReport:
    """Merge the agent's true duplicates: the same words in the same order (case,
    punctuation and spacing aside), the same entity tags, the same session (or none) and the
    same user (or none: shared; merge_scope). Each group keeps its most important copy
    (then the oldest), which absorbs the others (memory.services.merging).
    At most DEDUP_MAX_CANDIDATES live memories (after the ``memory_type`` filter) are
    compared; more is refused rather than half done. ``dry_run`` reports the groups and
    writes nothing. ``progress(done, total)`` is told of each group merged (the CLI's bar).
    """
    if memory_type is not None:
        memory_type = clean_choice(memory_type, field="memory_type", choices=MemoryType.values)
    now = timezone.now()
    with transaction.atomic():
        if not dry_run:
            lock_merge(agent)
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
            for done, (kept, *others) in enumerate(groups, start=1):
                merge_into(kept, others, actor=actor, reason="dedup", now=now)
                if progress is not None:
                    progress(done, len(groups))
    return DedupReport(
        agent_id=agent.agent_id,
        candidates=count,
        dry_run=dry_run,
        groups=[DuplicateGroup(kept=g[0].pk, merged=[m.pk for m in g[1:]]) for g in groups],
    )
