"""What a signed-in (or invited) person does with their own account: follow an
invitation's one-time link to set a password, and switch between their workspaces.

The link's GET only checks the token and keeps it in the session, then sends the person to
a URL without it (so the token does not linger in the address bar or a Referer), as Django's
password reset does; the token is used only when the password is set, so a link scanner
that merely opens the link does not spend it."""

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tenancy.access import WORKSPACE_SESSION_KEY
from tenancy.invites import invite_hours, invited_user
from tenancy.queries import membership_of

INVITE_SESSION_KEY = "dewee_invite"


def _spent(request: HttpRequest) -> HttpResponse:
    context = {"invalid": True, "hours": invite_hours()}
    return render(request, "registration/invite.html", context, status=400)


@never_cache
@require_GET
def invite_accept(request: HttpRequest, uid: str, token: str) -> HttpResponse:
    if invited_user(uid, token) is None:
        return _spent(request)
    request.session[INVITE_SESSION_KEY] = [uid, token]
    return redirect("invite_password")


@never_cache
@require_http_methods(["GET", "POST"])
def invite_password(request: HttpRequest) -> HttpResponse:
    """Set a password, which signs the person in and voids the link (its token hashes the
    password and the last sign-in); then to their workspace."""
    uid, token = request.session.get(INVITE_SESSION_KEY) or ("", "")
    user = invited_user(uid, token)
    if user is None:
        return _spent(request)
    form = SetPasswordForm(user, request.POST if request.method == "POST" else None)
    if form.is_valid():
        form.save()
        del request.session[INVITE_SESSION_KEY]
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "registration/invite.html", {"form": form, "invited": user})


@login_required
@require_POST
def switch_workspace(request: HttpRequest) -> HttpResponse:
    """A member of several workspaces works in the one chosen here until they choose
    another; a workspace not theirs is not found."""
    member = membership_of(user=request.user, slug=request.POST.get("workspace", ""))
    if member is None:
        raise Http404("No workspace of yours by that name")
    request.session[WORKSPACE_SESSION_KEY] = member.workspace_id
    return redirect("app-knowledge:start")
