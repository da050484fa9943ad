"""What every sortable list draws: a column's header that sorts by it (a plain link htmx
enhances), the hidden input that keeps the order in the filter form, and the list's query
as a saved view keeps it."""

from typing import Any

from django import template
from django.http import QueryDict

from dewee.sorting import Sort, Sorting

register = template.Library()


def _query(context: template.Context, params: dict[str, Any]) -> QueryDict:
    """The page's query string without its cursor (a new order, or a saved view, starts at
    the first page), with ``params`` set (a value of None drops one)."""
    request = context["request"]
    query = request.GET.copy() if request.method == "GET" else QueryDict(mutable=True)
    query.pop("cursor", None)
    for name, value in params.items():
        if value is None or value == "":
            query.pop(name, None)
        else:
            query[name] = str(value)
    return query


@register.inclusion_tag("dashboard/_sort_header.html", takes_context=True)
def sort_header(
    context: template.Context, label: str, name: str, target: str = "", **params: Any
) -> dict[str, Any]:
    """The ``<th>`` of the column ``label``, sorted by the key ``name`` of the list's
    ``sorting`` (from the context, with its current ``sort``): a link to this list in the
    other direction (when sorted by it) or in the key's first one, with ``aria-sort`` and an
    arrow on the column it is sorted by. ``target``: the element htmx replaces with the
    answer. ``path``: the list's URL where this page answered a form (a POST) at another;
    other ``params`` go in the link's query (the workspace a staff member picked)."""
    sorting: Sorting | None = context.get("sorting")
    sort: Sort | None = context.get("sort")
    if sorting is None or sort is None or sorting.key(name) is None:
        return {"label": label}
    path = params.pop("path", None) or context["request"].path
    query = _query(context, {**params, "sort": sorting.next_param(sort, name)})
    url = f"{path}?{query.urlencode()}" if query else path
    here = sort.key.name == name
    direction = ("descending" if sort.descending else "ascending") if here else ""
    return {"label": label, "url": url, "target": target, "aria_sort": direction}


@register.simple_tag(takes_context=True)
def list_query(context: template.Context, **params: Any) -> str:
    """This list's query string as a saved view keeps it: its filters and order, without
    the cursor or the empty filters (the service keeps only the filters the page knows)."""
    query = _query(context, params)
    for name in list(query):
        if not any(query.getlist(name)):
            query.pop(name)
    return query.urlencode()


@register.simple_tag(takes_context=True)
def page_query(context: template.Context, cursor: str | None = None) -> str:
    """The query string of this list's page at ``cursor`` (its first page without one), in
    the order the list is shown in: a refused sort is not carried on to the next page,
    whose cursor is of the order shown."""
    params: dict[str, Any] = {}
    sort: Sort | None = context.get("sort")
    sorting: Sorting | None = context.get("sorting")
    if sort is not None and sorting is not None:
        params["sort"] = None if sort.param == sorting.default else sort.param
    query = _query(context, params)
    if cursor:
        query["cursor"] = cursor
    return f"?{query.urlencode()}"
