"""Writes for workspaces, their members, agents, API keys and the audit log."""

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from tenancy.audit import record_event
from tenancy.exceptions import (
    AgentExists,
    ApiKeyNotFound,
    InvalidAgentId,
    MemberExists,
    WorkspaceExists,
    WorkspaceNotFound,
)
from tenancy.invites import make_invite
from tenancy.models import (
    DEFAULT_WORKSPACE_SLUG,
    Agent,
    ApiKey,
    AuditAction,
    MemberRole,
    Scope,
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


def clean_workspace_slug(slug: object) -> str:
    """A new workspace's slug: 1-64 lower-case letters, digits, '-' and '_', starting with a
    letter or digit. No service changes a slug once given: scripts and people name the
    workspace by it (``--workspace acme``, ``acme/helpdesk``, ``?workspace=acme``), quota
    audit events record it as their target, and renaming ``default`` would leave the CLI
    to create a new empty one."""
    if not isinstance(slug, str) or not _SLUG_RE.match(slug):
        raise InvalidInput(
            "workspace", "must be 1-64 lower-case letters, digits, '-' or '_' (e.g. acme-prod)"
        )
    return slug


@transaction.atomic
def create_workspace(*, slug: str, name: str = "") -> Workspace:
    """Slugs follow clean_workspace_slug and are unique; the name is the slug unless given."""
    slug = clean_workspace_slug(slug)
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
    *, workspace: Workspace, user: AbstractBaseUser, role: str, actor: str, **details: Any
) -> WorkspaceMember:
    """``user`` joins ``workspace`` as ``role``; a person is in a workspace at most once
    (the database's unique constraint settles a race). Audited (with ``details``)."""
    role = _clean_role(role)
    if WorkspaceMember.objects.filter(workspace=workspace, user_id=user.pk).exists():
        raise MemberExists(f"{user.get_username()} is already a member of {workspace.slug}")
    try:
        with transaction.atomic():
            member = WorkspaceMember.objects.create(workspace=workspace, user_id=user.pk, role=role)
            _member_event(member, actor=actor, action=AuditAction.MEMBER_ADD, **details)
            return member
    except IntegrityError:
        raise MemberExists(
            f"{user.get_username()} is already a member of {workspace.slug}"
        ) from None


@dataclass(frozen=True)
class Invitation:
    """``link``: the (uid, token) of a one-time sign-in link (tenancy.invites), for an
    account that has never signed in; None for one that has."""

    member: WorkspaceMember
    created: bool
    link: tuple[str, str] | None


@transaction.atomic
def invite_member(
    *, workspace: Workspace, username: str, email: str = "", role: str, actor: str
) -> Invitation:
    """Add a person to ``workspace`` in one step. An existing account named ``username`` is
    added as it is; otherwise an account is created with no usable password. Either way,
    an account that has never signed in (nor has a password) gets a one-time sign-in link
    to set one, unless it is staff. An unclaimed account leaves any other workspace that
    had invited it (audited as member.remove) and earlier links are void: until it is
    claimed it is bound to one workspace, so a link never signs in to a workspace whose
    manager did not issue it. Nothing is written when the
    username or email is malformed or the person is already a member (MemberExists).
    Audited as member.add, with ``invited``."""
    role = _clean_role(role)
    users = get_user_model()._default_manager
    username = clean_text(username, field="username", max_chars=150)
    try:
        users.model.username_validator(username)
    except ValidationError:
        raise InvalidInput(
            "username", "may hold only letters, digits and @ . + - _ (no spaces)"
        ) from None
    email = clean_text(email, field="email", max_chars=254, required=False)
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise InvalidInput("email", "is not an email address") from None
    user = users.filter(username=username).first()
    created = user is None
    if user is None:
        user = users.create_user(username=username, email=email)
    member = add_member(
        workspace=workspace, user=user, role=role, actor=actor, invited=True, created=created
    )
    pending = not user.has_usable_password() and user.last_login is None and user.is_active
    link = None
    if pending and not user.is_staff:
        # An unclaimed account is bound to the workspace that invited it last: it leaves
        # any other, so the link given here signs in to this workspace alone, and every
        # earlier link (held by another workspace's manager) is void, as the token hashes
        # the memberships. The response is the same whether or not the username was
        # invited elsewhere, so a manager learns nothing of other workspaces.
        for other in WorkspaceMember.objects.filter(user_id=user.pk).exclude(workspace=workspace):
            _member_event(
                other, actor=actor, action=AuditAction.MEMBER_REMOVE, reason="invited elsewhere"
            )
            other.delete()
        link = make_invite(user)
    return Invitation(member=member, created=created, link=link)


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


