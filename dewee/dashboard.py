"""What every dashboard view shares, whichever app it belongs to: the htmx request type,
domain errors as 404/400, the two mounts (who uses which, and the mount-aware URL), the
list pages whose views a person may save, and rendering a page or its partial."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import render
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django_htmx.middleware import HtmxDetails

from dewee.errors import InvalidInput, NotFound
from tenancy.access import Access, access_for_user
from tenancy.exceptions import AgentAmbiguous, NoMembership
from tenancy.models import Agent
from tenancy.queries import saved_views_of
from tenancy.services import clean_view_query

# Each app's instance namespace under /app/; under /dashboard/ it is the app's own name.
APP_MOUNT = {
    "facts": "app",
    "memory": "app-memory",
    "knowledge": "app-knowledge",
    "keys": "app-keys",
    "members": "app-members",
    "views": "app-views",
}
# Namespaces served only under /dashboard/ (pages for operators, with no /app/ twin).
OPERATOR_ONLY: set[str] = set()


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def domain_errors[**P, R: HttpResponseBase](view: Callable[P, R]) -> Callable[P, R | HttpResponse]:
    """Domain "not found" (including another workspace's object) is the 404 page; a value
    that breaks a domain rule is a 400; someone of no workspace is told whom to ask."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | HttpResponse:
        try:
            return view(*args, **kwargs)
        except NoMembership:
            request = args[0]
            assert isinstance(request, HttpRequest)
            return no_workspace_page(request)
        except AgentAmbiguous as exc:
            request = args[0]
            assert isinstance(request, HttpRequest)
            return ambiguous_agent_page(request, exc)
        except NotFound as exc:
            raise Http404(exc.message) from exc
        except InvalidInput as exc:
            raise BadRequest(exc.message) from exc

    return wrapper


def ambiguous_agent_page(request: HttpRequest, error: AgentAmbiguous) -> HttpResponse:
    """An unqualified agent id that several workspaces use (only staff see every workspace):
    a 400 naming each agent by its qualified id; for a page (GET), each a link to this page
    for that agent. A form (POST) is not re-sent from a link: it names them only."""
    choices = []
    for choice in error.choices:
        query = request.GET.copy()
        query["agent"] = choice
        url = f"{request.path}?{query.urlencode()}" if request.method == "GET" else None
        choices.append({"ref": choice, "url": url})
    context = {"agent_id": error.details["agent_id"], "choices": choices}
    return render(request, "dashboard/agent_ambiguous.html", context, status=400)


AgentChoices = list[tuple[str, str]] | list[tuple[str, list[tuple[str, str]]]]


def agent_choices(access: Access) -> AgentChoices:
    """The agent picker's options. In a workspace, its agents by id. Where every workspace
    is visible, agent ids repeat across workspaces: one group per workspace, each option's
    value the agent's qualified id (``Access.agent_ref``)."""
    agents = access.agents()
    if access.workspace is not None:
        return [(agent_id, agent_id) for agent_id in agents.values_list("agent_id", flat=True)]
    groups: dict[str, list[tuple[str, str]]] = {}
    for agent in agents.order_by("workspace__slug", "agent_id"):
        groups.setdefault(agent.workspace.slug, []).append(
            (access.agent_ref(agent), agent.agent_id)
        )
    return list(groups.items())


# The picker's value for "every agent the viewer may see" (the lists' default).
ALL_AGENTS = ""


def all_agents_label(access: Access) -> str:
    if access.workspace is None:
        return "All agents of all workspaces"
    return f"All agents of {access.workspace.slug}"


def agent_picker(
    access: Access, request: HttpRequest, *, all_agents: bool = False
) -> tuple[AgentChoices, QueryDict]:
    """The picker's options, and the query string with its default agent. With
    ``all_agents`` (the Facts, Memories and Sessions lists) the first option is every agent
    the viewer may see, and the default; otherwise the first agent is."""
    choices = agent_choices(access)
    data = request.GET.copy()
    if choices and all_agents:
        everyone: AgentChoices = [(ALL_AGENTS, all_agents_label(access))]
        return everyone + choices, data  # type: ignore[operator]
    if choices:
        first = choices[0][1]
        data.setdefault("agent", first if isinstance(first, str) else first[0][0])
    return choices, data


def picked_agent(access: Access, form: forms.Form) -> Agent:
    """The agent the valid ``form``'s ``agent`` names, loaded through ``access``. The form
    then holds the value its picker offers for it, so that the picker shows the agent the
    page shows (a staff member's bare "bot" selects the option "acme/bot")."""
    agent = access.agent(form.cleaned_data["agent"])
    if isinstance(form.data, QueryDict):
        data = form.data.copy()
        data["agent"] = access.agent_ref(agent)
        form.data = data
    else:
        form.data = {**form.data, "agent": access.agent_ref(agent)}
    return agent


def picked_scope(access: Access, form: forms.Form) -> Agent | None:
    """The agent picked in a list offering "all agents", or None for all of them (every
    agent ``access`` sees)."""
    if form.cleaned_data["agent"] == ALL_AGENTS:
        return None
    return picked_agent(access, form)


def is_fragment(request: HtmxHttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.history_restore_request


def no_workspace_page(request: HttpRequest) -> HttpResponse:
    """A signed-in person who belongs to no workspace yet: what to do, and the operators who
    can add them."""
    operators = get_user_model().objects.filter(is_staff=True, is_active=True)
    context = {"operators": list(operators.order_by("username")[:5])}
    return render(request, "dashboard/no_workspace.html", context, status=403)


def acting_access(request: HtmxHttpRequest) -> Access:
    access = access_for_user(request.user)
    if not access.can_act:
        raise PermissionDenied("Viewers may read but not change anything.")
    return access


def operator_access(request: HtmxHttpRequest) -> Access:
    """Staff operators only (workspace members, maintenance): pages over every workspace."""
    access = access_for_user(request.user)
    if access.workspace is not None:
        raise PermissionDenied("Only operators may do this.")
    return access


def mount_of(request: HttpRequest) -> str | None:
    """ "dashboard", "app", or None for a page of neither (sign-in, admin, API)."""
    match = request.resolver_match
    if match is None:
        return None
    if match.namespace in APP_MOUNT.values():
        return "app"
    if match.namespace in APP_MOUNT or match.namespace in OPERATOR_ONLY:
        return "dashboard"
    return None


def mount_twin(request: HttpRequest, mount: str) -> str:
    """This page's URL in ``mount``, or that mount's home when it has no such page."""
    roots = {
        "dashboard": reverse("knowledge:start"),
        "app": reverse(f"{APP_MOUNT['knowledge']}:start"),
    }
    here = roots["app" if mount == "dashboard" else "dashboard"]
    path = roots[mount] + request.path_info.removeprefix(here)
    try:
        resolve(path)
    except Resolver404:
        return roots[mount]
    query = request.META.get("QUERY_STRING", "")
    return f"{path}?{query}" if query else path


def mount_url(request: HttpRequest, name: str, *args: Any) -> str:
    """``name`` reversed in the mount (/dashboard/ or /app/) that served ``request``: the
    same views answer under both, and a link or redirect must not leave the one in use, even
    when it goes to another app (whose instance namespace differs)."""
    match = request.resolver_match
    in_app = match is not None and match.namespace in APP_MOUNT.values()
    app = name.partition(":")[0]
    return reverse(name, args=args, current_app=APP_MOUNT[app] if in_app else None)


def flash(request: HttpRequest, notice: str, error: str = "") -> None:
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)


# Counts the nav shows beside its links, by context name (the Review link's open disputes:
# registered by facts.apps); the apps register them, as the project shell imports none.
_nav_counts: dict[str, Callable[[Access], int]] = {}


def count_in_nav(name: str, count: Callable[[Access], int]) -> None:
    """Give every drawn nav ``name``: ``count`` of the viewer's access."""
    _nav_counts[name] = count


@dataclass(frozen=True)
class ListPage:
    """A list page whose filters and order a person may save as a view (tenancy's saved
    views): its ``title`` (as the nav names it) and the query ``params`` a view keeps."""

    title: str
    params: frozenset[str]


# The list pages, by their view (the function the URLconf names).
_list_pages: dict[Callable[..., Any], ListPage] = {}


def list_page[V: Callable[..., Any]](title: str, *params: str) -> Callable[[V], V]:
    """Mark a list view (outermost decorator) whose filters a person may save: ``params``
    are the query parameters its filter form knows; its order (``sort``) is kept too."""

    def mark(view: V) -> V:
        kept = frozenset((*params, "sort")) - {"cursor"}  # a view opens at the first page
        _list_pages[view] = ListPage(title=title, params=kept)
        return view

    return mark


# Bounded: ``page`` may come from a form (a hand-made one names anything).
@lru_cache(maxsize=64)
def list_page_named(page: str) -> ListPage | None:
    """The list page of the URL name ``page`` ("facts:list"), None for any other page."""
    try:
        match = resolve(reverse(page))
    except (NoReverseMatch, Resolver404):
        return None
    return _list_pages.get(match.func)


def page_name(request: HttpRequest) -> str | None:
    """The URL name of the page ``request`` asked for, in either mount ("facts:list")."""
    match = request.resolver_match
    if match is None or not match.app_name or not match.url_name:
        return None
    return f"{match.app_name}:{match.url_name}"


def _shown_query(request: HttpRequest, listed: ListPage | None) -> str:
    """The query of the list shown, as a view of it would be saved ("" when too long)."""
    if listed is None:
        return ""
    try:
        return clean_view_query(request.GET.urlencode(), params=listed.params)
    except InvalidInput:
        return ""


def saved_view_links(request: HttpRequest, views: Iterable[Any]) -> list[dict[str, Any]]:
    """Saved views (tenancy's) as links in this mount, each with its page's title; a view
    of a page since renamed or gone is left out: nothing to open."""
    links = []
    for view in views:
        page = list_page_named(view.page)
        if page is not None:
            url = mount_url(request, view.page) + (f"?{view.query}" if view.query else "")
            links.append(
                {"id": view.pk, "name": view.name, "query": view.query}
                | {"url": url, "title": page.title}
            )
    return links


def saved_views_context(request: HttpRequest) -> dict[str, Any]:
    """On a list page whose views may be saved: the page's name (for the form that saves
    one) and the signed-in person's views of it (one query), the one shown marked
    ``current``. Nothing elsewhere (the command palette asks for all of them itself)."""
    match = request.resolver_match
    listed = _list_pages.get(match.func) if match is not None else None
    here = page_name(request)
    if listed is None or here is None or not request.user.is_authenticated:
        return {}
    shown = _shown_query(request, listed)
    links = saved_view_links(request, saved_views_of(request.user).filter(page=here))
    for link in links:
        link["current"] = link["query"] == shown
    return {"saved_views_here": links, "saved_view_page": here}


def render_page(
    request: HtmxHttpRequest, page: str, partial: str, access: Access, context: dict[str, Any]
) -> HttpResponse:
    """``page`` whole, or only its ``partial`` for htmx; the nav's badge and a list's saved
    views only cost a query when the page is drawn whole."""
    if is_fragment(request):
        return render(request, f"{page}#{partial}", {"access": access, **context})
    counts = {name: count(access) for name, count in _nav_counts.items()}
    context = {"access": access, **counts, **saved_views_context(request), **context}
    return render(request, page, context)
