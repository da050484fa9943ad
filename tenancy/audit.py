"""The audit log's writes, and how it names the people and programs that act."""

from typing import Any

from tenancy.models import Agent, AuditAction, AuditEvent


def operator_actor(username: str) -> str:
    """A signed-in person (dashboard, admin), as audit events and fact sources name them."""
    return f"operator:{username}"


def key_actor(name: str, key_id: int) -> str:
    """An API key, by the name people gave it. Names need not be unique, so the key's id
    follows: ``key:ingest-bot#12`` names one key even when two are called ingest-bot."""
    return f"key:{name}#{key_id}"


def record_event(
    *,
    workspace_id: int,
    agent: Agent | None,
    actor: str,
    action: AuditAction,
    target_type: str,
    target_id: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        workspace_id=workspace_id,
        agent=agent,
        actor=actor,
        action=action,
        target_type=target_type,
        target_id=target_id,
        details=details or {},
    )
