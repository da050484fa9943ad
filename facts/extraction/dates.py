"""Dates in conversational text: birthdays ("March 3rd, 1990", "3 March") and the start of a
future change ("next month", "on June 1", "in two weeks", "tomorrow")."""

import re
from datetime import UTC, date, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "a couple of": 2,
    "a few": 3,
}

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}\b{_YEAR}", re.IGNORECASE)
DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b{_YEAR}", re.IGNORECASE)
ISO_DATE = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
_AMOUNT = r"(?P<n>\d+|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"
IN_AMOUNT = re.compile(rf"\bin\s+{_AMOUNT}\s+(?P<unit>day|week|month|year)s?\b", re.IGNORECASE)
NEXT_UNIT = re.compile(r"\bnext\s+(?P<unit>week|month|year)\b", re.IGNORECASE)
NEXT_WEEKDAY = re.compile(
    r"\b(?:next\s+|on\s+|this\s+|starting\s+|from\s+|as of\s+)(?P<weekday>"
    + "|".join(WEEKDAYS)
    + r")\b",
    re.IGNORECASE,
)
IN_MONTH = re.compile(rf"\b(?:in|from|starting|this|next)\s+{_MONTH}\b(?!\s+\d)", re.IGNORECASE)


def _date_from(match: re.Match[str]) -> tuple[int | None, int, int] | None:
    month_text = match.group("month")
    month = int(month_text) if month_text.isdigit() else MONTHS[month_text.lower()]
    day = int(match.group("day"))
    year = int(match.group("year")) if match.group("year") else None
    try:
        date(year or 2000, month, day)
    except ValueError:
        return None
    return year, month, day


def find_date(text: str) -> tuple[int | None, int, int] | None:
    """The first calendar date written in ``text``: (year or None, month, day)."""
    for pattern in (ISO_DATE, MONTH_DAY, DAY_MONTH):
        match = pattern.search(text)
        if match:
            return _date_from(match)
    return None


def birthday_value(text: str) -> str | None:
    """A birthday as the facts store it: "YYYY-MM-DD", or "--MM-DD" without a year."""
    found = find_date(text)
    if found is None:
        return None
    year, month, day = found
    return f"{year:04d}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    return date(day.year + index // 12, index % 12 + 1, 1)


def future_start(text: str, now: datetime) -> datetime | None:
    """When a change that ``text`` announces takes effect, if it names a future time."""
    today = now.astimezone(UTC).date()
    if re.search(r"\btomorrow\b", text, re.IGNORECASE):
        return _midnight(today + timedelta(days=1))
    match = NEXT_UNIT.search(text)
    if match:
        unit = match.group("unit").lower()
        if unit == "week":
            return _midnight(today + timedelta(days=7 - today.weekday()))
        if unit == "month":
            return _midnight(_add_months(today, 1))
        return _midnight(date(today.year + 1, 1, 1))
    match = IN_AMOUNT.search(text)
    if match:
        raw = match.group("n").lower()
        n = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
        unit = match.group("unit").lower()
        if unit == "month":
            return _midnight(_add_months(today, n).replace(day=min(today.day, 28)))
        days = {"day": 1, "week": 7, "year": 365}[unit] * n
        return _midnight(today + timedelta(days=days))
    match = NEXT_WEEKDAY.search(text)
    if match:
        ahead = (WEEKDAYS.index(match.group("weekday").lower()) - today.weekday()) % 7 or 7
        return _midnight(today + timedelta(days=ahead))
    found = find_date(text)
    if found is not None:
        year, month, day = found
        moment = date(year or today.year, month, day)
        if year is None and moment <= today:
            moment = date(today.year + 1, month, day)
        return _midnight(moment) if moment > today else None
    match = IN_MONTH.search(text)
    if match:
        month = MONTHS[match.group("month").lower()]
        year = today.year if month > today.month else today.year + 1
        return _midnight(date(year, month, 1))
    return None
