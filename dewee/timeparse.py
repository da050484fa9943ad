"""Parsing of the times that users type: ISO 8601, with ``Z`` or an offset; naive is UTC."""

from datetime import UTC, date, datetime

from dewee.errors import InvalidInput


def parse_time(raw: str | datetime | None, *, field: str) -> datetime | None:
    """Return an aware datetime, ``None`` for an empty value, or raise ``invalid_time``."""
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
    return value
