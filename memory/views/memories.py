"""The dashboard's Memories and Maintenance pages: HTML adapters over memory.queries,
memory.recall, memory.graph.neighbourhood and memory.services (the Sessions pages:
memory.views.sessions; the Entities pages: memory.views.entities).

Every view starts with one call to the access helper; an object of another workspace is a
404, exactly like a missing one. With htmx, a view returns the named partial that changed;
without JavaScript, the whole page.
"""

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dewee.dashboard import (
    HtmxHttpRequest,
    acting_access,
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
from dewee.errors import DeweeError
from dewee.export import export_response
from memory.forms import (
    DeleteMemoryForm,
    EditMemoryForm,
    MemoryFilterForm,
    NeighbourhoodForm,
)
from memory.graph.entities import memory_entities
from memory.graph.neighbourhood import NEIGHBOURHOOD_DEPTHS, memory_neighbourhood
from memory.learned import learned_from
from memory.models import Memory
from memory.orders import MEMORY_SORTING
from memory.queries import (
    MEMORY_EXPORT_COLUMNS,
    get_memory,
    list_memories,
    memories_for_export,
    memory_to_dict,
)
from memory.recall import RecallRequest, recall
from memory.services import delete_memory, update_memory
from tenancy.access import Access, access_for_user
from tenancy.models import Agent

PAGE_SIZE = 25
# The element the memory page's depth links replace with htmx.
NEIGHBOURHOOD_TARGET = "neighbourhood"
SEARCH_TOP_K = 20


def _row(
    access: Access, memory: Memory, score: float | None = None, explanation: Any = None
) -> dict[str, Any]:
    row = {**memory_to_dict(memory), "score": score, "explanation": explanation}
    return row | {"agent_ref": access.agent_ref(memory.agent)}


@list_page("Memories", *MemoryFilterForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def memories_list(request: HtmxHttpRequest) -> HttpResponse:
    """With a query, recall's best ``SEARCH_TOP_K`` of the picked agent with their scores
    (recall ranks one agent's memories: all agents ask to pick one; the rank is the order);
    without, the memories newest first (or as sorted), a page at a time, of the picked agent
    or of all the viewer sees."""
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request, all_agents=True)
    form = MemoryFilterForm(data, agent_choices=choices)
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "memories"}
    context |= {"sorting": MEMORY_SORTING, "sort": MEMORY_SORTING.parse(request.GET.get("sort"))}
    if choices and form.is_valid():
        agent = picked_scope(access, form)
        context |= {"agent": agent, "scope_label": _scope_label(access, agent)}
        query = form.cleaned_data["q"]
        if query and agent is not None:
            # explain: each row's "Why" shows the signals behind its score.
            asked = RecallRequest(
                query=query, top_k=SEARCH_TOP_K, filters=form.filters(search=True), explain=True
            )
            hits = recall(agent=agent, request=asked).hits
            context["rows"] = [_row(access, h.memory, h.score, h.explanation) for h in hits]
            context["sorting"] = None  # ranked by recall: no column sorts it
        elif query:
            context["recall_needs_agent"] = True
        else:
            page = list_memories(
                agent=agent or access,
                filters=form.filters(),
                cursor=form.cleaned_data["cursor"] or None,
                limit=PAGE_SIZE,
                sort=context["sort"],
            )
            rows = [_row(access, m) for m in page.items]
            context |= {"page": page, "rows": rows, "sort": page.sort}
    return render_page(request, "dashboard/memories.html", "table", access, context)


def _scope_label(access: Access, agent: Agent | None) -> str:
    return agent.agent_id if agent else all_agents_label(access).lower()


@login_required
@require_GET
@domain_errors
def memories_export(request: HtmxHttpRequest) -> HttpResponse | StreamingHttpResponse:
    """The Memories list with its filters as CSV or JSON (``format``): every page of it, or
    with a search, the same best ``SEARCH_TOP_K`` with their scores. Whoever may see the
    list may export it, viewers included: it is a read."""
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request, all_agents=True)
    form = MemoryFilterForm(data, agent_choices=choices)
    if not choices or not form.is_valid():
        raise BadRequest("Fix the filters of the Memories list to export it.")
    agent = picked_scope(access, form)
    name = f"memories-{agent.agent_id if agent else 'all-agents'}"
    if query := form.cleaned_data["q"]:
        if agent is None:
            raise BadRequest("Pick an agent to export a search: recall ranks one agent's memories.")
        asked = RecallRequest(query=query, top_k=SEARCH_TOP_K, filters=form.filters(search=True))
        hits = recall(agent=agent, request=asked).hits
        columns = ["score", *MEMORY_EXPORT_COLUMNS]
        workspace = agent.workspace.slug
        return export_response(
            request,
            hits,
            to_row=lambda hit: _row(access, hit.memory, hit.score) | {"workspace": workspace},
            columns=columns,
            name=name,
        )

    def row(memory: Memory) -> dict[str, Any]:
        if agent is not None:
            memory.agent = agent  # one agent for every row: no join, no query per row
        return memory_to_dict(memory) | {"workspace": memory.agent.workspace.slug}

    memories = memories_for_export(agent=agent or access, filters=form.filters())
    return export_response(request, memories, to_row=row, columns=MEMORY_EXPORT_COLUMNS, name=name)


