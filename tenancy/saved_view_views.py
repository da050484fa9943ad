"""A person's saved views of the dashboard's lists: save the list shown (its filters and
order) under a name, and delete one after a confirmation. Opening one is a link to the list
with its query (each list page draws its own views, and the command palette all of them:
dewee.dashboard.saved_views_context).

Every signed-in person who sees the lists may save views, viewers included: a view is their
own setting, not workspace data. Each view is loaded for its owner only: another person's
is a 404, exactly like one that does not exist. Plain forms, with and without JavaScript;
a refused save or delete writes nothing."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dewee.dashboard import (
    HtmxHttpRequest,
    domain_errors,
    flash,
    list_page_named,
    mount_url,
    render_page,
    saved_view_links,
)
from dewee.errors import InvalidInput
from tenancy.access import access_for_user
from tenancy.forms import SaveViewForm
from tenancy.queries import get_saved_view, saved_views_of
from tenancy.services import delete_saved_view, save_view


@login_required
@require_GET
def views_list(request: HtmxHttpRequest) -> HttpResponse:
    """The person's saved views, every page's, as the command palette lists them (it asks
    when it opens: no other page pays for them)."""
    views = saved_view_links(request, saved_views_of(request.user))
    return render(request, "dashboard/saved_view_links.html", {"views": views})


def _list_url(request: HtmxHttpRequest, page: str, query: str = "") -> str:
    return mount_url(request, page) + (f"?{query}" if query else "")


@login_required
@require_POST
@domain_errors
def view_save(request: HtmxHttpRequest) -> HttpResponse:
    """Saved: to the list as the view keeps it (its query, cleaned), with a notice. A name
    refused: this form again with the reason next to the name (400), nothing saved."""
    access = access_for_user(request.user)
    form = SaveViewForm(request.POST)
    page = form.data.get("page", "")
    listed = list_page_named(page) if isinstance(page, str) else None
    if listed is None or not form.is_valid():
        raise BadRequest("This is not a list whose view can be saved.")
    data = form.cleaned_data
    try:
        view = save_view(
            user=request.user,
            page=page,
            query=data["query"],
            name=data["name"],
            params=listed.params,
        )
    except InvalidInput as exc:
        form.add_error("name" if exc.field in ("name", "query") else None, exc.message)
        context: dict[str, Any] = {"form": form, "title": listed.title}
        context["back"] = _list_url(request, page, data["query"])
        response = render_page(request, "dashboard/saved_view_form.html", "form", access, context)
        response.status_code = 400
        return response
    flash(request, f"View “{view.name}” saved: it is listed above the filters of {listed.title}.")
    return redirect(_list_url(request, view.page, view.query))


@login_required
@require_http_methods(["GET", "POST"])
@domain_errors
def view_delete(request: HtmxHttpRequest, view_id: int) -> HttpResponse:
    """GET: asks to confirm; POST: deletes, then back to the list (without the view's
    filters). Only one's own views: another person's is a 404."""
    access = access_for_user(request.user)
    view = get_saved_view(user=request.user, view_id=view_id)
    listed = list_page_named(view.page)
    title = listed.title if listed is not None else view.page
    if request.method == "GET":
        context = {"view": view, "title": title, "back": _list_url(request, view.page, view.query)}
        return render_page(request, "dashboard/saved_view_delete.html", "confirm", access, context)
    delete_saved_view(view=view)
    flash(request, f"Saved view “{view.name}” deleted.")
    gone = listed is None  # a view of a page since renamed: to the start page instead
    return redirect(
        mount_url(request, "knowledge:start") if gone else _list_url(request, view.page)
    )
