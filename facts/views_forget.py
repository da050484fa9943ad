"""The dashboard's forget of facts: what a forget erases (offered on a fact's page, previewed
on the forget page), the typed confirmation, and the receipt that is all that remains after
(facts.services.forget_facts erases for good). Mounted with the Facts pages (facts.urls).
"""

from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    mount_url,
    render_page,
)
from facts.forms import ForgetForm
from facts.models import USER_SUBJECT, Fact
from facts.queries import get_receipt
from facts.services import (
    ForgetCoverage,
    ForgetScope,
    count_forgettable,
    forget_coverage,
    forget_facts,
    forget_scope,
    subject_scope_of,
)
from tenancy.access import Access, access_for_user
from tenancy.queries import receipt_to_dict


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


def forget_offers(access: Access, fact: Fact) -> list[dict[str, Any]]:
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
