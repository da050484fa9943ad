"""One entity's page: the memories that mention it (memory.graph.entity_detail), the facts about
it (knowledge.entities) and the entities that appear with it. Reads only; another
workspace's entity is a 404, exactly like a missing one.
"""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import HtmxHttpRequest, domain_errors, is_fragment, render_page
from dewee.forms import PageForm
from facts.queries import fact_to_dict
from knowledge.entities import entity_facts
from memory.graph.entities import entity_to_dict
from memory.graph.entity_detail import entity_memories, get_visible_entity, related_entities
from memory.views.memories import PAGE_SIZE
from tenancy.access import access_for_user


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
