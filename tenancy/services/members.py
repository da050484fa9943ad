"""Writes of a workspace's members: adding, inviting (with a one-time sign-in link for a
new account), changing a role and removing; each audited."""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from dewee.errors import Conflict, InvalidInput
from tenancy.audit import record_event
from tenancy.exceptions import MemberExists
from tenancy.invites import make_invite
from tenancy.models import AuditAction, MemberRole, Workspace, WorkspaceMember
from tenancy.validation import clean_text


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


def is_pending(member: WorkspaceMember) -> bool:
    """Invited and not yet signed in: an active account with no password that never signed
    in (staff sign in otherwise and get no link)."""
    user = member.user
    return (
        user.is_active
        and not user.is_staff
        and not user.has_usable_password()
        and user.last_login is None
    )


@transaction.atomic
def renew_invite(*, member: WorkspaceMember, actor: str) -> tuple[str, str]:
    """A new one-time sign-in link for a member who has not signed in yet, for a lost or
    lapsed one; every earlier link is void at once (the account's unusable password is
    drawn anew, and the token hashes it). Audited as member.invite. A member who has
    signed in (or has a password, or is staff) needs none: Conflict."""
    if not is_pending(member):
        raise Conflict(
            f"{member.user.get_username()} has signed in already or has a password: "
            "no sign-in link is needed."
        )
    user = member.user
    user.set_unusable_password()
    user.save(update_fields=["password"])
    _member_event(member, actor=actor, action=AuditAction.MEMBER_INVITE)
    return make_invite(user)


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
