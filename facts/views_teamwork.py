"""The review shared by a team: a dispute's detail panel (its evidence, its slot's history,
who has it, its comment thread), and the forms that assign it, snooze it and comment.

The panel is a fragment for htmx (the queue's side panel follows the selected dispute) and
a whole page without JavaScript; each form answers htmx with the panel as it is now, and
otherwise redirects back to the panel's page."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    flash,
    is_fragment,
    mount_url,
    render_page,
)
from dewee.errors import DeweeError
from facts.forms_teamwork import AssignForm, CommentForm, SnoozeForm
from facts.models import Fact, Status
from facts.queries import fact_detail, get_fact
from facts.services.teamwork import add_comment, assign_dispute, reviewers, snooze_dispute
from facts.triage import teamwork_of
from tenancy.access import Access, access_for_user


def _choices(fact: Fact) -> list[tuple[int, str]]:
    return [(user.pk, user.get_username()) for user in reviewers(fact.agent.workspace)]


def _panel(request: HtmxHttpRequest, access: Access, fact: Fact, **extra: Any) -> HttpResponse:
    work = teamwork_of(fact)
    context: dict[str, Any] = {
        "fact": fact_detail(fact),
        "work": work,
        "nav": "review",
        "disputed": fact.status == Status.DISPUTED,
        "comment_form": extra.pop("comment_form", None) or CommentForm(),
        **extra,
    }
    if access.can_act and fact.status == Status.DISPUTED:
        initial = {"assignee": work["assignee_id"] or ""}
        context["assign_form"] = AssignForm(initial=initial, choices=_choices(fact))
        context["snooze_form"] = SnoozeForm()
    return render_page(request, "dashboard/review_panel.html", "panel", access, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def review_panel(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """The fact's evidence, its slot's history and what the team did about it."""
    access = access_for_user(request.user)
    return _panel(request, access, get_fact(access=access, fact_id=fact_id))


def _answer(
    request: HtmxHttpRequest,
    access: Access,
    fact: Fact,
    *,
    notice: str,
    error: str,
    **extra: Any,
) -> HttpResponse:
    """The panel as it is now: for htmx; without JavaScript, with what was refused and the
    form as typed (a 400), else a redirect back to the panel's page with the notice."""
    fresh = get_fact(access=access, fact_id=fact.pk)
    if is_fragment(request):
        return _panel(request, access, fresh, notice=notice, error=error, **extra)
    if error:
        response = _panel(request, access, fresh, error=error, **extra)
        response.status_code = 400
        return response
    flash(request, notice)
    return redirect(mount_url(request, "facts:review_panel", fact.pk))


@login_required
@require_POST
@domain_errors
def dispute_assign(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """Give a dispute to someone who may settle it, or to nobody."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = AssignForm(request.POST, choices=_choices(fact))
    notice, error = "", ""
    if not form.is_valid():
        error = "Choose someone who may settle this dispute."
    else:
        try:
            triage = assign_dispute(
                fact=fact, assignee_id=form.cleaned_data["assignee"], actor=access.actor
            )
            name = triage.assignee.get_username() if triage.assignee else ""
            notice = f"Assigned to {name}." if name else "Assigned to nobody."
        except DeweeError as exc:
            error = exc.message
    return _answer(request, access, fact, notice=notice, error=error)


@login_required
@require_POST
@domain_errors
def dispute_snooze(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """Put a dispute aside until a time, or back in the queue now."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = SnoozeForm(request.POST)
    notice, error, asleep = "", "", False
    if not form.is_valid():
        error = " ".join(str(e) for errors in form.errors.values() for e in errors)
    else:
        now = timezone.now()
        try:
            until = form.snoozed_until(now)
            snooze_dispute(fact=fact, until=until, actor=access.actor, now=now)
            asleep = until is not None
            notice = (
                f"Snoozed: hidden from the queue until {until:%Y-%m-%d %H:%M} UTC."
                if until is not None
                else "Back in the queue."
            )
        except DeweeError as exc:
            error = exc.message
    # The queue hides it now: the panel's answer takes its line out of the list too.
    return _answer(request, access, fact, notice=notice, error=error, put_aside=asleep)


@login_required
@require_POST
@domain_errors
def fact_comment(request: HtmxHttpRequest, fact_id: int) -> HttpResponse:
    """A comment at the end of the fact's thread."""
    access = acting_access(request)
    fact = get_fact(access=access, fact_id=fact_id)
    form = CommentForm(request.POST)
    notice, error = "", ""
    if not form.is_valid():
        error = " ".join(str(e) for errors in form.errors.values() for e in errors)
    else:
        try:
            assert isinstance(request.user, User)  # signed in (login_required)
            add_comment(fact=fact, author=request.user, body=form.cleaned_data["body"])
            notice = "Comment added."
        except DeweeError as exc:
            error = exc.message
    extra = {"comment_form": form} if error else {}
    return _answer(request, access, fact, notice=notice, error=error, **extra)