DEFAULT_KEY_SCOPES = frozenset({Scope.READ, Scope.WRITE})
KEY_AGENTS_MAX = 100
_UNSET: Any = object()


def clean_key_scopes(value: object) -> frozenset[Scope]:
    """One or more of read, write and admin (a list, or a comma-separated string)."""
    if isinstance(value, str):
        value = [part for part in (p.strip() for p in value.split(",")) if part]
    if not isinstance(value, list | tuple | set | frozenset) or not all(
        isinstance(scope, str) for scope in value
    ):
        raise InvalidInput("scopes", "must be a list of read, write and admin")
    unknown = sorted(set(value) - set(Scope.values))
    if unknown:
        raise InvalidInput(
            "scopes", f"must be among {', '.join(Scope.values)}; got {', '.join(unknown)}"
        )
    if not value:
        raise InvalidInput("scopes", "must hold at least one of read, write and admin")
    return frozenset(Scope(scope) for scope in value)


def clean_key_agent_ids(value: object) -> list[str]:
    """The agents a key is limited to, each id as its agent stores it when one exists (an
    agent stored before ids were normalised keeps its own), else checked and in NFC as a
    new agent's id would be; duplicates dropped, order kept. Empty: no limit."""
    if value is None:
        return []
    if not isinstance(value, list | tuple) or not all(isinstance(a, str) for a in value):
        raise InvalidInput("agents", "must be a list of agent ids")
    if len(value) > KEY_AGENTS_MAX:
        raise InvalidInput("agents", f"has {len(value)} agents; the limit is {KEY_AGENTS_MAX}")
    cleaned = []
    for agent_id in value:
        try:
            existing = Agent.objects.with_id(clean_agent_id(agent_id))
            cleaned.append(existing.agent_id if existing else clean_new_agent_id(agent_id))
        except InvalidAgentId as exc:
            reason = exc.message.removeprefix("agent_id: ")
            raise InvalidAgentId("agents", f"{agent_id!r} {reason}") from None
    return list(dict.fromkeys(cleaned))


def clean_key_expiry(value: datetime | None, *, now: datetime) -> datetime | None:
    if value is not None and value <= now:
        raise InvalidInput("expires_at", "must be in the future")
    return value


def _key_details(key: ApiKey) -> dict[str, Any]:
    return {
        "name": key.name,
        "prefix": key.prefix,
        "scopes": key.scope_names(),
        "agents": list(key.agent_ids),
        "expires_at": key.expires_at.isoformat() if key.expires_at else None,
    }


def _key_event(key: ApiKey, *, actor: str, action: AuditAction, **details: Any) -> None:
    record_event(
        workspace_id=key.workspace_id,
        agent=None,
        actor=actor,
        action=action,
        target_type="api_key",
        target_id=str(key.pk),
        details={**_key_details(key), **details},
    )


def _set_scopes(key: ApiKey, scopes: frozenset[Scope]) -> None:
    key.scope_read = Scope.READ in scopes
    key.scope_write = Scope.WRITE in scopes
    key.scope_admin = Scope.ADMIN in scopes


@transaction.atomic
def create_api_key(
    *,
    workspace: Workspace,
    name: str,
    actor: str,
    scopes: object = DEFAULT_KEY_SCOPES,
    agent_ids: object = None,
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """Returns the key and its secret; the secret is never stored and cannot be shown again.
    A new key may read and write unless ``scopes`` says otherwise; it may use every agent
    of ``workspace`` unless ``agent_ids`` limits it (to agents that need not exist yet);
    it never expires unless ``expires_at`` (in the future) says when. Audited."""
    name = clean_text(name, field="name", max_chars=200)
    cleaned_scopes = clean_key_scopes(scopes)
    agents = clean_key_agent_ids(agent_ids)
    expires_at = clean_key_expiry(expires_at, now=timezone.now())
    token = API_KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        workspace=workspace,
        name=name,
        prefix=token[:10],
        key_hash=hash_api_key(token),
        agent_ids=agents,
        expires_at=expires_at,
    )
    _set_scopes(key, cleaned_scopes)
    key.save()
    _key_event(key, actor=actor, action=AuditAction.KEY_CREATE)
    return key, token


