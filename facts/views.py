"""The dashboard's Facts pages: HTML adapters over facts.queries and facts.services.

Every view starts with one call to the access helper, so a person sees only the workspaces
they may see; an object of another workspace is a 404, exactly like a missing one. With
htmx, a view returns the named partial that changed; without JavaScript, the whole page.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    agent_choices,
    agent_picker,
    all_agents_label,
    domain_errors,
    flash,
    is_fragment,
    list_page,
    mount_url,
    picked_scope,
    render_page,
)
from dewee.errors import Conflict
from dewee.export import export_response
from facts.changes import CHANGE_SORTING, change_to_dict, list_changes
from facts.forms import (
    IN_FORCE,
    ChangesForm,
    DeleteForm,
    FactFilterForm,
    ReasonForm,
    ResolveForm,
    RestoreForm,
    SuggestForm,
)
from facts.models import Fact, Status
from facts.queries import (
    FACT_EXPORT_COLUMNS,
    FACT_SORTING,
    fact_detail,
    fact_to_dict,
    facts_for_export,
    get_fact,
    in_force_count,
    list_facts,
    plan_prefix_filters,
    status_counts,
    suggest_keys,
)
from facts.services import (
    Resolution,
    RestoreOutcome,
    delete_fact,
    end_fact,
    reconfirm_fact,
    reopen_fact,
    resolve_fact,
    restore_fact,
)
from facts.triage import comment_count
from facts.views_forget import forget_offers
from tenancy.access import Access, access_for_user

PAGE_SIZE = 25


@list_page("Facts", *FactFilterForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def facts_list(request: HtmxHttpRequest) -> HttpResponse:
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request, all_agents=True)
    suggest_url = mount_url(request, "facts:suggest")
    form = FactFilterForm(data, agent_choices=choices, suggest_url=suggest_url)
    sort = FACT_SORTING.parse(request.GET.get("sort"))
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "facts"}
    context |= {"sorting": FACT_SORTING, "sort": sort}
    if choices and form.is_valid():
        agent = picked_scope(access, form)
        scope = agent or access
        filters = plan_prefix_filters(scope, form.filters())
        cursor = form.cleaned_data["cursor"]
        page = list_facts(agent=scope, filters=filters, cursor=cursor, limit=PAGE_SIZE, sort=sort)
        now = timezone.now()
        counts = status_counts(scope, filters)
        context |= {
            "sort": page.sort,
            "agent": agent,
            "scope_label": agent.agent_id if agent else all_agents_label(access).lower(),
            "page": page,
            "rows": [_row(access, fact, now) for fact in page.items],
            # The value of each slot in force now first (a value handed over to one from a
            # later date is history, yet in force until then), then the recorded statuses.
            "status_tabs": [
                *(
                    []
                    if filters.as_of
                    else [(IN_FORCE, "In force now", in_force_count(scope, filters))]
                ),
                *((v, str(label), counts[v]) for v, label in Status.choices),
            ],
            "total": sum(counts.values()),
            # A tab or pager link replaced the table: redraw the status field to match.
            "sync_status": is_fragment(request) and request.htmx.trigger != "facts-filters",
            "back": _list_query(form.data),
        }
    return render_page(request, "dashboard/facts.html", "table", access, context)


def _row(access: Access, fact: Fact, now: datetime) -> dict[str, Any]:
    """A fact of the list, with how this viewer names its agent (its rows may be of
    several agents, in several workspaces)."""
    return {**fact_to_dict(fact, now=now), "agent_ref": access.agent_ref(fact.agent)}


@login_required
@require_GET
@domain_errors
def suggest(request: HtmxHttpRequest) -> HttpResponse:
    """The ``<option>``s of a filter's ``<datalist>``: the values of ``field`` starting with
    ``q`` among the facts of the picked agent (all the viewer sees when none is picked)."""
    access = access_for_user(request.user)
    form = SuggestForm(request.GET)
    if not form.is_valid():
        raise BadRequest("Give field (user, subject or predicate) and q.")
    agent = form.cleaned_data["agent"]
    scope = access.agent(agent) if agent else access
    values = suggest_keys(scope, field=form.cleaned_data["field"], prefix=form.cleaned_data["q"])
    return render(request, "dashboard/facts.html#suggestions", {"values": values})


@login_required
@require_GET
@domain_errors
def facts_export(request: HtmxHttpRequest) -> HttpResponse | StreamingHttpResponse:
    """The Facts list with its filters, every page of it, as CSV or JSON (``format``).
    Whoever may see the list may export it, viewers included: it is a read."""
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request, all_agents=True)
    form = FactFilterForm(data, agent_choices=choices)
    if not choices or not form.is_valid():
        raise BadRequest("Fix the filters of the Facts list to export it.")
    agent = picked_scope(access, form)
    scope = agent or access
    now = timezone.now()

    def row(fact: Fact) -> dict[str, Any]:
        if agent is not None:
            fact.agent = agent  # one agent for every row: no join, no query per row
        return fact_to_dict(fact, now=now) | {"workspace": fact.agent.workspace.slug}

    filters = plan_prefix_filters(scope, form.filters())
    facts = facts_for_export(agent=scope, filters=filters)
    name = f"facts-{agent.agent_id if agent else 'all-agents'}"
    return export_response(request, facts, to_row=row, columns=FACT_EXPORT_COLUMNS, name=name)


# A longer ``back`` than any filter form makes is not a list's query: the breadcrumb ignores it.
BACK_MAX_CHARS = 2000


def _list_query(data: Mapping[str, Any]) -> str:
    """The Facts list's filters (those set) as a query string, for its links to a fact's page
    to carry as ``back``, so that the page's breadcrumb returns to the same list."""
    return urlencode([(name, value) for name, value in data.items() if value])


