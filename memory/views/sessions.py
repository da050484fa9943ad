"""The dashboard's Sessions pages: the list with its filters, and one session with its
turns. HTML adapters over memory.queries; reading a session changes nothing (not its last
activity, not its memories' access counts)."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    agent_picker,
    all_agents_label,
    domain_errors,
    list_page,
    picked_scope,
    render_page,
)
from dewee.forms import PageForm
from memory.forms import SessionFilterForm
from memory.orders import SESSION_SORTING
from memory.queries import get_session, list_sessions, session_to_dict, session_turns
from tenancy.access import access_for_user

PAGE_SIZE = 25
TURNS_PAGE_SIZE = 50


@list_page("Sessions", *SessionFilterForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def sessions_list(request: HtmxHttpRequest) -> HttpResponse:
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request, all_agents=True)
    form = SessionFilterForm(data, agent_choices=choices)
    sort = SESSION_SORTING.parse(request.GET.get("sort"))
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "sessions"}
    context |= {"sorting": SESSION_SORTING, "sort": sort}
    if choices and form.is_valid():
        agent = picked_scope(access, form)
        page = list_sessions(
            agent=agent or access,
            user=form.cleaned_data["user"] or None,
            state=form.cleaned_data["state"] or None,
            cursor=form.cleaned_data["cursor"],
            limit=PAGE_SIZE,
            sort=sort,
        )
        context |= {"agent": agent, "page": page, "rows": page.items, "sort": page.sort}
        context["scope_label"] = agent.agent_id if agent else all_agents_label(access).lower()
    return render_page(request, "dashboard/sessions.html", "table", access, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def session_page(request: HtmxHttpRequest, session_id: int) -> HttpResponse:
    """The session (user, state, times, summary) and its turns in order, a page at a time;
    with htmx, the turns alone (the pager)."""
    access = access_for_user(request.user)
    session = get_session(access=access, session_id=session_id)
    form = PageForm(request.GET)
    if not form.is_valid():
        raise BadRequest("This is not a page of this session's turns.")
    page = session_turns(session=session, cursor=form.cleaned_data["cursor"], limit=TURNS_PAGE_SIZE)
    context = {
        "session": session_to_dict(session),
        "agent": session.agent,
        "form": form,
        "page": page,
        "turns": page.items,
        "nav": "sessions",
    }
    return render_page(request, "dashboard/session_detail.html", "turns", access, context)
