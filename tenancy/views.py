"""The dashboard's Members page: operators add people to a workspace, change their role and
remove them, through memory.services. Mounted only under /dashboard/ (the mount gate sends
members to /app/), and every view also asks the access helper for an operator.

With htmx, each action returns the members section re-rendered; without JavaScript, a
redirect back to the page (or the page with the form's errors).
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    domain_errors,
    flash,
    is_fragment,
    operator_access,
    render_page,
)
from tenancy.access import Access
from tenancy.exceptions import MemberExists, UserNotFound, WorkspaceNotFound
from tenancy.forms import AddMemberForm, MemberRoleForm, WorkspaceForm
from tenancy.models import MemberRole, Workspace
from tenancy.queries import find_user, get_member, list_members
from tenancy.services import add_member, change_member_role, remove_member


def _workspace(slug: str) -> Workspace:
    try:
        return Workspace.objects.get(slug=slug)
    except Workspace.DoesNotExist:
        raise WorkspaceNotFound(f"No workspace {slug!r}") from None


def _page(
    request: HtmxHttpRequest, access: Access, workspace: Workspace | None, **context: Any
) -> HttpResponse:
    slugs = list(Workspace.objects.order_by("slug").values_list("slug", flat=True))
    if workspace is not None:
        context["members"] = list_members(workspace=workspace)
    context.setdefault("add_form", AddMemberForm())
    context |= {
        "picker": WorkspaceForm({"workspace": workspace and workspace.slug}, slugs=slugs),
        "workspace": workspace,
        "roles": MemberRole.choices,
        "nav": "members",
    }
    return render_page(request, "dashboard/members.html", "members", access, context)


def _done(
    request: HtmxHttpRequest, access: Access, workspace: Workspace, notice: str
) -> HttpResponse:
    """htmx: the members section with the notice; without JavaScript: back to the page."""
    if is_fragment(request):
        return _page(request, access, workspace, notice=notice)
    flash(request, notice)
    return redirect(f"{reverse('members:list')}?workspace={workspace.slug}")


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def members_page(request: HtmxHttpRequest) -> HttpResponse:
    access = operator_access(request)
    slug = request.GET.get("workspace")
    first = Workspace.objects.order_by("slug").first()
    return _page(request, access, _workspace(slug) if slug else first)


@login_required
@require_POST
@domain_errors
def member_add(request: HtmxHttpRequest) -> HttpResponse:
    """Unknown accounts and people already in the workspace are told next to the field."""
    access = operator_access(request)
    workspace = _workspace(request.POST.get("workspace", ""))
    form = AddMemberForm(request.POST)
    if form.is_valid():
        try:
            user = find_user(form.cleaned_data["login"])
            member = add_member(
                workspace=workspace, user=user, role=form.cleaned_data["role"], actor=access.actor
            )
        except (UserNotFound, MemberExists) as exc:
            form.add_error("login", exc.message)
        else:
            notice = f"{user.get_username()} added to {workspace.slug} as {member.role}."
            return _done(request, access, workspace, notice)
    return _page(request, access, workspace, add_form=form)


@login_required
@require_POST
@domain_errors
def member_role(request: HtmxHttpRequest, member_id: int) -> HttpResponse:
    access = operator_access(request)
    member = get_member(member_id=member_id)
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
    access = operator_access(request)
    member = get_member(member_id=member_id)
    if request.method == "GET":
        return _page(request, access, member.workspace, confirming=member.pk)
    remove_member(member=member, actor=access.actor)
    notice = f"{member.user.get_username()} removed from {member.workspace.slug}."
    return _done(request, access, member.workspace, notice)
