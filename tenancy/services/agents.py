"""Writes of agents: creating one, finding or creating one by id, and renaming one (the
API keys limited to it follow)."""

from django.db import IntegrityError, transaction

from dewee.errors import InvalidInput
from tenancy.audit import record_event
from tenancy.exceptions import AgentExists
from tenancy.models import Agent, AuditAction, Workspace
from tenancy.services.keys import move_key_limits
from tenancy.validation import clean_agent_id, clean_new_agent_id, clean_text


def create_agent(
    *, workspace: Workspace, agent_id: str, name: str = "", metadata: dict | None = None
) -> Agent:
    """Agent ids are unique within a workspace: an id another workspace uses is free here,
    and refusing it would tell this workspace what the other calls its agents. New ids are
    stored in NFC and hold no '/' and no look-alike characters (see clean_new_agent_id)."""
    agent_id = clean_new_agent_id(agent_id)
    name = clean_text(name, field="name", max_chars=200, required=False)
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidInput("metadata", "must be an object")
    if Agent.objects.in_workspace(workspace).with_id(agent_id) is not None:
        # Also an agent stored before ids were normalised, under this id's NFD form.
        raise AgentExists(f"Agent id {agent_id!r} is already taken in this workspace")
    try:
        with transaction.atomic():
            return Agent.objects.create(
                workspace=workspace, agent_id=agent_id, name=name, metadata=metadata or {}
            )
    except IntegrityError:
        raise AgentExists(f"Agent id {agent_id!r} is already taken in this workspace") from None


def ensure_agent(*, workspace: Workspace, agent_id: str) -> Agent:
    """The agent ``agent_id`` of ``workspace``, created if the workspace has none by that
    id yet (other workspaces' agents play no part). The id is found as
    ``AgentQuerySet.with_id`` finds it; a new one is checked by create_agent."""
    agent_id = clean_agent_id(agent_id)
    agents = Agent.objects.in_workspace(workspace)
    existing = agents.with_id(agent_id)
    if existing is None:
        try:
            return create_agent(workspace=workspace, agent_id=agent_id)
        except AgentExists:
            # Another process created it between our read and our insert.
            existing = agents.with_id(agent_id)
            if existing is None:
                raise
    return existing


@transaction.atomic
def rename_agent(*, agent: Agent, agent_id: str, actor: str) -> Agent:
    """Give ``agent`` the id ``agent_id``, checked as a new agent's id (clean_new_agent_id)
    and free in its workspace as create_agent finds ids; renaming an agent to the id it has
    changes nothing, even an id stored before today's rules. Memories, sessions and facts
    follow the agent's row, not its id.

    API keys name the agents they are limited to by id, so in the same transaction every
    unrevoked key of the workspace whose limit names the old id (in any normal form) is
    changed to name the new one instead: a key the operator limited to this agent keeps
    reaching it, under its new id only, and no limit is left naming the old id, which a
    later agent could take and so inherit the key. (Invalidating those limits instead
    would stop every program using such a key at the rename.) A key whose limit already
    named the new id (limits may name agents not created yet) reaches the agent from now
    on; the event lists those keys.

    Audited: ``agent.rename`` with the ids before and after and the keys concerned, and
    ``key.update`` for each key changed, as update_api_key records it."""
    agent = Agent.objects.select_for_update().select_related("workspace").get(pk=agent.pk)
    old_id = agent.agent_id
    if agent_id == old_id:
        return agent  # an agent stored before ids were checked keeps its id as it is
    new_id = clean_new_agent_id(agent_id)
    if new_id == old_id:
        return agent
    taken = Agent.objects.in_workspace(agent.workspace).exclude(pk=agent.pk).with_id(new_id)
    if taken is not None:
        raise AgentExists(f"Agent id {new_id!r} is already taken in this workspace")
    agent.agent_id = new_id
    try:
        with transaction.atomic():
            agent.save(update_fields=["agent_id"])
    except IntegrityError:
        raise AgentExists(f"Agent id {new_id!r} is already taken in this workspace") from None
    moved, already = move_key_limits(agent=agent, old_id=old_id, new_id=new_id, actor=actor)
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.AGENT_RENAME,
        target_type="agent",
        target_id=str(agent.pk),
        details={"before": old_id, "after": new_id, "keys_moved": moved, "keys_gained": already},
    )
    return agent
