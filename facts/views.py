"""The dashboard's Facts pages: HTML adapters over facts.queries and facts.services.

Every view starts with one call to the access helper, so a person sees only the workspaces
they may see; an object of another workspace is a 404, exactly like a missing one. With
htmx, a view returns the named partial that changed; without JavaScript, the whole page.
"""

from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    agent_picker,
    domain_errors,
    flash,
    is_fragment,
    mount_url,
    picked_agent,
    render_page,
)
from dewee.errors import Conflict
from facts.forms import DeleteForm, FactFilterForm, ForgetForm, ReasonForm, ResolveForm
from facts.models import USER_SUBJECT, Fact, Status
from facts.queries import (
    fact_detail,
    fact_to_dict,
    get_fact,
    get_receipt,
    list_facts,
    status_counts,
)
from facts.services import (
    ForgetCoverage,
    ForgetScope,
    Resolution,
    count_forgettable,
    delete_fact,
    end_fact,
    forget_coverage,
    forget_facts,
    forget_scope,
    reconfirm_fact,
    reopen_fact,
    resolve_fact,
    subject_scope_of,
)
from tenancy.access import Access, access_for_user
from tenancy.queries import receipt_to_dict

PAGE_SIZE = 25


@login_required
@require_GET
def dashboard_home(request: HttpRequest) -> HttpResponse:
    return redirect(mount_url(request, "facts:list"))


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Staff to the dashboard, workspace members to /app/, anyone else to the sign-in page."""
    if not request.user.is_authenticated:
        return redirect("login")
    return redirect("facts:home" if request.user.is_staff else "app:home")


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def facts_list(request: HtmxHttpRequest) -> HttpResponse:
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request)
    form = FactFilterForm(data, agent_choices=choices)
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "facts"}
    if choices and form.is_valid():
        agent = picked_agent(access, form)
        filters = form.filters()
        page = list_facts(
            agent=agent, filters=filters, cursor=form.cleaned_data["cursor"], limit=PAGE_SIZE
        )
        now = timezone.now()
        counts = status_counts(agent, filters)
        context |= {
            "agent": agent,
            "page": page,
            "rows": [fact_to_dict(fact, now=now) for fact in page.items],
            "status_tabs": [(v, str(label), counts[v]) for v, label in Status.choices],
            "total": sum(counts.values()),
            # A tab or pager link replaced the table: redraw the status field to match.
            "sync_status": is_fragment(request) and request.htmx.trigger != "facts-filters",
        }
    return render_page(request, "dashboard/facts.html", "table", access, context)


def _facts(n: int) -> str:
    return f"{n} fact{'s' if n != 1 else ''}"


def scope_label(scope: ForgetScope) -> str:
    """'user “u1”', 'subject “acme”', 'subject “user” of user “u1” only'."""
    if scope.subject is None:
        return f"user “{scope.user}”"
    if scope.user is None:
        return f"subject “{scope.subject}”"
    return f"subject “{scope.subject}” of user “{scope.user}” only"


def forget_covers(scope: ForgetScope, coverage: ForgetCoverage) -> str:
    """Exactly what a forget erases, as the fact page offers it and the forget page
    previews it: how many facts, and about whom."""
    facts = _facts(coverage.facts)
    if scope.subject is None:
        return f"{facts} about user “{scope.user}”, whatever their subject"
    if scope.user is not None:
        return f"{facts} with subject “{scope.subject}” about user “{scope.user}” only"
    whom = []
    if coverage.user_count:
        named = ", ".join(coverage.users)
        if coverage.user_count > len(coverage.users):
            named += f" and {coverage.user_count - len(coverage.users)} more"
        users = "user" if coverage.user_count == 1 else "users"
        whom.append(f"across {coverage.user_count} {users}: {named}")
    if coverage.without_user:
        whom.append(f"{_facts(coverage.without_user)} about no particular user")
    what = f"{facts} with subject “{scope.subject}”"
    return f"{what}, {' and '.join(whom)}" if whom else what


def _forget_offers(access: Access, fact: Fact) -> list[dict[str, Any]]:
    """The forgets the fact page offers: its user's facts, and its subject's (for the
    placeholder subject "user", only this user's: see subject_scope_of)."""
    scopes = [forget_scope(user=fact.user_ref) if fact.user_ref else None, subject_scope_of(fact)]
    offers = []
    for scope in filter(None, scopes):
        coverage = forget_coverage(agent=fact.agent, scope=scope)
        offers.append(
            {
                "query": urlencode({"agent": access.agent_ref(fact.agent), **scope.as_dict()}),
                "label": f"Forget {scope_label(scope)} ({_facts(coverage.facts)})",
                "covers": forget_covers(scope, coverage),
            }
        )
    return offers


def _detail(request: HtmxHttpRequest, access: Access, fact: Fact, **context: Any) -> HttpResponse:
    detail = fact_detail(fact)
    current = next((f for f in detail["history"] if f["status"] == Status.CURRENT), None)
    context = {"fact": detail, "current": current, "nav": "facts", **context}
    context["agent_ref"] = access.agent_ref(fact.agent)
    context.setdefault("delete_form", DeleteForm())
    if access.can_act:
        context["forget_offers"] = _forget_offers(access, fact)
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


@login_required
@require_http_methods(["GET", "POST"])
@domain_errors
def facts_forget(request: HtmxHttpRequest) -> HttpResponse:
    """GET: what would be erased, and the typed confirmation; POST: erase, then redirect to
    the receipt, so a refresh cannot submit again."""
    access = acting_access(request)
    form = ForgetForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        raise BadRequest("Give an agent and exactly one of a user or a subject.")
    agent = access.agent(form.cleaned_data["agent"])
    if request.method == "POST" and form.confirmed():
        receipt = forget_facts(agent=agent, scope=form.scope(), actor=access.actor)
        url = mount_url(request, "facts:receipt", receipt.pk)
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    scope = form.scope()
    counts = count_forgettable(agent=agent, scope=scope)
    covers = forget_covers(scope, forget_coverage(agent=agent, scope=scope))
    context = {"form": form, "agent": agent, "counts": counts, "covers": covers}
    context |= {"scope": scope_label(scope), "generic": scope.subject == USER_SUBJECT}
    return render_page(request, "dashboard/forget.html", "panel", access, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def receipt_page(request: HtmxHttpRequest, receipt_id: UUID) -> HttpResponse:
    access = access_for_user(request.user)
    receipt = get_receipt(access=access, receipt_id=receipt_id)
    # The agent may be gone; its id and workspace stay on the receipt.
    agent_ref = receipt.agent_ref
    if access.workspace is None:
        agent_ref = f"{receipt.workspace.slug}/{agent_ref}"
    context = {"receipt": receipt_to_dict(receipt), "agent_ref": agent_ref}
    return render_page(request, "dashboard/receipt.html", "receipt", access, context)