def _detail(
    request: HtmxHttpRequest,
    access: Access,
    memory: Memory,
    *,
    depth: int = NEIGHBOURHOOD_DEPTHS[0],
    delete_form: DeleteMemoryForm | None = None,
    edit_form: EditMemoryForm | None = None,
    notice: str = "",
    status: int = 200,
) -> HttpResponse:
    neighbourhood = memory_neighbourhood(memory, depth=depth)
    if is_fragment(request) and request.htmx.target == NEIGHBOURHOOD_TARGET:
        context: dict[str, Any] = {"memory": {"id": memory.pk}, "neighbourhood": neighbourhood}
        return render_page(request, "dashboard/memory_detail.html", "graph", access, context)
    row = memory_to_dict(memory)
    context = {
        "memory": row,
        "agent_ref": access.agent_ref(memory.agent),
        "entities": memory_entities(memory),
        "facts": learned_from(memory),
        "neighbourhood": neighbourhood,
        "form": delete_form or DeleteMemoryForm(),
        "edit_form": edit_form or EditMemoryForm(memory=row),
        "notice": notice,
        "nav": "memories",
    }
    response = render_page(request, "dashboard/memory_detail.html", "detail", access, context)
    response.status_code = status
    return response


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def memory_page(request: HtmxHttpRequest, memory_id: int) -> HttpResponse:
    """The memory, its entities (each a link to its page), the facts learned from it and its
    neighbourhood in the graph (``depth`` 1 or 2). With htmx, the neighbourhood alone when
    it is the target (the depth links), else the detail."""
    access = access_for_user(request.user)
    memory = get_memory(access=access, memory_id=memory_id)
    form = NeighbourhoodForm(request.GET)
    if not form.is_valid():
        raise BadRequest("The neighbourhood's depth must be 1 or 2.")
    return _detail(request, access, memory, depth=form.depth_or_default())


@login_required
@require_POST
@domain_errors
def memory_edit(request: HtmxHttpRequest, memory_id: int) -> HttpResponse:
    """Importance and tags, through the service the REST PATCH uses (audited). Without
    JavaScript, back to the page; with htmx, the detail in place. Errors come back in the
    form: a 400 without htmx, a 200 with it (the site's htmx swaps only 2xx answers)."""
    access = acting_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    form = EditMemoryForm(request.POST)
    changes = form.changes(memory_to_dict(memory)) if form.is_valid() else {}
    if changes:
        try:
            memory = update_memory(memory=memory, actor=access.actor, **changes)
        except DeweeError as exc:
            field = exc.details.get("field") if isinstance(exc.details, dict) else None
            form.add_error(field if field in form.fields else None, exc.message)
    if form.errors:
        status = 200 if request.htmx else 400
        return _detail(request, access, memory, edit_form=form, status=status)
    notice = "Memory saved." if changes else "Nothing to save: no change."
    if request.htmx:
        memory = get_memory(access=access, memory_id=memory_id)
        return _detail(request, access, memory, notice=notice)
    flash(request, notice)
    return redirect(mount_url(request, "memory:detail", memory_id))


@login_required
@require_POST
@domain_errors
def memory_delete(request: HtmxHttpRequest, memory_id: int) -> HttpResponse:
    """Deletes only when the box is ticked; then back to the agent's memories, with the
    counts of what was erased."""
    access = acting_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    form = DeleteMemoryForm(request.POST)
    if not form.is_valid():
        return _detail(request, access, memory, delete_form=form)
    agent_ref = access.agent_ref(memory.agent)
    counts = delete_memory(memory=memory, actor=access.actor, reason=form.cleaned_data["reason"])
    facts = counts["facts"]
    flash(
        request,
        f"Memory {memory_id} deleted, with {facts} fact{'' if facts == 1 else 's'} "
        "learned only from it.",
    )
    url = f"{mount_url(request, 'memory:list')}?{urlencode({'agent': agent_ref})}"
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