def _breadcrumb_query(request: HttpRequest, agent_ref: str) -> str:
    """The list's query the breadcrumb returns to: the ``back`` the list's link carried
    (only ever a query string for the Facts list of this fact's agent, or of every agent
    when the list showed them all; its filters and its order), or the agent alone."""
    back = request.GET.get("back", "")
    given = QueryDict(back if len(back) <= BACK_MAX_CHARS else "")
    query = {
        name: given[name]
        for name in given
        if (name in FactFilterForm.base_fields or name == "sort")
        and name != "cursor"
        and given.get(name)
    }
    if "agent" in query or not query:
        query["agent"] = agent_ref
    return _list_query(query)


def _detail(request: HtmxHttpRequest, access: Access, fact: Fact, **context: Any) -> HttpResponse:
    detail = fact_detail(fact)
    current = next((f for f in detail["history"] if f["status"] == Status.CURRENT), None)
    context = {"fact": detail, "current": current, "nav": "facts", **context}
    context["agent_ref"] = access.agent_ref(fact.agent)
    context["list_query"] = _breadcrumb_query(request, context["agent_ref"])
    context["comment_count"] = comment_count(fact)
    context.setdefault("delete_form", DeleteForm())
    context.setdefault("restore_form", RestoreForm())
    if access.can_act:
        context["forget_offers"] = forget_offers(access, fact)
    return render_page(request, "dashboard/fact_detail.html", "detail", access, context)


