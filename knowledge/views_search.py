"""The dashboard's search page: one box for users, agents, facts and memories
(knowledge.search), under both mounts. A read: it changes nothing."""

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from dewee.dashboard import HtmxHttpRequest, domain_errors, mount_url, render_page
from knowledge.search import QUERY_MAX_CHARS, search_everything
from tenancy.access import access_for_user


def person_url(request: HttpRequest, user: str) -> str:
    """The person page of ``user``, in the mount that served the request."""
    return f"{mount_url(request, 'knowledge:person')}?{urlencode({'user': user})}"


@login_required
@require_GET
@vary_on_headers("HX-Request")
@domain_errors
def search_page(request: HtmxHttpRequest) -> HttpResponse:
    access = access_for_user(request.user)
    text = request.GET.get("q", "").strip()[:QUERY_MAX_CHARS]
    results = search_everything(access, text)
    context: dict[str, Any] = {
        "search_text": text,
        "results": results,
        "users": [{"id": user, "url": person_url(request, user)} for user in results.users],
        "see_all": {
            "users": f"{mount_url(request, 'facts:list')}?{urlencode({'user': text})}",
            "facts": f"{mount_url(request, 'facts:list')}?{urlencode({'q': text})}",
        },
        "nav": "search",
    }
    return render_page(request, "dashboard/search.html", "results", access, context)
