"""The dashboard's Entities list: an agent's entities (searched by the start of a name,
filtered by type); one entity's page is knowledge.views_entities. An HTML adapter over
memory.graph.entities; reads only.

As on the Memories pages, every view starts with the access helper: another workspace's
agent or entity is a 404, exactly like a missing one.
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    agent_picker,
    domain_errors,
    list_page,
    picked_agent,
    render_page,
)
from memory.forms import EntityFilterForm
from memory.graph.entities import entity_to_dict, sorted_entities
from memory.orders import ENTITY_SORTING
from memory.views.memories import PAGE_SIZE
from tenancy.access import access_for_user


@list_page("Entities", *EntityFilterForm.base_fields)
@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def entities_list(request: HtmxHttpRequest) -> HttpResponse:
    """The agent's entities, newest first (or as sorted), with their mention counts."""
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request)
    form = EntityFilterForm(data, agent_choices=choices)
    sort = ENTITY_SORTING.parse(request.GET.get("sort"))
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "entities"}
    context |= {"sorting": ENTITY_SORTING, "sort": sort}
    if choices and form.is_valid():
        agent = picked_agent(access, form)
        page = sorted_entities(
            agent=agent,
            q=form.cleaned_data["q"],
            type=form.cleaned_data["type"] or None,
            cursor=form.cleaned_data["cursor"] or None,
            limit=PAGE_SIZE,
            sort=sort,
        )
        context |= {
            "agent": agent,
            "rows": [entity_to_dict(entity) for entity in page.items],
            "page": {"next_cursor": page.next_cursor},
            "sort": page.sort,
        }
    return render_page(request, "dashboard/entities.html", "table", access, context)
