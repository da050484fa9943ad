"""Reads of workspaces, members, agents, API keys, the audit log, erasure receipts and a
login's saved views, with the orders the dashboard's lists of them offer."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils import timezone

from dewee.errors import NotFound
from dewee.sorting import Sort, Sorting, SortKey
from tenancy.access import Access
from tenancy.exceptions import (
    ApiKeyExpired,
    ApiKeyNotFound,
    InsufficientScope,
    MemberNotFound,
    UserNotFound,
)
from tenancy.models import (
    Agent,
    ApiKey,
    AuditEvent,
    ErasureReceipt,
    KeyState,
    SavedView,
    Scope,
    Workspace,
    WorkspaceMember,
)
from tenancy.receipts import user_digest
from tenancy.services import API_KEY_PREFIX, hash_api_key

_LAST_USED_RESOLUTION = timedelta(minutes=1)


def authenticate_api_key(token: str, *, scope: Scope | None) -> ApiKey | None:
    """The key for ``token`` if it may do what needs ``scope``; None for no key (or a
    revoked one). An expired key is ApiKeyExpired; a key without ``scope`` (or any key,
    when ``scope`` is None: an operation that declares none) is InsufficientScope. Only a
    key let through is marked used, at most once a minute, so a busy agent does not turn
    every read into a write and a refused request writes nothing."""
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
    if key.state(now) is KeyState.EXPIRED:
        assert key.expires_at is not None
        raise ApiKeyExpired(f"This API key expired at {key.expires_at:%Y-%m-%d %H:%M} UTC")
    if scope is None:
        raise InsufficientScope("This operation declares no scope, so no key may call it")
    if scope not in key.scopes:
        raise InsufficientScope(
            f"This operation needs the '{scope}' scope; this key has "
            f"{', '.join(key.scope_names())}",
            details={"required": scope.value, "scopes": key.scope_names()},
        )
    if key.last_used_at is None or now - key.last_used_at > _LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


# The API keys page's orders: a workspace's keys are few and shown whole, so any column
# sorts them (never used and never expiring ones last).
KEY_SORTING = Sorting(
    keys=(
        SortKey("created", field="created_at", indexed=True, descending_first=True),
        SortKey("name", field="name", kind=str, indexed=True),
        SortKey("expires", field="expires_at", indexed=True, nullable=True),
        SortKey("used", field="last_used_at", indexed=True, nullable=True, descending_first=True),
    ),
    default="-created",
)


def list_api_keys(*, workspace: Workspace | None = None, sort: Sort | None = None) -> list[ApiKey]:
    """Keys of ``workspace`` (of every workspace when None), newest first (or in ``sort``,
    one of KEY_SORTING's)."""
    keys = ApiKey.objects.select_related("workspace")
    if workspace is not None:
        keys = keys.filter(workspace=workspace)
    if sort is not None:
        keys = keys.order_by(*sort.ordering())
    return list(keys)


def get_api_key(*, key_id: int, workspace: Workspace | None) -> ApiKey:
    """A key of ``workspace`` (of any workspace when None: operators); another's is
    ApiKeyNotFound, as one that does not exist."""
    keys = ApiKey.objects.select_related("workspace")
    if workspace is not None:
        keys = keys.filter(workspace=workspace)
    try:
        return keys.get(pk=key_id)
    except ApiKey.DoesNotExist:
        raise ApiKeyNotFound(f"No API key #{key_id}") from None


def api_key_to_dict(key: ApiKey, *, now: datetime | None = None) -> dict[str, Any]:
    """What may be shown of a key: never its secret (which is not kept) nor its hash."""
    return {
        "id": key.pk,
        "workspace": key.workspace.slug,
        "name": key.name,
        "prefix": key.prefix,
        "scopes": key.scope_names(),
        "agents": list(key.agent_ids),
        "expires_at": key.expires_at,
        "state": key.state(now or timezone.now()).value,
        "created_at": key.created_at,
        "last_used_at": key.last_used_at,
        "revoked_at": key.revoked_at,
    }


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


# The Members page's orders: a workspace's members are shown whole, so any column sorts.
MEMBER_SORTING = Sorting(
    keys=(
        SortKey("person", field="user__username", kind=str, indexed=True, label="username"),
        SortKey("role", field="role", kind=str, indexed=True),
        SortKey("since", field="created_at", indexed=True, descending_first=True),
    ),
    default="person",
)


def list_members(*, workspace: Workspace, sort: Sort | None = None) -> list[WorkspaceMember]:
    """The members of ``workspace`` by username (or in ``sort``, one of MEMBER_SORTING's)."""
    members = WorkspaceMember.objects.filter(workspace=workspace).select_related("user")
    return list(members.order_by(*(sort or MEMBER_SORTING.default_sort).ordering()))


def get_member(*, member_id: int, workspace: Workspace | None = None) -> WorkspaceMember:
    """A membership of ``workspace`` (of any workspace when None: staff); another
    workspace's is MemberNotFound, as one that does not exist."""
    members = WorkspaceMember.objects.select_related("user", "workspace")
    if workspace is not None:
        members = members.filter(workspace=workspace)
    try:
        return members.get(pk=member_id)
    except WorkspaceMember.DoesNotExist:
        raise MemberNotFound(f"Member {member_id} not found") from None


@dataclass(frozen=True)
class AuditFilters:
    """What the audit log is narrowed to; empty fields narrow nothing. ``actor`` matches
    any part of the actor, in any case ("ana" finds ``operator:ana``); ``user`` is the
    person the event is about (the user of a fact, the account of a membership), exactly;
    ``since`` is inclusive, ``until`` exclusive."""

    actor: str = ""
    action: str = ""
    agent: Agent | None = None
    user: str = ""
    since: datetime | None = None
    until: datetime | None = None


# The audit log's orders. When: the id's order, the order events were recorded in
# (``created_at`` is the time of the insert), served by the primary key (staff) and by
# audit_workspace_recent_idx (a workspace's log, one partition of it on PostgreSQL). Actor
# and action: no index, so only over a filtered log of at most UNINDEXED_SORT_MAX events.
AUDIT_SORTING = Sorting(
    keys=(
        SortKey("when", indexed=True, descending_first=True, label="time"),
        SortKey("actor", field="actor", kind=str),
        SortKey("action", field="action", kind=str),
    ),
    default="-when",
)


def audit_events(access: Access, filters: AuditFilters) -> QuerySet[AuditEvent]:
    """The audit events ``access`` may see, narrowed by ``filters``, newest first (by id:
    the order they were recorded), with their workspace and agent. Lazy: a page slices it,
    an export iterates it. A caller limited to some agents (an API key) sees only their
    events, not the workspace's own (members, keys)."""
    events = AuditEvent.objects.select_related("workspace", "agent")
    if access.workspace is not None:
        events = events.filter(workspace=access.workspace)
    if access.agent_ids is not None:
        events = events.filter(agent__in=access.agents())
    if filters.actor:
        events = events.filter(actor__icontains=filters.actor)
    if filters.action:
        events = events.filter(action=filters.action)
    if filters.agent is not None:
        events = events.filter(agent=filters.agent)
    if filters.user:
        events = events.filter(details__user=filters.user)
    if filters.since is not None:
        events = events.filter(created_at__gte=filters.since)
    if filters.until is not None:
        events = events.filter(created_at__lt=filters.until)
    return events.order_by("-id")


# The receipts' orders: by time or by who erased. Receipts are one per erasure (thousands
# at the most, a workspace's far fewer), and the page shows the first RECEIPTS_SHOWN in the
# order asked: the sort reads them all, as the newest-first list already does.
RECEIPT_SORTING = Sorting(
    keys=(
        SortKey("when", field="created_at", indexed=True, descending_first=True, label="time"),
        SortKey("by", field="actor", kind=str, indexed=True, label="who erased"),
    ),
    default="-when",
)


def erasure_receipts(access: Access, sort: Sort | None = None) -> QuerySet[ErasureReceipt]:
    """The erasure receipts of the workspaces ``access`` sees, newest first (or in
    ``sort``, one of RECEIPT_SORTING's), with their workspace: each holds its counts, never
    what was erased."""
    receipts = ErasureReceipt.objects.select_related("workspace")
    if access.workspace is not None:
        receipts = receipts.filter(workspace=access.workspace)
    return receipts.order_by(*(sort or RECEIPT_SORTING.default_sort).ordering())


def erasures_of_user(
    access: Access, user: str, sort: Sort | None = None
) -> QuerySet[ErasureReceipt]:
    """The receipts ``access`` sees whose scope names ``user`` (by its keyed digest: a
    receipt never holds the id), newest first (or in ``sort``): whether, when and by whom
    they were erased."""
    return erasure_receipts(access, sort).filter(scope__user_hmac=user_digest(user.strip()))


def membership_of(*, user: Any, slug: str) -> WorkspaceMember | None:
    """``user``'s membership of the workspace ``slug``, if they have one."""
    members = WorkspaceMember.objects.select_related("workspace")
    return members.filter(user_id=user.pk, workspace__slug=slug).first()


def saved_views_of(user: Any) -> QuerySet[SavedView]:
    """``user``'s saved views, by page then name; nobody else's."""
    return SavedView.objects.filter(user_id=user.pk).order_by("page", "name", "id")


def get_saved_view(*, user: Any, view_id: int) -> SavedView:
    """``user``'s saved view ``view_id``; another person's is NotFound, as one that does
    not exist (only the dashboard asks: a 404 page)."""
    view = saved_views_of(user).filter(pk=view_id).first()
    if view is None:
        raise NotFound(f"No saved view #{view_id}")
    return view
