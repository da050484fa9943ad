"""What several endpoints share: recall filters from a request, a page of memories, the
check that a list's query string names only filters it knows."""

from dataclasses import replace
from typing import Any, Protocol

from django.http import HttpRequest, HttpResponse
from ninja import Schema

from dewee.errors import InvalidInput
from dewee.timeparse import parse_time
from memory.queries import MemoryPage, memory_to_dict
from memory.quotas import QuotaWarning
from memory.recall import ALL_USERS, RecallFilters
from tenancy.validation import clean_user


class FilterParams(Protocol):
    session_id: int | None
    tags: list[str]
    memory_type: Any
    min_importance: float | None
    max_importance: float | None
    since: str | None
    until: str | None


def recall_filters(params: FilterParams) -> RecallFilters:
    """The filters of a list or recall request (query string or body, same names)."""
    return RecallFilters(
        session_id=params.session_id,
        tags=params.tags,
        memory_type=params.memory_type,
        min_importance=params.min_importance,
        max_importance=params.max_importance,
        since=parse_time(params.since, field="since"),
        until=parse_time(params.until, field="until"),
    )


class ListParams(FilterParams, Protocol):
    user: str | None
    shared: bool


def list_filters(params: ListParams) -> RecallFilters:
    """A memory list's filters: recall's, and whose memories (a user's own, or only the
    shared ones; without either, every memory of the agent: a list is the developer's
    view of what the agent holds, not text for one user)."""
    if params.user is not None and params.shared:
        raise InvalidInput("shared", "cannot be combined with user", code="conflicting_scope")
    owner = clean_user(params.user) if params.user is not None else None
    if params.user is not None and not owner:
        raise InvalidInput("user", "must not be empty; use shared=true for memories of no user")
    return replace(recall_filters(params), audience=ALL_USERS, owner="" if params.shared else owner)


def memory_page(page: MemoryPage) -> dict[str, Any]:
    return {"items": [memory_to_dict(m) for m in page.items], "next_cursor": page.next_cursor}


def refuse_unknown_params(request: HttpRequest, params: type[Schema], *also: str) -> None:
    """A query parameter the operation does not know is refused (400 unknown_parameter),
    never ignored: a misspelt ``user`` filter must not return every user's memories.
    ``also``: the operation's other parameters (path or plain ones)."""
    known = set(also)
    for name, info in params.model_fields.items():
        known |= {name, info.alias or name}
    unknown = sorted(set(request.GET) - known)
    if unknown:
        raise InvalidInput(
            unknown[0],
            f"unknown query parameter; this list takes {', '.join(sorted(known))}",
            code="unknown_parameter",
        )


def quota_warnings_out(
    response: HttpResponse, warnings: list[QuotaWarning]
) -> list[dict[str, Any]]:
    """Soft-quota warnings for the body, and in a header for clients that read no body."""
    if warnings:
        response["Dewee-Quota-Warning"] = ", ".join(
            f"{w.scope} {w.kind} {w.usage}/{w.limit}" for w in warnings
        )
    return [w.as_dict() for w in warnings]
