"""The dashboard's API keys page. Operators manage the keys of every workspace (one at a
time, chosen with the picker); a workspace's managers manage its keys; its viewers see them
and change nothing. Mounted under /dashboard/keys/ and /app/keys/; all through the services
the CLI and the admin use.

A new key's secret is shown once, in the answer to the form that created it (never stored,
never cached). Revoking asks first. With htmx, each action returns the keys section
re-rendered; without JavaScript, the page (or a redirect back to it).
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
    domain_errors,
    flash,
    is_fragment,
    list_page,
    mount_url,
    render_page,
)
from dewee.errors import InvalidInput
from dewee.timeparse import parse_expiry
from tenancy.access import Access, access_for_user
from tenancy.exceptions import WorkspaceNotFound
from tenancy.forms import ApiKeyForm
from tenancy.models import Scope, Workspace
from tenancy.picker import picked_workspace, workspace_picker
from tenancy.queries import KEY_SORTING, api_key_to_dict, get_api_key, list_api_keys
from tenancy.services import create_api_key, revoke_api_key

# Which form field a service's refusal belongs to.
_FORM_FIELD = {"agent_id": "agents", "agents": "agents", "expires_at": "expires"}


def _page(
    request: HtmxHttpRequest, access: Access, workspace: Workspace | None, **context: Any
) -> HttpResponse:
    """The page (or its keys section, for htmx), its keys in the order the query asks (an
    action's answer, a POST, in the default order)."""
    now = timezone.now()
    sort = KEY_SORTING.parse(request.GET.get("sort"))
    if workspace is not None:
        keys = list_api_keys(workspace=workspace, sort=sort)
        context["keys"] = [api_key_to_dict(k, now=now) for k in keys]
    context |= {"sorting": KEY_SORTING, "sort": sort}
    context["picker"] = workspace_picker(access, workspace)
    context.setdefault("create_form", ApiKeyForm())
    context |= {"workspace": workspace, "scopes": Scope.choices, "nav": "keys"}
    return render_page(request, "dashboard/keys.html", "keys", access, context)


@list_page("API keys", "workspace")
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def keys_page(request: HtmxHttpRequest) -> HttpResponse:
    access = access_for_user(request.user)
    return _page(request, access, picked_workspace(request, access))


@never_cache
@login_required
@require_POST
@domain_errors
def key_create(request: HtmxHttpRequest) -> HttpResponse:
    """The page with the new key's secret, or with the form's errors next to its fields."""
    access = acting_access(request)
    workspace = picked_workspace(request, access)
    if workspace is None:
        raise WorkspaceNotFound("No workspace yet")
    form = ApiKeyForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            expires = data["expires"]
            key, secret = create_api_key(
                workspace=workspace,
                name=data["name"],
                actor=access.actor,
                scopes=data["scopes"],
                agent_ids=form.agent_ids(),
                expires_at=parse_expiry(expires, field="expires", now=timezone.now())
                if expires
                else None,
            )
        except InvalidInput as exc:
            field = _FORM_FIELD.get(exc.field, exc.field)
            form.add_error(field if field in form.fields else None, exc.message)
        else:
            return _page(request, access, workspace, created=key, secret=secret)
    return _page(request, access, workspace, create_form=form)


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@domain_errors
def key_revoke(request: HtmxHttpRequest, key_id: int) -> HttpResponse:
    """GET: the page, asking to confirm in the key's row; POST: revoke."""
    access = acting_access(request)
    key = get_api_key(key_id=key_id, workspace=access.workspace)
    if request.method == "GET":
        return _page(request, access, key.workspace, confirming=key.pk)
    revoke_api_key(key_id=key.pk, actor=access.actor, workspace=access.workspace)
    notice = f"API key {key.name} ({key.prefix}…) revoked: it no longer works."
    if is_fragment(request):
        return _page(request, access, key.workspace, notice=notice)
    flash(request, notice)
    return redirect(f"{mount_url(request, 'keys:list')}?workspace={key.workspace.slug}")
