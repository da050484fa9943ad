"""The dashboard's Entities pages: an agent's entities (searched by the start of a name,
filtered by type) and one entity with the memories that mention it, the facts about it and
the entities that appear with it. HTML adapters over memory.entity_queries and
memory.entity_detail; reads only.

As on the Memories pages, every view starts with the access helper: another workspace's
agent or entity is a 404, exactly like a missing one.
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import (
    HtmxHttpRequest,
    agent_picker,
    domain_errors,
    is_fragment,
    picked_agent,
    render_page,
)
from dewee.forms import PageForm
from facts.queries import fact_to_dict
from memory.entity_detail import (
    entity_facts,
    entity_memories,
    get_visible_entity,
    related_entities,
)
from memory.entity_queries import entity_to_dict, list_entities
from memory.forms import EntityFilterForm
from memory.views import PAGE_SIZE
from tenancy.access import access_for_user


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def entities_list(request: HtmxHttpRequest) -> HttpResponse:
    """The agent's entities, newest first, with their mention counts."""
    access = access_for_user(request.user)
    choices, data = agent_picker(access, request)
    form = EntityFilterForm(data, agent_choices=choices)
    context: dict[str, Any] = {"form": form, "has_agents": bool(choices), "nav": "entities"}
    if choices and form.is_valid():
        agent = picked_agent(access, form)
        items, next_cursor = list_entities(
            agent=agent,
            q=form.cleaned_data["q"],
            type=form.cleaned_data["type"] or None,
            cursor=form.cleaned_data["cursor"] or None,
            limit=PAGE_SIZE,
        )
        context |= {
            "agent": agent,
            "rows": [entity_to_dict(entity) for entity in items],
            "page": {"next_cursor": next_cursor},
        }
    return render_page(request, "dashboard/entities.html", "table", access, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def entity_page(request: HtmxHttpRequest, entity_id: int) -> HttpResponse:
    """With htmx (the pager), the memories that mention it alone."""
    access = access_for_user(request.user)
    entity = get_visible_entity(access=access, entity_id=entity_id)
    form = PageForm(request.GET)
    if not form.is_valid():
        raise BadRequest("The page's cursor is not one this server returned.")
    cursor = form.cleaned_data["cursor"] or None
    memories, next_cursor = entity_memories(entity=entity, cursor=cursor, limit=PAGE_SIZE)
    context: dict[str, Any] = {
        "entity": entity_to_dict(entity),
        "agent": entity.agent,
        "form": form,
        "memories": memories,
        "page": {"next_cursor": next_cursor},
        "nav": "entities",
    }
    if not is_fragment(request):
        facts = [fact_to_dict(fact) for fact in entity_facts(entity)]
        context |= {"facts": facts, "related": related_entities(entity=entity)}
    return render_page(request, "dashboard/entity_detail.html", "memories", access, context)
