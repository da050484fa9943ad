"""The dashboard's first page: the inbox (knowledge.inbox), what needs a person now, for
staff and managers; viewers, who only read, start on the Facts list. Also the site's root,
which sends each person to their mount. Reads only."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import APP_MOUNT, HtmxHttpRequest, domain_errors, mount_url, render_page
from knowledge.inbox import inbox
from tenancy.access import access_for_user

ORDERS = ("oldest", "newest")


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Staff to the dashboard, workspace members to /app/, anyone else to the sign-in page."""
    if not request.user.is_authenticated:
        return redirect("login")
    mount = "knowledge" if request.user.is_staff else APP_MOUNT["knowledge"]
    return redirect(f"{mount}:start")


@login_required
@require_GET
@domain_errors
def start(request: HtmxHttpRequest) -> HttpResponse:
    """What needs a person first for who can act (staff, managers); the facts for viewers."""
    access = access_for_user(request.user)
    return redirect(mount_url(request, "knowledge:inbox" if access.can_act else "facts:list"))


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def inbox_page(request: HtmxHttpRequest) -> HttpResponse:
    """Disputes per agent (``order``: the oldest waiting first, or the newest), facts to
    re-confirm, failed jobs and quotas over their limit, each with its way to settle it."""
    access = access_for_user(request.user)
    order = request.GET.get("order", "oldest")
    if order not in ORDERS:
        order = "oldest"
    context: dict[str, Any] = {
        "inbox": inbox(access, me=request.user.pk, oldest_first=order == "oldest"),
        "order": order,
        "nav": "inbox",
    }
    return render_page(request, "dashboard/inbox.html", "inbox", access, context)
