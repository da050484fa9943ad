"""The dashboard's Members page: who belongs to a workspace. Staff operators manage every
workspace's members (one at a time, chosen with the picker) under /dashboard/members/; a
workspace's managers manage their own under /app/members/; viewers are refused. Everything
goes through tenancy.services, shared with the CLI and the admin.

Adding is one step (an invitation): an existing account joins as it is; a new username
creates an account with no password, and the answer shows its one-time sign-in link, once
(never stored, never cached). With htmx, each action returns the members section
re-rendered; without JavaScript, a redirect back to the page (or the page with the form's
errors).
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    domain_errors,
    flash,
    is_fragment,
    list_page,
    mount_url,
    render_page,
)
from dewee.errors import Conflict, InvalidInput
from tenancy.access import Access, access_for_user
from tenancy.exceptions import MemberExists, UserNotFound, WorkspaceNotFound
from tenancy.forms import AddMemberForm, MemberRoleForm
from tenancy.invites import invite_hours
from tenancy.models import MemberRole, Workspace
from tenancy.picker import picked_workspace, workspace_picker
from tenancy.queries import MEMBER_SORTING, find_user, get_member, list_members
from tenancy.services import (
    Invitation,
    change_member_role,
    invite_member,
    is_pending,
    remove_member,
    renew_invite,
)


def members_access(request: HtmxHttpRequest) -> Access:
    """Staff, and a workspace's managers (for it alone); a viewer is told why not."""
    access = access_for_user(request.user)
    if not access.can_act:
        raise PermissionDenied(
            "Viewers may not see or change who belongs to the workspace: ask a manager."
        )
    return access


def _page(
    request: HtmxHttpRequest, access: Access, workspace: Workspace | None, **context: Any
) -> HttpResponse:
    """The page (or its members section, for htmx), its list in the order the query asks
    (an action's answer, a POST, in the default order)."""
    sort = MEMBER_SORTING.parse(request.GET.get("sort"))
    if workspace is not None:
        members = list_members(workspace=workspace, sort=sort)
        context["members"] = members
        context["pending"] = {m.pk for m in members if is_pending(m)}
    context |= {"sorting": MEMBER_SORTING, "sort": sort}
    context["picker"] = workspace_picker(access, workspace)
    context.setdefault("add_form", AddMemberForm())
    context |= {"workspace": workspace, "roles": MemberRole.choices, "nav": "members"}
    return render_page(request, "dashboard/members.html", "members", access, context)


def _done(
    request: HtmxHttpRequest, access: Access, workspace: Workspace, notice: str
) -> HttpResponse:
    """htmx: the members section with the notice; without JavaScript: back to the page."""
    if is_fragment(request):
        return _page(request, access, workspace, notice=notice)
    flash(request, notice)
    return redirect(f"{mount_url(request, 'members:list')}?workspace={workspace.slug}")


@list_page("Members", "workspace")
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def members_page(request: HtmxHttpRequest) -> HttpResponse:
    access = members_access(request)
    return _page(request, access, picked_workspace(request, access))


def _invite(access: Access, workspace: Workspace, form: AddMemberForm) -> Invitation:
    """An existing account named by its username or email joins; else a new username is
    invited with a new account."""
    login, email = form.cleaned_data["login"].strip(), form.cleaned_data["email"]
    try:
        username = find_user(login).get_username()
    except UserNotFound:
        if "@" in login and not email:
            raise UserNotFound(
                f"No account with the email {login!r}: give a username for a new account, "
                "and the email below"
            ) from None
        username = login
    return invite_member(
        workspace=workspace,
        username=username,
        email=email,
        role=form.cleaned_data["role"],
        actor=access.actor,
    )


@never_cache
@login_required
@require_POST
@domain_errors
def member_add(request: HtmxHttpRequest) -> HttpResponse:
    """Errors are told next to their field; a new account's sign-in link is shown once."""
    access = members_access(request)
    workspace = picked_workspace(request, access)
    if workspace is None:
        raise WorkspaceNotFound("No workspace yet")
    form = AddMemberForm(request.POST)
    if form.is_valid():
        try:
            invitation = _invite(access, workspace, form)
        except (UserNotFound, MemberExists) as exc:
            form.add_error("login", exc.message)
        except InvalidInput as exc:
            form.add_error("email" if exc.field == "email" else "login", exc.message)
        else:
            member = invitation.member
            notice = f"{member.user.get_username()} added to {workspace.slug} as {member.role}."
            if invitation.link is None:
                return _done(request, access, workspace, notice)
            url = request.build_absolute_uri(reverse("invite_accept", args=invitation.link))
            return _page(
                request,
                access,
                workspace,
                notice=notice,
                invite_link=url,
                invite_hours=invite_hours(),
            )
    return _page(request, access, workspace, add_form=form)


@never_cache
@login_required
@require_POST
@domain_errors
def member_invite(request: HtmxHttpRequest, member_id: int) -> HttpResponse:
    """A new sign-in link for a member who has not signed in yet, shown once; the earlier
    ones stop working."""
    access = members_access(request)
    member = get_member(member_id=member_id, workspace=access.workspace)
    try:
        link = renew_invite(member=member, actor=access.actor)
    except Conflict as exc:  # signed in meanwhile: nothing to renew
        return _page(request, access, member.workspace, error=exc.message)
    name = member.user.get_username()
    return _page(
        request,
        access,
        member.workspace,
        notice=f"A new sign-in link for {name}; the earlier ones no longer work.",
        invite_link=request.build_absolute_uri(reverse("invite_accept", args=link)),
        invite_hours=invite_hours(),
    )


@login_required
@require_POST
@domain_errors
def member_role(request: HtmxHttpRequest, member_id: int) -> HttpResponse:
    access = members_access(request)
    member = get_member(member_id=member_id, workspace=access.workspace)
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        raise BadRequest("role must be manager or viewer")
    member = change_member_role(member=member, role=form.cleaned_data["role"], actor=access.actor)
    notice = f"{member.user.get_username()} is now a {member.role} of {member.workspace.slug}."
    return _done(request, access, member.workspace, notice)


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@domain_errors
def member_remove(request: HtmxHttpRequest, member_id: int) -> HttpResponse:
    """GET: the page, asking to confirm in the member's row; POST: remove."""
    access = members_access(request)
    member = get_member(member_id=member_id, workspace=access.workspace)
    if request.method == "GET":
        return _page(request, access, member.workspace, confirming=member.pk)
    remove_member(member=member, actor=access.actor)
    notice = f"{member.user.get_username()} removed from {member.workspace.slug}."
    return _done(request, access, member.workspace, notice)
