"""Keyset pagination: one page of a queryset and the opaque cursor that continues after it.
Newest first by id unless a list is sorted otherwise (dewee.sorting): then by the sort's
column and the id, with a cursor that holds both values."""

import base64
import binascii
import json
import math
from datetime import datetime
from typing import Any

from django.db.models import Model, OrderBy, QuerySet

from dewee.errors import InvalidInput
from dewee.sorting import Sort, Sorting, value_of
from tenancy.validation import DB_ID_MAX

_NOT_A_CURSOR = "is not a cursor this server returned"
# A sorted cursor's value is a column the lists sort by: a key or a name, never long text.
_VALUE_MAX_CHARS = 1000
_CURSOR_MAX_CHARS = 2 * _VALUE_MAX_CHARS


def encode_cursor(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"f{last_id}".encode()).decode().rstrip("=")


def _raw(cursor: str) -> str:
    if len(cursor) > _CURSOR_MAX_CHARS:
        raise ValueError("too long")
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()


def _clean_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= DB_ID_MAX:
        raise ValueError(value)
    return value


def decode_cursor(cursor: str) -> int:
    """The last id of a newest-first page's cursor."""
    try:
        raw = _raw(cursor)
        if not raw.startswith("f"):
            raise ValueError(raw)
        return _clean_id(int(raw[1:]))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput("cursor", _NOT_A_CURSOR) from None


def check_cursor(cursor: str) -> None:
    """InvalidInput unless ``cursor`` reads as a cursor of some order (a filter form checks
    it before the list is read; keyset_page then checks it is one of the list's order)."""
    try:
        raw = _raw(cursor)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput("cursor", _NOT_A_CURSOR) from None
    if not raw.startswith("s"):
        decode_cursor(cursor)
        return
    try:
        _sorted_payload(raw)
    except (ValueError, TypeError, RecursionError):
        raise InvalidInput("cursor", _NOT_A_CURSOR) from None


def encode_sorted_cursor(sort: Sort, value: Any, last_id: int) -> str:
    """A cursor after (``value``, ``last_id``) in the order ``sort``, which it names."""
    shown = value.isoformat() if isinstance(value, datetime) else value
    raw = "s" + json.dumps([sort.param, shown, last_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _sorted_payload(raw: str) -> tuple[str, Any, int]:
    payload = json.loads(raw[1:])
    if not isinstance(payload, list) or len(payload) != 3 or not isinstance(payload[0], str):
        raise ValueError(raw)
    return payload[0], payload[1], _clean_id(payload[2])


def _typed(sort: Sort, value: Any) -> Any:
    """The cursor's value as the sort's column holds it."""
    kind = sort.key.kind
    if kind is datetime:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        if moment is None or moment.tzinfo is None:
            raise ValueError(value)
        return moment
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError(value)
        return float(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is str and isinstance(value, str) and len(value) <= _VALUE_MAX_CHARS:
        return value
    raise ValueError(value)


def decode_sorted_cursor(cursor: str, sort: Sort) -> tuple[Any, int]:
    """The (value, id) a cursor of the order ``sort`` continues after. A cursor of another
    order (or a newest-first one) is refused like any other cursor this server did not
    return for this list."""
    try:
        raw = _raw(cursor)
        if not raw.startswith("s"):
            raise ValueError(raw)
        param, value, last_id = _sorted_payload(raw)
        if param != sort.param:
            raise ValueError(param)
        return _typed(sort, value), last_id
    except (ValueError, TypeError, RecursionError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput("cursor", _NOT_A_CURSOR) from None


DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


def clean_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_SIZE:
        raise InvalidInput("limit", f"must be between 1 and {MAX_PAGE_SIZE}")
    return limit


def keyset_page[M: Model, R: Model](
    rows: QuerySet[M, R],
    *,
    cursor: str | None,
    limit: int,
    newest_first: Any = "-id",
    sort: Sort | None = None,
) -> tuple[list[R], str | None]:
    """Up to ``limit`` rows after ``cursor`` (from the first without one) and the cursor to
    the next page, None on the last. ``limit`` is already clean: callers check it with
    clean_limit() before any other input. Without ``sort`` (or sorted newest first), newest
    first by id, ``newest_first`` the ordering: an expression equal to the id's descending
    order when the primary key must not serve it (its id is then a sort's tie-break too).
    With ``sort``, by its column then the id; a cursor of another order is InvalidInput."""
    if sort is None or sort.newest_first:
        if cursor:
            rows = rows.filter(id__lt=decode_cursor(cursor))
        items = list(rows.order_by(newest_first)[: limit + 1])
        next_cursor = encode_cursor(items[limit - 1].pk) if len(items) > limit else None
        return items[:limit], next_cursor
    assert not sort.key.nullable, "a cursor cannot continue after an empty value"
    if cursor:
        rows = rows.filter(sort.after(*decode_sorted_cursor(cursor, sort)))
    by_id = newest_first.expression if isinstance(newest_first, OrderBy) else None
    items = list(rows.order_by(*sort.ordering(by_id))[: limit + 1])
    if len(items) <= limit:
        return items, None
    last = items[limit - 1]
    return items[:limit], encode_sorted_cursor(sort, value_of(sort, last), last.pk)


def sorted_page[M: Model, R: Model](
    rows: QuerySet[M, R],
    *,
    sorting: Sorting,
    sort: Sort,
    cursor: str | None,
    limit: int,
    one_agent: bool = False,
    newest_first: Any = "-id",
    counted: QuerySet[Any] | None = None,
) -> tuple[list[R], str | None, Sort]:
    """keyset_page() in ``sort``, one of ``sorting``'s, when the list may be shown in it
    (Sorting.within_bound, counting ``counted``: ``rows`` before what only the page needs,
    such as a join); else in the list's default order, from its first page. The order shown
    comes third."""
    shown = sorting.within_bound(rows if counted is None else counted, sort, one_agent=one_agent)
    if shown != sort:
        cursor = None  # a cursor of the order refused: the default's first page
    items, next_cursor = keyset_page(
        rows, cursor=cursor, limit=limit, newest_first=newest_first, sort=shown
    )
    return items, next_cursor, shown
