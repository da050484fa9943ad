"""The review queue: disputed facts filtered and grouped by slot, settled one by one or in
bulk, with a short window to undo; and the viewer's own decisions.

Like every dashboard view, each starts with the access helper: another workspace's fact is
a 404. With htmx a view answers with the fragment that changed (the slot's group, or the
queue) and the undo toast; without JavaScript, it redirects back to the queue with its
filters, where the toast offers the same Undo form."""

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    agent_choices,
    domain_errors,
    flash,
    is_fragment,
    mount_url,
    render_page,
)
from dewee.errors import Conflict
from dewee.forms import PageForm
from facts.exceptions import FactNotFound
from facts.forms import (
    BULK_MAX_FACTS,
    BulkResolveForm,
    FactIdsField,
    ResolveForm,
    ReviewFilterForm,
    UndoForm,
)
from facts.models import Fact
from facts.queries import disputed_count, get_fact
from facts.services import (
    Resolution,
    resolve_fact,
    resolve_facts,
    undo_resolutions,
    undo_seconds_left,
)
from facts.staleness import NEEDS_RECONFIRMATION_LIMIT, needs_reconfirmation
from facts.triage import (
    ReviewFilters,
    decisions_by,
    disputes_matching,
    grouped_review_queue,
    slot_group,
    slot_key,
)
from tenancy.access import Access, access_for_user

# The queue's own parameters, carried back after an action (nothing else is).
FILTER_KEYS = ("workspace", "agent", "predicate", "age", "before", "assigned", "snoozed")

# The queue leads; the stale facts below it show this many unless the person asks for
# more (each is a form of three actions: 50 of them were half the page's time).
STALE_SHOWN = 10


def _filter_form(access: Access, data: QueryDict) -> ReviewFilterForm:
    choices = agent_choices(access)
    # Where every workspace is visible, the agents come grouped by workspace slug.
    workspaces = None if access.workspace is not None else [slug for slug, _ in choices]
    return ReviewFilterForm(data, workspaces=workspaces, agent_choices=choices)


def _filters(access: Access, form: ReviewFilterForm, me: int | None) -> ReviewFilters:
    data = form.cleaned_data
    workspace = None
    if data.get("workspace"):
        workspace = access.agents().filter(workspace__slug=data["workspace"]).first()
    return ReviewFilters(
        workspace=workspace.workspace if workspace else None,
        agent=access.agent(data["agent"]) if data["agent"] else None,
        predicate=data["predicate"],
        recorded_before=form.recorded_before(timezone.now()),
        assigned=data["assigned"],
        me=me,
        snoozed=data["snoozed"],
    )


def _queue_query(raw: str) -> str:
    """Only the queue's filters of a carried query string, encoded again."""
    carried = QueryDict(raw)
    kept = QueryDict(mutable=True)
    for key in FILTER_KEYS:
        if carried.get(key):
            kept[key] = carried[key]
    return kept.urlencode()


def undo_toast(access: Access, ids: list[int]) -> dict[str, Any] | None:
    """The Undo offer for ``ids`` just settled by ``access.actor``, while its window is
    open (facts.services.undo_seconds_left)."""
    seconds = undo_seconds_left(actor=access.actor, fact_ids=ids)
    return {"ids": ids, "seconds": seconds} if seconds else None


def _queue_context(
    access: Access, data: QueryDict, *, me: int | None, undo: list[int], select_all: bool = False
) -> dict[str, Any]:
    form = _filter_form(access, data)
    context: dict[str, Any] = {"form": form, "nav": "review", "select_all": select_all}
    context["query"] = _queue_query(data.urlencode())
    if not form.is_valid():
        context["undo"] = undo_toast(access, undo) if access.can_act else None
        return context
    filters = _filters(access, form, me)
    groups, total = grouped_review_queue(access, filters)
    context |= {"groups": groups, "total": total, "shown": sum(len(g["items"]) for g in groups)}
    # What needs re-confirmation below the queue follows the queue's filters.
    shown = NEEDS_RECONFIRMATION_LIMIT if data.get("stale") == "all" else STALE_SHOWN
    stale = needs_reconfirmation(access, filters=filters, limit=shown + 1)
    context |= {"stale": stale[:shown], "more_stale": len(stale) > shown}
    context["undo"] = undo_toast(access, undo) if access.can_act else None
    return context


