"""Parsing of the times that users type: ISO 8601, with ``Z`` or an offset; naive is UTC.
(Moving such a time by a span within the years 1 to 9999 is ``language.moments.shifted``.)"""

import re
from datetime import UTC, date, datetime, timedelta

from dewee.errors import InvalidInput


def parse_time(raw: str | datetime | None, *, field: str) -> datetime | None:
    """Return an aware datetime, ``None`` for an empty value, or raise ``invalid_time``
    (also for a time that cannot be written in UTC within the years 1 to 9999)."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, datetime):
        value = raw
    elif isinstance(raw, str):
        text = raw.strip()
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            try:
                value = datetime.combine(date.fromisoformat(text), datetime.min.time())
            except ValueError:
                raise InvalidInput(
                    field,
                    f"{raw!r} is not an ISO 8601 time (e.g. 2026-01-31T09:30:00Z)",
                    code="invalid_time",
                ) from None
    else:
        raise InvalidInput(field, "must be an ISO 8601 string", code="invalid_time")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        # Stored and compared in UTC, where "0001-01-01T00:00:00+14:00" falls in year 0:
        # SQLite cannot store it, and PostgreSQL stores it but cannot hand it back.
        value.astimezone(UTC)
    except OverflowError:
        raise InvalidInput(
            field, f"{raw!r} falls outside the years 1 to 9999 in UTC", code="invalid_time"
        ) from None
    return value


_DURATION = re.compile(r"^(\d{1,6})\s*([hdw])$")
_DURATION_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def parse_expiry(raw: str, *, field: str, now: datetime) -> datetime:
    """When something typed as a duration from ``now`` (``12h``, ``90d``, ``2w``) or as an
    ISO 8601 date or time (a date alone is its midnight, UTC) expires."""
    text = raw.strip().lower()
    if (match := _DURATION.match(text)) is not None:
        try:
            return now + int(match[1]) * _DURATION_UNITS[match[2]]
        except OverflowError:
            raise InvalidInput(
                field, f"{raw!r} ends after the year 9999", code="invalid_time"
            ) from None
    try:
        value = parse_time(raw, field=field)
    except InvalidInput:
        raise InvalidInput(
            field,
            f"{raw!r} is neither a duration (e.g. 90d, 12h, 2w) nor an ISO 8601 date or time",
            code="invalid_time",
        ) from None
    if value is None:
        raise InvalidInput(field, "must be a duration or a date", code="invalid_time")
    return value
