"""Writes of API keys: creating one (its secret shown once), changing its scopes, agents
and expiry, revoking it, and moving the limits that name a renamed agent; each audited."""

import hashlib
import secrets
import unicodedata
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from tenancy.audit import record_event
from tenancy.exceptions import ApiKeyNotFound, InvalidAgentId
from tenancy.models import Agent, ApiKey, AuditAction, Scope, Workspace
from tenancy.validation import clean_agent_id, clean_new_agent_id, clean_text

API_KEY_PREFIX = "dw_"


def hash_api_key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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


def move_key_limits(
    *, agent: Agent, old_id: str, new_id: str, actor: str
) -> tuple[list[int], list[int]]:
    """After ``agent`` was renamed from ``old_id`` to ``new_id`` (in the rename's
    transaction), every unrevoked key of its workspace whose limit names the old id (in any
    normal form) names the new one instead, each change audited as update_api_key records
    it. Returns the keys moved, and the keys whose limit already named the new id."""
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
    return moved, already