# A redirect names at most this many settled ids in its URL (servers refuse long request
# lines); more are kept in the session under UNDO_SESSION_KEY and the URL says "session".
URL_UNDO_MAX = 200
UNDO_SESSION_KEY = "dewee.review_undo"


def _undo_param(request: HttpRequest) -> list[int]:
    raw = request.GET.get("undo", "")
    if raw == "session":
        values = [str(i) for i in request.session.pop(UNDO_SESSION_KEY, [])]
    else:
        values = raw.split(",")[:URL_UNDO_MAX]
    try:
        return FactIdsField(required=False).clean(values)
    except forms.ValidationError:  # a hand-made link: no toast
        return []


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def review(request: HtmxHttpRequest) -> HttpResponse:
    """Disputed facts of every visible agent matching the filters, oldest first, grouped by
    slot under its current value; then the stale facts that need re-confirmation."""
    access = access_for_user(request.user)
    select_all = request.GET.get("select") == "all"
    context = _queue_context(
        access, request.GET, me=request.user.pk, undo=_undo_param(request), select_all=select_all
    )
    return render_page(request, "dashboard/review.html", "queue", access, context)


def _back_to_queue(request: HttpRequest, query: str, undo: list[int]) -> HttpResponse:
    params = QueryDict(query, mutable=True)
    if len(undo) > URL_UNDO_MAX:
        request.session[UNDO_SESSION_KEY] = undo
        params["undo"] = "session"
    elif undo:
        params["undo"] = ",".join(map(str, undo))
    url = mount_url(request, "facts:review")
    return redirect(f"{url}?{params.urlencode()}" if params else url)


