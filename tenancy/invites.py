"""One-time sign-in links for invited people.

An invited person gets an account without a usable password and a link that lets them set
one. The link's token is Django's password-reset token under a salt of its own, so it is
void once used: it hashes the account's password and last sign-in, and setting the password
(which signs them in) changes both. It also lapses after DEWEE_INVITE_HOURS.

The token also hashes the workspaces the account belongs to, so a link is bound to the
membership it was issued with: adding the (unclaimed) account to another workspace, or
taking it out of one, voids every link issued before (see services.invite_member).
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.utils.encoding import force_bytes, force_str
from django.utils.http import base36_to_int, urlsafe_base64_decode, urlsafe_base64_encode

# Where Django's tokens count their seconds from (naive, as they are).
_EPOCH = datetime(2001, 1, 1)


class _InviteTokens(PasswordResetTokenGenerator):
    key_salt = "dewee.tenancy.invite"

    def __init__(self, now: datetime | None = None) -> None:
        super().__init__()
        self._fixed_now = now

    def _now(self) -> datetime:
        return self._fixed_now or super()._now()

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        # Why: a link handed to one workspace's manager must not sign in as the person
        # once they belong to another workspace too (they would read its facts).
        workspaces = sorted(user.workspace_memberships.values_list("workspace_id", flat=True))
        return f"{super()._make_hash_value(user, timestamp)}|{workspaces}"


def invite_hours() -> int:
    return int(getattr(settings, "DEWEE_INVITE_HOURS", 72))


def make_invite(user: Any) -> tuple[str, str]:
    """The (uid, token) pair of ``user``'s sign-in link."""
    return urlsafe_base64_encode(force_bytes(user.pk)), _InviteTokens().make_token(user)


def invited_user(uid: str, token: str) -> Any | None:
    """The account a link names while it is good: signed by this server, younger than
    DEWEE_INVITE_HOURS and not yet used; else None."""
    try:
        pk = force_str(urlsafe_base64_decode(uid))
        issued = base36_to_int(token.partition("-")[0])
        user = get_user_model()._default_manager.get(pk=pk)
    except (ValueError, OverflowError, TypeError, get_user_model().DoesNotExist):
        return None
    tokens = _InviteTokens()
    if not 0 <= tokens._num_seconds(tokens._now()) - issued <= invite_hours() * 3600:
        return None
    # Django's own check also applies PASSWORD_RESET_TIMEOUT, which is not the invitation's
    # limit (checked above): it checks the signature as of the time the token was issued.
    as_issued = _InviteTokens(now=_EPOCH + timedelta(seconds=issued))
    if not user.is_active or not as_issued.check_token(user, token):
        return None
    return user
