"""The dashboard's audit log and erasure receipts: staff see every workspace's, a
workspace's managers see their workspace's, viewers neither (a 403 that says so). Mounted
with the Facts pages under /dashboard/audit/ and /app/audit/ (facts.urls). They live here,
not in tenancy, because an event links to the fact, memory or receipt it is about while
that still exists, and tenancy knows nothing of facts and memories.

Reads only: listing, filtering and paging write nothing."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    agent_choices,
    domain_errors,
    list_page,
    mount_url,
    render_page,
)
from dewee.export import export_response
from dewee.pagination import sorted_page
from facts.models import Fact
from memory.models import Memory
from tenancy.access import Access, access_for_user
from tenancy.forms import AuditFilterForm
from tenancy.models import AuditEvent, ErasureReceipt
from tenancy.queries import (
    AUDIT_SORTING,
    RECEIPT_SORTING,
    AuditFilters,
    audit_events,
    erasure_receipts,
    erasures_of_user,
)
from tenancy.validation import USER_MAX_CHARS

PAGE_SIZE = 50
# Receipts are few (one per erasure); the page shows the newest this many.
RECEIPTS_SHOWN = 200
# The kinds of target that have a page of their own: (model, URL name).
_TARGET_PAGES: dict[str, tuple[Any, str]] = {
    "fact": (Fact, "facts:detail"),
    "memory": (Memory, "memory:detail"),
    "erasure": (ErasureReceipt, "facts:receipt"),
}


def audit_access(request: HtmxHttpRequest) -> Access:
    """Staff and managers; a viewer is told what they may not see."""
    access = access_for_user(request.user)
    if not access.can_act:
        raise PermissionDenied(
            "Viewers may not see the audit log or the erasure receipts: "
            "only the workspace's managers may. Ask one of them."
        )
    return access


def _target_urls(request: HtmxHttpRequest, events: list[AuditEvent]) -> dict[tuple[str, str], str]:
    """Each event's target page where the target still exists: one query per kind shown."""
    urls = {}
    for kind, (model, name) in _TARGET_PAGES.items():
        ids = {e.target_id for e in events if e.target_type == kind and e.target_id}
        if kind != "erasure":
            ids = {i for i in ids if i.isdigit()}
        if not ids:
            continue
        for pk in model.objects.filter(pk__in=ids).values_list("pk", flat=True):
            urls[(kind, str(pk))] = mount_url(request, name, pk)
    return urls


def _audit_filters(access: Access, form: AuditFilterForm) -> AuditFilters:
    """The valid ``form``'s filters; its agent loaded through ``access`` (another
    workspace's is a 404)."""
    data = form.cleaned_data
    since, until = form.day_bounds()
    agent = access.agent(data["agent"]) if data["agent"] else None
    return AuditFilters(
        actor=data["actor"].strip(), action=data["action"], agent=agent,
        user=data["user"].strip(), since=since, until=until,
    )  # fmt: skip


@list_page("Audit log", *AuditFilterForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def audit_log(request: HtmxHttpRequest) -> HttpResponse:
    access = audit_access(request)
    form = AuditFilterForm(request.GET, agent_choices=agent_choices(access))
    sort = AUDIT_SORTING.parse(request.GET.get("sort"))
    context: dict[str, Any] = {"form": form, "nav": "audit"}
    context |= {"sorting": AUDIT_SORTING, "sort": sort}
    if form.is_valid():
        filters = _audit_filters(access, form)
        events, next_cursor, sort = sorted_page(
            audit_events(access, filters),
            sorting=AUDIT_SORTING,
            sort=sort,
            cursor=form.cleaned_data["cursor"],
            limit=PAGE_SIZE,
        )
        urls = _target_urls(request, events)
        rows = [(e, urls.get((e.target_type, e.target_id))) for e in events]
        context |= {"rows": rows, "page": {"next_cursor": next_cursor}, "agent": filters.agent}
        context["sort"] = sort
    return render_page(request, "dashboard/audit.html", "table", access, context)


# The columns of an audit log export (dewee.export).
AUDIT_EXPORT_COLUMNS = [
    "id", "created_at", "workspace", "agent_id", "actor", "action", "target_type",
    "target_id", "details",
]  # fmt: skip


def _audit_row(event: AuditEvent) -> dict[str, Any]:
    return {
        "id": event.pk,
        "created_at": event.created_at,
        "workspace": event.workspace.slug,
        "agent_id": event.agent.agent_id if event.agent else None,
        "actor": event.actor,
        "action": event.action,
        "target_type": event.target_type,
        "target_id": event.target_id,
        "details": event.details,
    }


@login_required
@require_GET
@domain_errors
def audit_export(request: HtmxHttpRequest) -> HttpResponse | StreamingHttpResponse:
    """The audit log with its filters, every page of it, as CSV or JSON (``format``)."""
    access = audit_access(request)
    form = AuditFilterForm(request.GET, agent_choices=agent_choices(access))
    if not form.is_valid():
        raise BadRequest("Fix the filters of the audit log to export it.")
    events = audit_events(access, _audit_filters(access, form))
    return export_response(
        request, events, to_row=_audit_row, columns=AUDIT_EXPORT_COLUMNS, name="audit"
    )


@list_page("Erasure receipts", "user")
@login_required
@require_GET
@domain_errors
def receipts_list(request: HtmxHttpRequest) -> HttpResponse:
    """The newest receipts (or the first in the order asked); with ``user``, whether that
    user id was erased, and when (the receipts that name it, in every workspace the viewer
    sees)."""
    access = audit_access(request)
    user = request.GET.get("user", "").strip()[:USER_MAX_CHARS]
    sort = RECEIPT_SORTING.parse(request.GET.get("sort"))
    found = erasures_of_user(access, user, sort) if user else erasure_receipts(access, sort)
    receipts = list(found[: RECEIPTS_SHOWN + 1])
    context = {
        "receipts": receipts[:RECEIPTS_SHOWN],
        "more": len(receipts) > RECEIPTS_SHOWN,
        "shown": RECEIPTS_SHOWN,
        "looked_up": user,
        "nav": "audit",
        "sorting": RECEIPT_SORTING,
        "sort": sort,
    }
    return render_page(request, "dashboard/receipts.html", "receipts", access, context)