@login_required
@require_POST
@domain_errors
def review_resolve(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """One dispute accepted or rejected. htmx: its slot's group as it is now (every
    neighbour beside the new current value), the toast and the nav badge out of band."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = ResolveForm(request.POST)
    if not form.is_valid():
        raise BadRequest("action must be accept or reject")
    error, notice, undo = "", "", []
    try:
        fact = resolve_fact(fact=fact, actor=access.actor, **form.cleaned_data)
        verb = "accepted" if form.cleaned_data["action"] == Resolution.ACCEPT else "rejected"
        notice, undo = f"Value “{fact.value}” {verb}.", [fact.pk]
    except Conflict as exc:
        error = exc.message
    query = _queue_query(request.POST.get("next", ""))
    if not is_fragment(request):
        flash(request, notice, error)
        return _back_to_queue(request, query, undo)
    context = {
        "access": access,
        "group": slot_group(fact),
        "key": slot_key(fact.slot),
        "notice": notice,
        "error": error,
        "undo": undo_toast(access, undo),
        "query": query,
        "review_count": disputed_count(access),
    }
    return render(request, "dashboard/review.html#settled", context)


def _after_bulk(
    request: HtmxHttpRequest,
    access: Access,
    query: str,
    notice: str,
    failed: list[str],
    undo: list[int],
) -> HttpResponse:
    error = " ".join(failed)
    if not is_fragment(request):
        if notice:
            flash(request, notice)
        if error:
            flash(request, "", error)
        return _back_to_queue(request, query, undo)
    context = _queue_context(access, QueryDict(query), me=request.user.pk, undo=undo)
    context |= {"notice": notice, "error": error, "review_count": disputed_count(access)}
    return render(request, "dashboard/review.html#refresh", {"access": access, **context})


def _count(n: int, what: str = "disputed value") -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


# The confirmation lists this many of the facts it names; it counts them all.
CONFIRM_LISTED = 50


def _matching_ids(access: Access, query: str, me: int | None) -> list[int]:
    """Every dispute the queue's filters in ``query`` match, oldest first, up to
    BULK_MAX_FACTS (the queue's own order)."""
    form = _filter_form(access, QueryDict(query))
    if not form.is_valid():
        raise BadRequest("Fix the queue's filters before settling what they match.")
    matching = disputes_matching(access, _filters(access, form, me)).order_by("recorded_at", "id")
    return list(matching.values_list("id", flat=True)[:BULK_MAX_FACTS])


def _confirm_bulk(
    request: HtmxHttpRequest, access: Access, form: BulkResolveForm, query: str, ids: list[int]
) -> HttpResponse:
    """The page that names what a bulk action would settle (the first CONFIRM_LISTED, and
    how many in all) and asks; its form carries the ids, so what is confirmed is what is done."""
    if not ids:
        raise BadRequest("No disputed fact matches: nothing to settle.")
    visible = Fact.objects.filter(agent__in=access.agents())
    missing = set(ids) - set(visible.filter(pk__in=ids).values_list("pk", flat=True))
    if missing:  # another workspace's, or gone: as any fact not found
        raise FactNotFound(f"Fact {min(missing)} not found")
    listed = visible.filter(pk__in=ids[:CONFIRM_LISTED])
    position = {pk: at for at, pk in enumerate(ids)}
    context = {
        "facts": sorted(listed, key=lambda f: position[f.pk]),
        "ids": ids,
        "count": len(ids),
        "more": max(0, len(ids) - CONFIRM_LISTED),
        "form": form,
        "query": query,
        "nav": "review",
        "undo_seconds": settings.DEWEE_UNDO_SECONDS,
    }
    return render_page(request, "dashboard/review_confirm.html", "confirm", access, context)


@login_required
@require_POST
@domain_errors
def review_bulk(request: HtmxHttpRequest) -> HttpResponse:
    """Accept or reject the selected disputes, each through resolve_fact. Unconfirmed (no
    JavaScript): a page that lists them and asks; confirmed: the queue, with what failed."""
    access = acting_access(request)
    form = BulkResolveForm(request.POST)
    if not form.is_valid():
        raise BadRequest(" ".join(str(e) for errors in form.errors.values() for e in errors))
    data = form.cleaned_data
    query = _queue_query(data["next"])
    ids = _matching_ids(access, query, request.user.pk) if data["matching"] else data["fact"]
    if not data["confirm"]:
        return _confirm_bulk(request, access, form, query, ids)
    settled = resolve_facts(
        access=access, fact_ids=ids, action=data["action"], reason=data["reason"]
    )
    verb = "Accepted" if data["action"] == Resolution.ACCEPT else "Rejected"
    notice = f"{verb} {_count(len(settled.done))}." if settled.done else ""
    undo = [f.pk for f in settled.done]
    return _after_bulk(request, access, query, notice, settled.failed, undo)


@login_required
@require_POST
@domain_errors
def review_undo(request: HtmxHttpRequest) -> HttpResponse:
    """Undo the viewer's own accepts and rejects of a moment ago, newest first."""
    access = acting_access(request)
    form = UndoForm(request.POST)
    if not form.is_valid():
        raise BadRequest("Name the facts to undo.")
    settled = undo_resolutions(access=access, fact_ids=form.cleaned_data["fact"])
    notice = f"Undone: {_count(len(settled.done))} back in review." if settled.done else ""
    query = _queue_query(form.cleaned_data["next"])
    return _after_bulk(request, access, query, notice, settled.failed, [])


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def review_mine(request: HtmxHttpRequest) -> HttpResponse:
    """The viewer's own decisions on disputed facts, newest first."""
    access = access_for_user(request.user)
    form = PageForm(request.GET)
    if not form.is_valid():
        raise BadRequest("not a cursor this server returned")
    page = decisions_by(access, cursor=form.cleaned_data["cursor"] or None)
    context = {"page": page, "nav": "review", "now": timezone.now()}
    return render_page(request, "dashboard/review_mine.html", "decisions", access, context)