@login_required
@require_GET
@domain_errors
def fact_page(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    access = access_for_user(request.user)
    return _detail(request, access, get_fact(access=access, fact_id=fact_id))


def _after_action(
    request: HtmxHttpRequest, access: Access, fact: Fact, *, notice: str = "", error: str = ""
) -> HttpResponse:
    """htmx: the re-rendered detail fragment; without JavaScript: back to the page."""
    if is_fragment(request):
        return _detail(request, access, fact, notice=notice, error=error)
    flash(request, notice, error)
    return redirect(mount_url(request, "facts:detail", fact.pk))


def _resolve(request: HttpRequest, access: Access, fact_id: int) -> tuple[Fact, str, str]:
    """The accept/reject form handed to ``resolve_fact``, for the fact page and the review
    queue alike: the fact, then a notice or an error (someone settled it first)."""
    fact = get_fact(access=access, fact_id=fact_id)
    form = ResolveForm(request.POST)
    if not form.is_valid():
        raise BadRequest("action must be accept or reject")
    try:
        fact = resolve_fact(fact=fact, actor=access.actor, **form.cleaned_data)
    except Conflict as exc:
        return fact, "", exc.message
    verb = "accepted" if form.cleaned_data["action"] == Resolution.ACCEPT else "rejected"
    return fact, f"Value {verb}.", ""


@login_required
@require_POST
@domain_errors
def fact_resolve(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    access = acting_access(request)
    fact, notice, error = _resolve(request, access, fact_id)
    return _after_action(request, access, fact, notice=notice, error=error)


# The review queue's actions on a stale fact: each the one service of its rule.
FRESHNESS_ACTIONS = {
    "reconfirm": (reconfirm_fact, "Confirmed: its freshness starts again."),
    "end": (end_fact, "Ended: it is history now, valid until today."),
}


@login_required
@require_POST
@domain_errors
def review_freshness(request: HtmxHttpRequest, fact_id: int, action: str) -> HttpResponse:
    """Confirm or end a stale fact. htmx: the settled item in its place; without
    JavaScript: back to the queue."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = ReasonForm(request.POST)
    if not form.is_valid():
        raise BadRequest("the reason is too long")
    service, notice = FRESHNESS_ACTIONS[action]
    error = ""
    try:
        fact = service(fact=fact, actor=access.actor, reason=form.cleaned_data["reason"])
    except Conflict as exc:
        notice, error = "", exc.message
    if not is_fragment(request):
        flash(request, notice, error)
        return redirect(mount_url(request, "facts:review"))
    context = {"access": access, "fact": fact_to_dict(fact), "notice": notice, "error": error}
    return render(request, "dashboard/review.html#refreshed", context)


@login_required
@require_POST
@domain_errors
def fact_reopen(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """A rejected fact back into use, the trust rules applied again: it waits in review
    again, or becomes current (the slot is empty, or its value less trusted)."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = ReasonForm(request.POST)
    if not form.is_valid():
        raise BadRequest("the reason is too long")
    try:
        fact = reopen_fact(fact=fact, actor=access.actor, reason=form.cleaned_data["reason"])
    except Conflict as exc:
        return _after_action(request, access, fact, error=exc.message)
    notice = f"Reopened: the fact is {fact.status} now."
    return _after_action(request, access, fact, notice=notice)


@login_required
@require_POST
@domain_errors
def fact_delete(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = DeleteForm(request.POST)
    if not form.is_valid():
        return _detail(request, access, fact, delete_form=form)
    try:
        fact = delete_fact(fact=fact, actor=access.actor, reason=form.cleaned_data["reason"])
    except Conflict as exc:
        return _after_action(request, access, fact, error=exc.message)
    return _after_action(request, access, fact, notice="Fact deleted; its record stays.")


RESTORED = {
    RestoreOutcome.CURRENT: "Fact restored: it is the current value again.",
    RestoreOutcome.DISPUTED: "Fact restored as disputed: the current value is more trusted, "
    "so it waits for review.",
    RestoreOutcome.HISTORY: "Fact restored as history: the current value already says the "
    "same, or it no longer holds.",
}


@login_required
@require_POST
@domain_errors
def fact_restore(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = RestoreForm(request.POST)
    if not form.is_valid():
        return _detail(request, access, fact, restore_form=form)
    try:
        result = restore_fact(fact=fact, actor=access.actor, reason=form.cleaned_data["reason"])
    except Conflict as exc:
        return _after_action(request, access, fact, error=exc.message)
    return _after_action(request, access, result.fact, notice=RESTORED[result.outcome])


@list_page("Changes", *ChangesForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def changes(request: HtmxHttpRequest) -> HttpResponse:
    """What changed in the facts of one visible agent, or of all of them, between two
    times (the last week by default), newest first (or oldest first). Reading it writes
    nothing."""
    access = access_for_user(request.user)
    form = ChangesForm(request.GET, agent_choices=agent_choices(access))
    sort = CHANGE_SORTING.parse(request.GET.get("sort"))
    context: dict[str, Any] = {"form": form, "nav": "changes"}
    context |= {"sorting": CHANGE_SORTING, "sort": sort}
    if form.is_valid():
        ref = form.cleaned_data["agent"]
        agents = [access.agent(ref)] if ref else access.agents()
        page = list_changes(
            agents=agents,
            filters=form.filters(),
            cursor=form.cleaned_data["cursor"],
            limit=PAGE_SIZE,
            oldest_first=not sort.descending,
        )
        now = timezone.now()
        rows = [change_to_dict(change, now=now) for change in page.items]
        for row, change in zip(rows, page.items, strict=True):
            row["workspace"] = change.fact.agent.workspace.slug
        context |= {"page": page, "rows": rows, "filters": form.filters()}
    return render_page(request, "dashboard/changes.html", "changes", access, context)
