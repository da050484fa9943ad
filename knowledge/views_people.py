"""The dashboard's pages for one person: what the agents the viewer sees hold about them
(the person page, for everyone who may read), the erasure of everything about them (a
preview naming what goes, per kind and per agent, then the typed confirmation) and their
export. The erasure and the export are for staff and workspace managers; the person is
sought in the workspace of the agent the operator came from (a fact's, the facts list's,
or one the person page names in that workspace)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    list_page,
    mount_url,
    render_page,
)
from knowledge.forms import ForgetPersonForm, PersonForm
from knowledge.people import COUNT_KINDS, find_person
from knowledge.people_export import export_person
from knowledge.person_queries import PERSON_FACT_SORTING, person_overview, sort_person_facts
from knowledge.services import erase_person
from tenancy.access import Access, access_for_user
from tenancy.models import Agent

# How the preview names each kind.
KIND_LABELS = {
    "facts": "Facts about them (every status)",
    "fact_sources": "Sources of those facts",
    "facts_learned_from_memories": "Facts learned only from their memories",
    "memories": "Memories (theirs, in their sessions, naming them, or made from those)",
    "entity_tags": "Entity tags of those memories",
    "entities": "Entities nothing else mentions",
    "feedback": "Feedback on those memories",
    "graph_edges": "Graph edges of those memories",
    "sessions": "Their sessions (with summaries and metadata)",
    "sessions_scrubbed": "Other sessions losing a summary or metadata about them",
    "audit_events": "Audit events about or quoting them",
    "admin_log_entries": "Admin log entries about their facts, memories or sessions",
}


@list_page("People", *PersonForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def person_page(request: HtmxHttpRequest) -> HttpResponse:
    """Everything about ``?user=`` across the agents the viewer sees, at a glance (their
    current facts by slot, or as sorted); without it, a form asking for one. A user id is a
    query parameter, not a path segment: ids may hold any character, '/' included. Someone
    nothing visible is about gets the same empty page whether another workspace knows them
    or not."""
    access = access_for_user(request.user)
    form = PersonForm(request.GET)
    if not form.is_valid():
        raise BadRequest(" ".join(str(error) for error in form.errors["user"]))
    sort = PERSON_FACT_SORTING.parse(request.GET.get("sort"))
    context: dict[str, object] = {"form": form, "person": form.cleaned_data["user"]}
    context |= {"sorting": PERSON_FACT_SORTING, "sort": sort}
    if context["person"]:
        overview = person_overview(access=access, user=form.cleaned_data["user"])
        sort_person_facts(overview, sort)
        context["overview"] = overview
    return render_page(request, "dashboard/person.html", "person", access, context)


def _person_form(request: HtmxHttpRequest, access: Access) -> tuple[ForgetPersonForm, Agent]:
    form = ForgetPersonForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        raise BadRequest("Give an agent and a user.")
    return form, access.agent(form.cleaned_data["agent"])


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@domain_errors
def person_forget(request: HtmxHttpRequest) -> HttpResponse:
    """GET: what would be erased, per kind and per agent, and the typed confirmation;
    POST: erase, then redirect to the receipt, so a refresh cannot submit again."""
    access = acting_access(request)
    form, agent = _person_form(request, access)
    user = form.cleaned_data["user"]
    if request.method == "POST" and form.confirmed():
        erased = erase_person(workspace=agent.workspace, user=user, actor=access.actor)
        url = mount_url(request, "facts:receipt", erased.receipt.pk)
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    data = find_person(workspace=agent.workspace, user=user)
    by_agent = data.by_agent()
    totals = data.totals()
    rows = [
        {
            "kind": kind,
            "label": KIND_LABELS[kind],
            "total": totals[kind],
            "agents": [by_agent[a].get(kind) for a in by_agent],
        }
        for kind in COUNT_KINDS
    ]
    context = {
        "form": form,
        "agent": agent,
        "person": user,
        "workspace": agent.workspace,
        "agents": list(by_agent),
        "rows": rows,
        "nothing": not any(totals.values()),
    }
    return render_page(request, "dashboard/person_forget.html", "panel", access, context)


@login_required
@require_GET
@domain_errors
def person_export(request: HtmxHttpRequest) -> StreamingHttpResponse:
    """Everything the workspace holds about the person, as a JSON download."""
    access = acting_access(request)
    form, agent = _person_form(request, access)
    response = StreamingHttpResponse(
        export_person(workspace=agent.workspace, user=form.cleaned_data["user"]),
        content_type="application/json",
    )
    response["Content-Disposition"] = 'attachment; filename="person-export.json"'
    return response
