"""Writes for workspaces, their members, agents, API keys and the audit log."""

import hashlib
import re
import secrets
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from tenancy.audit import record_event
from tenancy.exceptions import (
    AgentExists,
    ApiKeyNotFound,
    MemberExists,
    WorkspaceExists,
    WorkspaceNotFound,
)
from tenancy.models import (
    DEFAULT_WORKSPACE_SLUG,
    Agent,
    ApiKey,
    AuditAction,
    MemberRole,
    Workspace,
    WorkspaceMember,
)
from tenancy.validation import clean_agent_id, clean_new_agent_id, clean_text

API_KEY_PREFIX = "dw_"
_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def hash_api_key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def get_workspace(slug: str) -> Workspace:
    if slug == DEFAULT_WORKSPACE_SLUG:
        return default_workspace()
    try:
        return Workspace.objects.get(slug=slug)
    except Workspace.DoesNotExist:
        raise WorkspaceNotFound(f"No workspace {slug!r}") from None


def default_workspace() -> Workspace:
    """The workspace the CLI puts new agents in; recreated if someone removed it."""
    workspace, _created = Workspace.objects.get_or_create(
        slug=DEFAULT_WORKSPACE_SLUG, defaults={"name": "Default"}
    )
    return workspace


@transaction.atomic
def create_workspace(*, slug: str, name: str = "") -> Workspace:
    """Slugs are lower-case letters, digits, '-' and '_', unique, at most 64 characters."""
    if not isinstance(slug, str) or not _SLUG_RE.match(slug):
        raise InvalidInput(
            "workspace", "must be 1-64 lower-case letters, digits, '-' or '_' (e.g. acme-prod)"
        )
    name = clean_text(name, field="name", max_chars=200, required=False)
    if Workspace.objects.filter(slug=slug).exists():
        raise WorkspaceExists(f"Workspace {slug!r} already exists")
    return Workspace.objects.create(slug=slug, name=name or slug)


def _clean_role(role: str) -> MemberRole:
    try:
        return MemberRole(role)
    except ValueError:
        raise InvalidInput("role", f"must be one of {', '.join(MemberRole.values)}") from None


def _member_event(
    member: WorkspaceMember, *, actor: str, action: AuditAction, **details: Any
) -> None:
    record_event(
        workspace_id=member.workspace_id,
        agent=None,
        actor=actor,
        action=action,
        target_type="member",
        target_id=str(member.user_id),
        details={"user": member.user.get_username(), "role": member.role, **details},
    )


def add_member(
    *, workspace: Workspace, user: AbstractBaseUser, role: str, actor: str
) -> WorkspaceMember:
    """``user`` joins ``workspace`` as ``role``; a person is in a workspace at most once
    (the database's unique constraint settles a race). Audited."""
    role = _clean_role(role)
    if WorkspaceMember.objects.filter(workspace=workspace, user_id=user.pk).exists():
        raise MemberExists(f"{user.get_username()} is already a member of {workspace.slug}")
    try:
        with transaction.atomic():
            member = WorkspaceMember.objects.create(workspace=workspace, user_id=user.pk, role=role)
            _member_event(member, actor=actor, action=AuditAction.MEMBER_ADD)
            return member
    except IntegrityError:
        raise MemberExists(
            f"{user.get_username()} is already a member of {workspace.slug}"
        ) from None


@transaction.atomic
def change_member_role(*, member: WorkspaceMember, role: str, actor: str) -> WorkspaceMember:
    previous, member.role = member.role, _clean_role(role)
    member.save(update_fields=["role"])
    if member.role != previous:
        _member_event(member, actor=actor, action=AuditAction.MEMBER_ROLE, previous=previous)
    return member


@transaction.atomic
def remove_member(*, member: WorkspaceMember, actor: str) -> None:
    """The person loses this workspace; their account, and any other membership, stay."""
    _member_event(member, actor=actor, action=AuditAction.MEMBER_REMOVE)
    member.delete()


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
def create_api_key(*, workspace: Workspace, name: str, actor: str) -> tuple[ApiKey, str]:
    """Returns the key and its secret; the secret is never stored and cannot be shown again."""
    name = clean_text(name, field="name", max_chars=200)
    token = API_KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(
        workspace=workspace, name=name, prefix=token[:10], key_hash=hash_api_key(token)
    )
    record_event(
        workspace_id=workspace.pk,
        agent=None,
        actor=actor,
        action=AuditAction.KEY_CREATE,
        target_type="api_key",
        target_id=str(key.pk),
        details={"name": name, "prefix": key.prefix},
    )
    return key, token


@transaction.atomic
def revoke_api_key(*, key_id: int, actor: str, workspace: Workspace | None = None) -> ApiKey:
    keys = ApiKey.objects.select_for_update()
    if workspace is not None:
        keys = keys.filter(workspace=workspace)
    try:
        key = keys.get(pk=key_id)
    except ApiKey.DoesNotExist:
        raise ApiKeyNotFound(f"No API key #{key_id}") from None
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        record_event(
            workspace_id=key.workspace_id,
            agent=None,
            actor=actor,
            action=AuditAction.KEY_REVOKE,
            target_type="api_key",
            target_id=str(key.pk),
            details={"name": key.name, "prefix": key.prefix},
        )
    return key
