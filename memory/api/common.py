"""What several endpoints share: recall filters from a request, a page of memories."""

from typing import Any, Protocol

from dewee.timeparse import parse_time
from memory.queries import MemoryPage, memory_to_dict
from memory.recall import RecallFilters


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


def memory_page(page: MemoryPage) -> dict[str, Any]:
    return {"items": [memory_to_dict(m) for m in page.items], "next_cursor": page.next_cursor}
