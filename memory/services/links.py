"""Manual links between two memories of one agent: the graph's ``linked_by`` edges.

A link goes from ``source`` to ``target`` and records who made it. Linking a memory to
itself is refused (InvalidLink, 400); a link that already exists is refused too (LinkExists,
409), so a client learns that its write changed nothing; a memory of another agent is
MemoryNotFound (404), as every interface loads it through the access helper first and this
module checks again. Linking memories of two users (or a user's to a shared one) is
refused (MixedUsers, 400 ``mixed_users``): the graph keeps users apart
(memory.services.graph). Both writes are audited.
"""

from django.db import IntegrityError, transaction

from memory.exceptions import InvalidLink, LinkExists, LinkNotFound, MemoryNotFound, MixedUsers
from memory.models import EdgeType, Memory, MemoryEdge
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction


def _check(agent: Agent, source: Memory, target: Memory) -> None:
    for memory in (source, target):
        if memory.agent_id != agent.pk:
            raise MemoryNotFound(f"Memory {memory.pk} not found for this agent")
    if source.pk == target.pk:
        raise InvalidLink("target_id", "a memory cannot be linked to itself")


@transaction.atomic
def link_memories(*, agent: Agent, source: Memory, target: Memory, actor: str) -> MemoryEdge:
    """Link ``source`` to ``target`` (both of ``agent``); audited as memory.link."""
    _check(agent, source, target)
    if (source.user_ref or None) != (target.user_ref or None):
        raise MixedUsers(
            f"Memories {source.pk} and {target.pk} belong to different users: "
            "only memories of one user (or two shared ones) are linked",
            details={"memory_ids": sorted([source.pk, target.pk])},
        )
    try:
        with transaction.atomic():
            edge = MemoryEdge.objects.create(
                agent=agent, source=source, target=target, type=EdgeType.LINKED_BY, created_by=actor
            )
    except IntegrityError:
        raise LinkExists(f"Memory {source.pk} is already linked to memory {target.pk}") from None
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.MEMORY_LINK,
        target_type="memory",
        target_id=str(source.pk),
        details={"source": source.pk, "target": target.pk},
    )
    return edge


@transaction.atomic
def unlink_memories(*, agent: Agent, source: Memory, target: Memory, actor: str) -> None:
    """Remove the manual link from ``source`` to ``target``; audited as memory.unlink.
    Built edges are the server's and stay: only ``linked_by`` is removed."""
    _check(agent, source, target)
    deleted, _ = MemoryEdge.objects.filter(
        agent=agent, source=source, target=target, type=EdgeType.LINKED_BY
    ).delete()
    if not deleted:
        raise LinkNotFound(f"Memory {source.pk} is not linked to memory {target.pk}")
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.MEMORY_UNLINK,
        target_type="memory",
        target_id=str(source.pk),
        details={"source": source.pk, "target": target.pk},
    )
