"""The speaker's birthday: a date ("my birthday is September 4th", "dob: 3/4/90", "born 11
Nov 1988", "turning 30 on May 2") or a day near the message's ("it's my birthday today!!"),
the latter as a month and a day without a year."""

import re
from datetime import datetime, timedelta

from language.extraction.dates import birthday_value
from language.extraction.grammar import REST, rx
from language.extraction.statements import EXPLICIT, Statement
from language.extraction.statements import statement as said
from language.moments import shifted

BIRTHDAY = rx(
    r"\bmy\s+(?:birthday|bday|b-day|date of birth|dob|birth\s?date)(?:\s+is|'s|\s+falls)"
    r"(?:\s+actually|\s+really|\s+in\s+fact)?\s+" + REST,
    r"\bi(?:'m|\s+am)?\s+(?:turn|turning)\s+\d+\s+" + REST,
    r"\bi\s+was\s+born\s+" + REST,
    # A form's label or a message without its subject: "birthday 19 july 1985", "dob:
    # 3/4/90", "b. 1990-05-12", "born 11 Nov 1988", "birthday's on the 9th of november".
    r"^(?:(?:so|oh|and|also|btw|fyi)[,:]?\s+)*(?:my\s+)?(?:birthday|date\s+of\s+birth|dob|d\.o\.b\.?|"
    r"born(?:\s+on)?|b\.)(?:'s|\s+is)?\s*[:=-]?\s*(?:on\s+)?" + REST,
    r"^(?:i'm\s+|i\s+am\s+)?turning\s+\d+\s+" + REST,
)


# "3/4/90", "17/05", "03.04.1990": day first, as most of the world writes it (month first
# only when the day cannot be one).
_NUMERIC_DATE = re.compile(r"\A\s*(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?(?!\d)")


# "1992.08.17", "1992/8/17": year first.
_YEAR_FIRST_DATE = re.compile(r"\A\s*((?:19|20)\d\d)[/.](\d{1,2})[/.](\d{1,2})(?!\d)")


def _numeric_birthday(text: str) -> str | None:
    year_first = _YEAR_FIRST_DATE.match(text)
    if year_first:
        born, month_born, day_born = (int(g) for g in year_first.groups())
        valid = 1 <= month_born <= 12 and 1 <= day_born <= 31
        return f"{born}-{month_born:02d}-{day_born:02d}" if valid else None
    found = _NUMERIC_DATE.match(text)
    if not found:
        return None
    day, month = int(found.group(1)), int(found.group(2))
    if month > 12 and day <= 12:
        day, month = month, day
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    year = found.group(3)
    if year and len(year) == 2:
        year = f"19{year}" if int(year) > 30 else f"20{year}"
    return f"{year}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


# "it's my birthday today!!", "today is my bday", "it was my birthday yesterday": the day
# the message was written, give or take one.
_BIRTHDAY_ON = re.compile(
    r"\b(?:(?:it's|its|it\s+is|it\s+was|today\s+is|today's|tomorrow\s+is|yesterday\s+was)\s+"
    r"my\s+(?:birthday|bday|b-day)(?:\s+(?P<when>today|tomorrow|yesterday))?"
    r"|my\s+(?:birthday|bday|b-day)\s+(?:is|was)\s+(?P<when2>today|tomorrow|yesterday))\b"
    # Not "it's my birthday party tonight": a word of its own may follow only after a pause.
    r"(?!\s+(?-i:[a-z]))",
    re.IGNORECASE,
)
_DAYS_OFF = {"today": 0, "tomorrow": 1, "yesterday": -1}


def birthday_on(clause: str, now: datetime) -> list[Statement]:
    """A birthday said as a day near the message's: its month and day, without a year."""
    match = _BIRTHDAY_ON.search(clause)
    if not match:
        return []
    opening = match.group(0).split()[0].lower()
    when = (
        match.group("when")
        or match.group("when2")
        or (opening if opening in _DAYS_OFF else "today")
    )
    day = shifted(now, timedelta(days=_DAYS_OFF[when.lower()])).date()
    return [said("birthday", f"--{day.month:02d}-{day.day:02d}", match.group(0), EXPLICIT)]


def birthday(clause: str) -> list[Statement]:
    for pattern in BIRTHDAY:
        match = pattern.search(clause)
        value = match and (birthday_value(match.group("v")) or _numeric_birthday(match.group("v")))
        if match and value:
            # To the date's end: "my birthday is September 4th, not the 14th".
            head = re.split(r"[,;!?]|\.(?:\s|$)", match.group("v"), maxsplit=1)[0]
            evidence = clause[match.start() : match.start("v") + len(head)]
            return [said("birthday", value, evidence, EXPLICIT)]
    return []
