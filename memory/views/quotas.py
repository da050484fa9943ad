"""The dashboard's Quotas page: the usage of a workspace and its agents against their
quotas, flagged when over, and the form that sets the quotas of the workspace or of one
agent (memory.quotas, tenancy.quotas). For staff operators (any workspace) and workspace
managers (their own); viewers may not.

With htmx, the form returns the quotas section re-rendered; without JavaScript, a redirect
back to the page (or the page with the form's errors).
"""

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    flash,
    is_fragment,
    list_page,
    mount_url,
    render_page,
)
from memory.exceptions import QuotaBelowUsage
from memory.forms import QuotaForm, quota_form_initial
from memory.orders import QUOTA_SORTING, quota_order
from memory.quotas import quota_overview, set_quotas
from tenancy.access import Access
from tenancy.exceptions import WorkspaceNotFound
from tenancy.models import Agent, QuotaKind, Workspace
from tenancy.picker import workspace_picker
from tenancy.quotas import quota_limits


def _scope(access: Access, workspace_slug: str, agent_id: str) -> tuple[Workspace, Agent | None]:
    """The workspace shown (a member's own; staff pick any, the first by default) and the
    agent whose quotas the form sets (None: the workspace's)."""
    workspace = access.workspace
    if workspace is None:
        workspaces = Workspace.objects.order_by("slug")
        found = workspaces.filter(slug=workspace_slug) if workspace_slug else workspaces
        workspace = found.first()
        if workspace is None:
            raise WorkspaceNotFound(f"No workspace {workspace_slug!r}")
    agent = Access(actor=access.actor, workspace=workspace).agent(agent_id) if agent_id else None
    return workspace, agent


def _page(
    request: HtmxHttpRequest,
    access: Access,
    workspace: Workspace,
    agent: Agent | None,
    form: QuotaForm | None = None,
    **context: Any,
) -> HttpResponse:
    total, agents = quota_overview(workspace)
    if form is None:
        form = QuotaForm(initial=quota_form_initial(quota_limits(workspace=workspace, agent=agent)))
    # The agents in the order asked (an action's answer, a POST, in the default order).
    sort = QUOTA_SORTING.parse(request.GET.get("sort"))
    context |= {
        "workspace": workspace,
        "picker": workspace_picker(access, workspace),
        "total": total,
        "agents": sort.sorted(agents, quota_order(sort)),
        "sorting": QUOTA_SORTING,
        "sort": sort,
        "editing": agent,
        "form": form,
        "nav": "quotas",
    }
    return render_page(request, "dashboard/quotas.html", "quotas", access, context)


def _readable(below: dict[str, Any]) -> dict[str, Any]:
    """A limit under its usage, in the units the page shows (bytes as sizes)."""
    label = dict(QuotaKind.choices)[below["kind"]]
    if below["kind"] in ("memories", "sessions", "facts", "entities"):
        return {"label": label, "limit": f"{below['limit']:,}", "usage": f"{below['usage']:,}"}
    return {
        "label": label,
        "limit": filesizeformat(below["limit"]),
        "usage": filesizeformat(below["usage"]),
    }


@list_page("Quotas", "workspace")
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def quotas_page(request: HtmxHttpRequest) -> HttpResponse:
    access = acting_access(request)
    workspace, agent = _scope(
        access, request.GET.get("workspace", ""), request.GET.get("agent", "")
    )
    return _page(request, access, workspace, agent)


@login_required
@require_POST
@domain_errors
def quota_set(request: HtmxHttpRequest) -> HttpResponse:
    access = acting_access(request)
    workspace, agent = _scope(
        access, request.POST.get("workspace", ""), request.POST.get("agent", "")
    )
    form = QuotaForm(request.POST)
    if not form.is_valid():
        return _page(request, access, workspace, agent, form)
    try:
        set_quotas(
            workspace=workspace,
            agent=agent,
            limits=form.limits(),
            actor=access.actor,
            confirm_below_usage=form.cleaned_data["confirm_below_usage"],
        )
    except QuotaBelowUsage as exc:
        below = [_readable(b) for b in exc.details["below"]]
        # Nothing was set: the form again, with what is below and the confirming button.
        return _page(request, access, workspace, agent, form, below_usage=below)
    whose = f"agent {agent.agent_id}" if agent is not None else f"workspace {workspace.slug}"
    notice = f"Quotas of {whose} saved."
    if is_fragment(request):
        return _page(request, access, workspace, agent, notice=notice)
    flash(request, notice)
    query = {"workspace": workspace.slug, **({"agent": agent.agent_id} if agent else {})}
    return redirect(f"{mount_url(request, 'memory:quotas')}?{urlencode(query)}")
