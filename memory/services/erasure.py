"""Deleting memories, and what becomes of what was learned from them.

Every delete of memories (one by hand, a forget, the expiry pass) goes through
:func:`erase_memories`: it tells the apps built on memory (``memories_erasing``: the facts
learned only from those memories go with them, and facts with other evidence lose these
sources) in the same transaction. A merge deletes what it absorbed through its own path
(memory.services.merging), which first has what cites the absorbed memories cite the
survivor (``memories_absorbed``), so that a merge erases no fact.
"""

from django.db import transaction
from django.db.models import Q

from dewee.errors import InvalidInput
from memory.derived import chunks, derived_memories
from memory.exceptions import MemoryNotFound
from memory.models import Memory, MemoryEdge, Session, SessionState
from memory.quotas import lock_quotas, release_quota_usage
from memory.services.entities import release_mentions
from memory.services.graph import lock_agent_graph
from memory.services.session_end import forget_in_summaries
from memory.services.vectors import bump_memory_version
from memory.signals import memories_absorbed, memories_erasing
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction
from tenancy.validation import REASON_MAX_CHARS, clean_tags, clean_text, clean_unit_interval


@transaction.atomic
def erase_memories(
    *, agent: Agent, memory_ids: list[int], actor: str, reason: str
) -> dict[str, int]:
    """The one delete path of memories (delete, forget, expiry): delete these memories of
    ``agent`` (the caller has checked they are its own) and the facts learned only from them,
    bump the agent's memory_version, and record one audit event for the lot.

    Never fails because the graph worker links these memories meanwhile, and never makes it
    fail: first the agent's graph lock (shared: deletes run side by side, a graph build or a
    merge of the agent waits, or is waited for, whole), then the memories' rows by id, so
    the edges read next are all there will be: a build that has not committed yet links
    only the memories it then finds alive. Callers that lock memories themselves take the
    graph lock before them (the expiry pass), in that one order."""
    # The quotas' lock first, as a store takes it: what they count goes now.
    lock_quotas(agent)
    lock_agent_graph(agent, shared=True)
    list(
        Memory.objects.select_for_update()
        .filter(pk__in=memory_ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    # What was learned from them goes first, in this transaction (facts.apps listens).
    erased_with = memories_erasing.send(
        sender=Agent, agent=agent, memory_ids=memory_ids, actor=actor
    )
    facts_erased = sum(int(count or 0) for _receiver, count in erased_with)
    # Turns of ended sessions: their summaries must stop quoting and citing them.
    in_summaries = list(
        Memory.objects.filter(pk__in=memory_ids, session__state=SessionState.ENDED).values_list(
            "pk", "session_id", "content"
        )
    )
    # Their entities' counts are kept right here. Their edges are deleted by a statement of
    # their own, after the rows' lock, rather than by the cascade's read of them.
    release_mentions(agent=agent, memory_ids=memory_ids)
    MemoryEdge.objects.filter(Q(source_id__in=memory_ids) | Q(target_id__in=memory_ids)).delete()
    release_quota_usage(agent=agent, model=Memory, ids=memory_ids)
    Memory.objects.filter(pk__in=memory_ids).delete()
    bump_memory_version(agent)
    if in_summaries:
        emptied = forget_in_summaries(erased=in_summaries)
        if emptied:
            erase_memories(agent=agent, memory_ids=emptied, actor=actor, reason=reason)
    counts = {"memories": len(memory_ids), "facts": facts_erased}
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.MEMORY_DELETE,
        target_type="memory",
        target_id=str(memory_ids[0]) if len(memory_ids) == 1 else "",
        details={"reason": reason, "counts": counts},
    )
    return counts


@transaction.atomic
def delete_memory(*, memory: Memory, actor: str, reason: str = "") -> dict[str, int]:
    """Delete one memory and the facts learned only from it (facts with other sources keep
    those and lose this one). ``reason`` goes into the audit event, so it obeys the same
    rule as a fact's deletion reason."""
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    return erase_memories(agent=memory.agent, memory_ids=[memory.pk], actor=actor, reason=reason)


@transaction.atomic
def forget_memories(
    *,
    agent: Agent,
    actor: str,
    ids: list[int] | None = None,
    tags: list[str] | None = None,
    below_importance: float | None = None,
) -> dict[str, int]:
    """Delete the agent's memories that match every criterion given (at least one)."""
    if ids is None and not tags and below_importance is None:
        raise InvalidInput("criteria", "give ids, tags or below_importance")
    memories = Memory.objects.filter(agent=agent)
    if ids is not None:
        if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids
        ):
            raise InvalidInput("ids", "must be a list of memory ids")
        found = set(memories.filter(pk__in=ids).values_list("pk", flat=True))
        missing = [i for i in ids if i not in found]
        if missing:
            raise MemoryNotFound(f"Memory {missing[0]} not found for this agent")
        memories = memories.filter(pk__in=ids)
    if tags:
        memories = memories.filter(tag_rows__name__in=clean_tags(tags)).distinct()
    if below_importance is not None:
        threshold = clean_unit_interval(below_importance, field="below_importance")
        memories = memories.filter(importance__lt=threshold)
    targets = list(memories.only("pk", "agent_id"))
    if not targets:
        return {"memories": 0, "facts": 0}
    return erase_memories(
        agent=agent, memory_ids=[m.pk for m in targets], actor=actor, reason="forget"
    )


def session_erasure_ids(session: Session) -> set[int]:
    """The memories deleting ``session`` erases: its own (turns and summary memory) and the
    memories made from them elsewhere (merges citing them)."""
    own = set(Memory.objects.filter(session=session).values_list("pk", flat=True))
    return derived_memories(session.agent, own, {session.pk})


@transaction.atomic
def delete_session(*, session: Session, actor: str, reason: str = "") -> dict[str, int]:
    """Delete ``session`` with its summary and metadata, and its memories through
    erase_memories (so the facts learned only from them go too). ``reason`` goes into the
    audit event, under the rule of a memory's deletion reason."""
    reason = clean_text(reason, field="reason", max_chars=REASON_MAX_CHARS, required=False)
    agent = session.agent
    lock_quotas(agent)
    counts = {"sessions": 1, "memories": 0, "facts": 0}
    for ids in chunks(session_erasure_ids(session)):
        erased = erase_memories(agent=agent, memory_ids=ids, actor=actor, reason=reason)
        counts["memories"] += erased["memories"]
        counts["facts"] += erased["facts"]
    release_quota_usage(agent=agent, model=Session, ids=[session.pk])
    Session.objects.filter(pk=session.pk).delete()
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.SESSION_DELETE,
        target_type="session",
        target_id=str(session.pk),
        details={"reason": reason, "counts": counts},
    )
    return counts


def hand_citations_to_survivor(*, agent: Agent, from_ids: list[int], to_id: int) -> None:
    """Before the absorbed memories of a merge go: what cites them (a fact's provenance)
    cites the survivor, so deleting them erases no fact (deletion would otherwise erase facts
    learned only from them). Runs in the caller's transaction (facts.apps listens)."""
    memories_absorbed.send(sender=Agent, agent=agent, from_ids=from_ids, to_id=to_id)
