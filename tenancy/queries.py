"""Reads of workspaces, members, agents, API keys and erasure receipts."""

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from tenancy.exceptions import MemberNotFound, UserNotFound
from tenancy.models import Agent, ApiKey, ErasureReceipt, Workspace, WorkspaceMember
from tenancy.receipts import user_digest
from tenancy.services import API_KEY_PREFIX, hash_api_key

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
        "workspace": receipt.workspace.slug,
        "scope": receipt.scope,
        "counts": receipt.counts,
        "actor": receipt.actor,
        "created_at": receipt.created_at,
    }


def receipts_for_user(*, workspace: Workspace, user: str) -> list[ErasureReceipt]:
    """The receipts of ``workspace`` whose scope names ``user`` (by its digest: receipts
    never hold the id), newest first: the proof that their data was erased."""
    digest = user_digest(user.strip())
    return list(ErasureReceipt.objects.filter(workspace=workspace, scope__user_hmac=digest))


def find_user(login: str) -> Any:
    """The account whose username is ``login``, else the one whose email it is (any case);
    an email two accounts share names neither."""
    login = login.strip()
    users = get_user_model().objects
    user = users.filter(**{get_user_model().USERNAME_FIELD: login}).first()
    if user is None and "@" in login:
        matches = list(users.filter(email__iexact=login)[:2])
        if len(matches) > 1:
            raise UserNotFound("Several accounts use this email: give the username")
        user = matches[0] if matches else None
    if user is None:
        raise UserNotFound(f"No account with the username or email {login!r}")
    return user


def list_members(*, workspace: Workspace) -> list[WorkspaceMember]:
    members = WorkspaceMember.objects.filter(workspace=workspace).select_related("user")
    return list(members.order_by("user__username"))


def get_member(*, member_id: int) -> WorkspaceMember:
    """A membership of any workspace: only operators manage them, and they see every one."""
    try:
        return WorkspaceMember.objects.select_related("user", "workspace").get(pk=member_id)
    except WorkspaceMember.DoesNotExist:
        raise MemberNotFound(f"Member {member_id} not found") from None