def _locked_key(key_id: int, workspace: Workspace | None) -> ApiKey:
    keys = ApiKey.objects.select_for_update().select_related("workspace")
    if workspace is not None:
        keys = keys.filter(workspace=workspace)
    try:
        return keys.get(pk=key_id)
    except (ApiKey.DoesNotExist, ValueError, TypeError):
        raise ApiKeyNotFound(f"No API key #{key_id}") from None


@transaction.atomic
def update_api_key(
    *,
    key_id: int,
    actor: str,
    workspace: Workspace | None = None,
    scopes: object = _UNSET,
    agent_ids: object = _UNSET,
    expires_at: datetime | None = _UNSET,
) -> ApiKey:
    """Change what is given of a key's scopes, agents and expiry (``expires_at=None``: never
    expires; a new expiry must be in the future). ``workspace``, when given, is the only one
    whose keys may be changed (another's is ApiKeyNotFound). All is checked before anything
    is written; one audit event records each change as [before, after]."""
    key = _locked_key(key_id, workspace)
    before = _key_details(key)
    fields = []
    if scopes is not _UNSET:
        _set_scopes(key, clean_key_scopes(scopes))
        fields += ["scope_read", "scope_write", "scope_admin"]
    if agent_ids is not _UNSET:
        key.agent_ids = clean_key_agent_ids(agent_ids)
        fields.append("agent_ids")
    if expires_at is not _UNSET and expires_at != key.expires_at:
        key.expires_at = clean_key_expiry(expires_at, now=timezone.now())
        fields.append("expires_at")
    after = _key_details(key)
    changes = {name: [before[name], after[name]] for name in after if before[name] != after[name]}
    if changes:
        key.save(update_fields=fields)
        _key_event(key, actor=actor, action=AuditAction.KEY_UPDATE, changes=changes)
    return key


@transaction.atomic
def revoke_api_key(*, key_id: int, actor: str, workspace: Workspace | None = None) -> ApiKey:
    """The key stops working at once; revoking a revoked key changes nothing. Audited."""
    key = _locked_key(key_id, workspace)
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
        _key_event(key, actor=actor, action=AuditAction.KEY_REVOKE)
    return key


def _id_forms(agent_id: str) -> set[str]:
    """An id as given and in NFC and NFD: the forms a key's limit may name an agent by
    (tenancy.access.Access.may_use_agent matches each)."""
    return {agent_id, *(unicodedata.normalize(form, agent_id) for form in ("NFC", "NFD"))}


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
    old_forms, new_forms = _id_forms(old_id), _id_forms(new_id)
    # An agent stored before ids were normalised may share the old id's other form: the
    # limits that name it keep doing so, and name the renamed agent as well.
    others = Agent.objects.in_workspace(agent.workspace).exclude(pk=agent.pk)
    shared = others.filter(agent_id__in=old_forms).exists()
    keys = ApiKey.objects.select_for_update().active().filter(workspace_id=agent.workspace_id)
    moved, already = [], []
    for key in keys.order_by("pk"):
        if not old_forms.intersection(key.agent_ids):
            if new_forms.intersection(key.agent_ids):
                already.append(key.pk)
            continue
        before = list(key.agent_ids)
        if shared:
            key.agent_ids = list(dict.fromkeys([*before, new_id]))
        else:
            key.agent_ids = list(dict.fromkeys(new_id if a in old_forms else a for a in before))
        key.save(update_fields=["agent_ids"])
        _key_event(
            key,
            actor=actor,
            action=AuditAction.KEY_UPDATE,
            changes={"agents": [before, list(key.agent_ids)]},
            reason=f"agent {old_id!r} renamed {new_id!r}",
        )
        moved.append(key.pk)
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
