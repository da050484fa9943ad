"""The dashboard's "Check text" page: what a user's words contradict, confirm and add among
the facts an agent holds about them, through ``check_text``, the one function the API and
the CLI call too.

Checking is a read: the first submit only previews and writes nothing, so a viewer may do
it. Applying is a second, explicit POST of the same agent, user and text, for those who may
change facts. Bad input is shown on its field with the domain's own message, as a 400.
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    mount_url,
    render_page,
)
from dewee.errors import InvalidInput
from facts.forms import CheckTextForm
from facts.models import SourceKind
from facts.services import Action, SourceInput, check_result_to_dict, check_text
from tenancy.access import Access, access_for_user
from tenancy.models import Agent

PAGE = "dashboard/fact_check.html"


def _panel(
    request: HtmxHttpRequest,
    access: Access,
    form: CheckTextForm,
    *,
    agent: Agent | None,
    status: int = 200,
    **context: Any,
) -> HttpResponse:
    """The whole page, or for htmx its panel: the form, and the result when there is one."""
    context = {"form": form, "agent": agent, "nav": "facts", **context}
    response = render_page(request, PAGE, "panel", access, context)
    response.status_code = status
    return response


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def check_page(request: HtmxHttpRequest) -> HttpResponse:
    """The empty form for one visible agent (the first one when none is named)."""
    access = access_for_user(request.user)
    if requested := request.GET.get("agent"):
        agent = access.agent(requested)
    elif (first := access.agents().first()) is not None:
        agent = first
    else:
        return redirect(mount_url(request, "facts:list"))
    initial = {"agent": access.agent_ref(agent), "user": request.GET.get("user", "")}
    form = CheckTextForm(initial=initial)
    return _panel(request, access, form, agent=agent)


def _check(request: HtmxHttpRequest, access: Access, *, apply: bool) -> HttpResponse:
    form = CheckTextForm(request.POST)
    if not form.is_valid():
        return _panel(request, access, form, agent=None, status=400)
    data = form.cleaned_data
    agent = None
    # Typed into the dashboard by a signed-in person: the operator's account of the words.
    source = SourceInput(kind=SourceKind.OPERATOR, operator=request.user.get_username())
    try:
        agent = access.agent(data["agent"])
        result = check_text(
            agent=agent,
            user=data["user"],
            text=data["text"],
            apply=apply,
            source=source,
            actor=access.actor,
        )
    except InvalidInput as exc:
        form.add_domain_error(exc)
        return _panel(request, access, form, agent=agent, status=400)
    checked = check_result_to_dict(result)
    changes = [a for a in checked["suggested_actions"] if a["action"] != Action.NONE]
    context: dict[str, Any] = {"result": checked, "changes": changes, "user": result.user}
    return _panel(request, access, form, agent=agent, applied=apply, **context)


@login_required
@require_POST
@vary_on_headers("HX-Request")
@domain_errors
def check_preview(request: HtmxHttpRequest) -> HttpResponse:
    """What the text would change; nothing is written."""
    return _check(request, access_for_user(request.user), apply=False)


@login_required
@require_POST
@vary_on_headers("HX-Request")
@domain_errors
def check_apply(request: HtmxHttpRequest) -> HttpResponse:
    """The previewed changes, applied through the fact services: only for those who may
    change facts (a viewer gets 403 and nothing is written)."""
    return _check(request, acting_access(request), apply=True)
