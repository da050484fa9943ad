"""Dates in conversational text: birthdays ("March 3rd, 1990", "3 March") and the start of a
future change ("next month", "on June 1", "the 20th", "in two weeks", "end of July",
"tomorrow")."""

import calendar
import re
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta

from language.moments import MONTHS as CALENDAR_MONTHS
from language.moments import WEEKDAYS as CALENDAR_WEEKDAYS

MONTHS = {
    **{name.lower(): number for number, name in enumerate(CALENDAR_MONTHS, start=1)},
    **{name[:3].lower(): number for number, name in enumerate(CALENDAR_MONTHS, start=1)},
    "sept": 9,
}
WEEKDAYS = [day.lower() for day in CALENDAR_WEEKDAYS]
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a couple": 2,
    "a few": 3,
}
_UNITS = ["th", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
_UNITS += ["ninth"]
ORDINALS = {word: number for number, word in enumerate(_UNITS) if number}
ORDINALS |= {
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
}
ORDINALS |= {f"twenty-{w}": 20 + n for w, n in list(ORDINALS.items()) if n < 10}
ORDINALS |= {f"twenty {w}": 20 + n for w, n in list(ORDINALS.items()) if n < 10}
ORDINALS |= {"thirty-first": 31, "thirty first": 31}


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_MONTH = rf"(?P<month>{_alternatives(MONTHS)})\.?"
_DAY = rf"(?P<day>\d{{1,2}}(?:st|nd|rd|th)?|{_alternatives(ORDINALS)})"
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(?:the\s+)?{_DAY}\b{_YEAR}", re.IGNORECASE)
DAY_MONTH = re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\b{_YEAR}", re.IGNORECASE)
ISO_DATE = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
_AMOUNT = rf"(?P<n>\d+|{_alternatives(NUMBER_WORDS)})"

WEEKDAY = rf"(?P<weekday>{_alternatives(WEEKDAYS)})\b"


def _day_number(text: str) -> int:
    text = text.lower()
    if text in ORDINALS:
        return ORDINALS[text]
    return int(re.sub(r"\D", "", text))


def _date_from(match: re.Match[str]) -> tuple[int | None, int, int] | None:
    month_text = match.group("month")
    month = int(month_text) if month_text.isdigit() else MONTHS[month_text.lower()]
    day = _day_number(match.group("day"))
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


# The future ----------------------------------------------------------------------------------


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    return date(day.year + index // 12, index % 12 + 1, 1)


def _month_end(first: date) -> date:
    return first.replace(day=calendar.monthrange(first.year, first.month)[1])


def _weekday_ahead(today: date, weekday: int, *, skip_week: bool = False) -> date:
    ahead = (weekday - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead + (7 if skip_week else 0))


# Where in a month: "early July" is its 1st, "mid-July" the 15th, "late July" the 20th, "the
# end of July" its last day.
_PART = r"(?P<part>early|earlier|beginning of|start of|the beginning of|the start of|mid|mid-|"
_PART += r"middle of|the middle of|late|end of|the end of)"


def _in_month(first: date, part: str | None) -> date:
    part = (part or "").lower().removeprefix("the ").rstrip("-")
    if part in {"mid", "middle of"}:
        return first.replace(day=15)
    if part == "late":
        return first.replace(day=20)
    if part == "end of":
        return _month_end(first)
    return first


Resolver = Callable[[re.Match[str], date, bool], date | None]


def _relative_day(match: re.Match[str], today: date, _future: bool) -> date:
    return today + timedelta(days=2 if match.group("after") else 1)


def _named_unit(match: re.Match[str], today: date, _future: bool) -> date | None:
    """ "next month", "the end of this year", "early next month", "end of the week"; plain
    "this month" names no day of its own (the change is current)."""
    unit, which = match.group("unit").lower(), (match.group("which") or "this").lower()
    part = (match.group("part") or "").lower().removeprefix("the ").rstrip("-")
    ahead = 1 if which == "next" else 0
    if not part and not ahead:
        return None
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=ahead)
        return monday + timedelta(days=4) if part in {"end of", "late"} else monday
    if unit == "month":
        return _in_month(_add_months(today, ahead), part)
    if part in {"end of", "late"}:
        return date(today.year + ahead, 12, 31)
    return date(today.year + ahead, 1, 1)


def _amount(match: re.Match[str], today: date, _future: bool) -> date:
    raw = match.group("n").lower()
    n = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
    unit = match.group("unit").lower()
    if unit == "month":
        return _add_months(today, n).replace(day=min(today.day, 28))
    days = {"day": 1, "week": 7, "fortnight": 14, "year": 365}[unit] * n
    return today + timedelta(days=days)


def _weekday(match: re.Match[str], today: date, _future: bool) -> date:
    """ "on Friday", "this Friday": the coming one; "next Friday": the one of next week."""
    weekday = WEEKDAYS.index(match.group("weekday").lower())
    if (match.groupdict().get("which") or "").lower() == "next":
        return today - timedelta(days=today.weekday()) + timedelta(weeks=1, days=weekday)
    return _weekday_ahead(today, weekday)


def _weekend(match: re.Match[str], today: date, _future: bool) -> date:
    return _weekday_ahead(today, 5, skip_week=(match.group("which") or "").lower() == "next")


def _calendar_date(match: re.Match[str], today: date, future: bool) -> date | None:
    found = _date_from(match)
    if found is None:
        return None
    year, month, day = found
    if year is not None:
        return date(year, month, day)
    # Without a year: this year's, or next year's when the text speaks of the future and
    # this year's has passed. A 29 February is that of the nearest leap year on that side.
    candidates = range(today.year, today.year + 9) if future else range(today.year, 0, -1)
    for candidate in candidates:
        if calendar.isleap(candidate) or (month, day) != (2, 29):
            moment = date(candidate, month, day)
            if not future or moment > today:
                return moment
    return None


def _day_of_month(match: re.Match[str], today: date, future: bool) -> date | None:
    """ "on the 20th": this month's if it is still to come, else next month's."""
    day = _day_number(match.group("day"))
    first = today.replace(day=1)
    for month_start in (first, _add_months(first, 1)):
        if day <= calendar.monthrange(month_start.year, month_start.month)[1]:
            moment = month_start.replace(day=day)
            if moment > today:
                return moment
    return None


def _month(match: re.Match[str], today: date, future: bool) -> date | None:
    """ "in September", "come September", "the end of July", "January 2031": the next such
    month to come, unless the text is not in a future tense and the month's day this year
    has passed ("as of May I work at ..." said in June)."""
    if not (match.group("prefix") or match.group("part") or match.group("year")):
        return None  # a bare month name: "May" is as often a verb
    month, part = MONTHS[match.group("month").lower()], match.group("part")
    if match.group("year"):
        return _in_month(date(int(match.group("year")), month, 1), part)
    this_year = _in_month(date(today.year, month, 1), part)
    if this_year > today:
        return this_year
    if month == today.month and not part:
        return None  # "in June", said in June: this month, no day of its own
    return _in_month(date(today.year + 1, month, 1), part) if future else None


def _year(match: re.Match[str], today: date, _future: bool) -> date:
    return date(int(match.group("year")), 1, 1)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Each way of naming a time to come, most specific first. ``future`` (the clause is in a future
# tense) lets "on March 3" mean next year's when this year's has passed.
_FUTURE_TIMES: list[tuple[re.Pattern[str], Resolver]] = [
    (_rx(r"\b(?P<after>the day after )?tomorrow\b"), _relative_day),
    (ISO_DATE, _calendar_date),
    (MONTH_DAY, _calendar_date),
    (DAY_MONTH, _calendar_date),
    (
        _rx(
            rf"\b(?:{_PART}\s*)?(?:(?P<which>this|next|the|this coming)\s+)"
            r"(?P<unit>week|month|year)\b"
        ),
        _named_unit,
    ),
    (_rx(rf"\bin\s+{_AMOUNT}\s+(?P<unit>day|week|fortnight|month|year)s?\b"), _amount),
    (
        _rx(
            r"\b(?:(?P<which>next|this coming|this|coming|on|starting|from|as of|by|is|will be)\s+)"
            + WEEKDAY
        ),
        _weekday,
    ),
    (_rx(rf"^(?:so\s+|and\s+|but\s+)?{WEEKDAY}"), _weekday),
    (_rx(r"\b(?P<which>this|next)\s+weekend\b"), _weekend),
    (
        _rx(
            r"\b(?:on\s+)?the\s+(?P<day>\d{1,2}(?:st|nd|rd|th))\b"
            rf"(?!\s+(?:of\s+)?(?:{_alternatives(MONTHS)}|century|floor|time|anniversary|birthday|"
            r"place|grade|percentile)\b)"
        ),
        _day_of_month,
    ),
    (
        _rx(
            r"\b(?:(?P<prefix>in|from|starting|this|next|come|by|around|after|as of)\s+)?"
            + rf"(?:{_PART}\s*)?{_MONTH}\b"
            + r"(?!\s+\d{1,2}\b|\s+(?:be|have|not|sound|seem|take|want|need)\b)"
            r"(?:\s+(?P<year>\d{4}))?"
        ),
        _month,
    ),
    (_rx(r"\b(?:in|from|starting|by|as of|come|from early|in early)\s+(?P<year>20\d{2})\b"), _year),
]


def future_start(text: str, now: datetime, *, future_tense: bool = True) -> datetime | None:
    """When a change that ``text`` announces takes effect, if it names a time after today.
    ``future_tense``: the text speaks of the future, so a day of the year already past
    ("I start on March 3", said in June) means next year's."""
    today = now.astimezone(UTC).date()
    for pattern, resolve in _FUTURE_TIMES:
        for match in pattern.finditer(text):
            moment = resolve(match, today, future_tense)
            if moment is not None and moment > today:
                return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    return None
