"""Reads for workspaces, agents and API keys."""

from datetime import timedelta
from typing import Any

from django.utils import timezone

from memory.models import Agent, ApiKey, ErasureReceipt
from memory.services import API_KEY_PREFIX, hash_api_key

_LAST_USED_RESOLUTION = timedelta(minutes=1)


def authenticate_api_key(token: str) -> ApiKey | None:
    """The active key for ``token``, or None. Marks it used at most once a minute, so a busy
    agent does not turn every read into a write."""
    if not token.startswith(API_KEY_PREFIX):
        return None
    key = (
        ApiKey.objects.active()
        .select_related("workspace")
        .filter(key_hash=hash_api_key(token))
        .first()
    )
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at > _LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


def agent_to_dict(agent: Agent) -> dict[str, Any]:
    return {
        "agent_id": agent.agent_id,
        "workspace": agent.workspace.slug,
        "name": agent.name or None,
        "metadata": agent.metadata,
        "created_at": agent.created_at,
    }


def receipt_to_dict(receipt: ErasureReceipt) -> dict[str, Any]:
    return {
        "id": str(receipt.pk),
        "agent_id": receipt.agent_ref,
        "scope": receipt.scope,
        "counts": receipt.counts,
        "actor": receipt.actor,
        "created_at": receipt.created_at,
    }
