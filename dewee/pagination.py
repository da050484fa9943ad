"""Keyset pagination, newest first by id: one page of a queryset and the opaque cursor that
continues after it."""

import base64
import binascii
from typing import Any

from django.db.models import Model, QuerySet

from dewee.errors import InvalidInput
from tenancy.validation import DB_ID_MAX


def encode_cursor(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"f{last_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not raw.startswith("f"):
            raise ValueError(raw)
        last_id = int(raw[1:])
        if not 1 <= last_id <= DB_ID_MAX:
            raise ValueError(raw)
        return last_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput("cursor", "is not a cursor this server returned") from None


DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


def clean_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_SIZE:
        raise InvalidInput("limit", f"must be between 1 and {MAX_PAGE_SIZE}")
    return limit


def keyset_page[M: Model, R: Model](
    rows: QuerySet[M, R], *, cursor: str | None, limit: int, newest_first: Any = "-id"
) -> tuple[list[R], str | None]:
    """Up to ``limit`` rows older than ``cursor`` (all of them without one), newest first,
    and the cursor to the next page, None on the last. ``limit`` is already clean: callers
    check it with clean_limit() before any other input. ``newest_first``: the ordering, an
    expression equal to the id's descending order when the primary key must not serve it."""
    if cursor:
        rows = rows.filter(id__lt=decode_cursor(cursor))
    items = list(rows.order_by(newest_first)[: limit + 1])
    next_cursor = encode_cursor(items[limit - 1].pk) if len(items) > limit else None
    return items[:limit], next_cursor
