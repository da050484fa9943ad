"""Structured entities: emails, URLs, UUIDs, IP addresses, dates and phone numbers, by pattern.

Each value is found once, under one type: a span read as a date, a time, an IP address or a
version is never also a phone number.
"""

import re

from language.moments import MONTHS
from language.values import EMAIL_IN_TEXT

_MONTH = rf"(?:{'|'.join(month[:3] for month in MONTHS)})[a-z]*\.?"

# Tagged as they are. Order matters only for which kind a value is listed under first.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # Only from the start of a run of address characters: from each of its positions, a long
    # run without "@" would be read again and again. (Leading dots and signs are cut below.)
    ("email", re.compile(EMAIL_IN_TEXT.pattern + r"\b")),
    ("url", re.compile(r"\bhttps?://[^\s<>\"')\]]+", re.IGNORECASE)),
    (
        "uuid",
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
    ),
    # Not inside a longer dotted run: "10.4.12.1.7" is no address.
    (
        "ip",
        re.compile(
            r"(?=\d)(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}"
            r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.]?\d)"
        ),
    ),
    (
        "date",
        re.compile(
            # The lookaheads only make a non-starter fail fast.
            r"(?=\d)(?:"
            # Digit-bounded rather than word-bounded, so "2026-03-04T10:30Z" still has its date.
            r"(?<![\w.:/-])(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
            r"|\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})"
            # Dashes and dots only with a four-digit year: "1.2.10" is a version.
            r"|\d{1,2}[-.]\d{1,2}[-.]\d{4})(?![\d/.:-]\d)"
            # Spaces only with a plausible year, month and day, and not inside a longer
            # run of groups: "2026 03 04" is a date, "+1 2026 03 04 55" a phone.
            r"|(?<![\d+])(?<![\d+] )(?:(?:19|20)\d\d (?:0?[1-9]|1[0-2]) (?:0?[1-9]|[12]\d|3[01])"
            r"|(?:0?[1-9]|[12]\d|3[01]) (?:0?[1-9]|1[0-2]) (?:19|20)\d\d)(?! ?\d)"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}\b)"
            rf"|(?=[adfjmnos])\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",
            re.IGNORECASE,
        ),
    ),
]

# Spans that look like digit groups but are neither phone numbers nor IP addresses: times
# ("10:30", "9:45 pm") and version numbers ("v2.10.15", "version 10.4.12.1"). Not tagged.
_TIMES_AND_VERSIONS = re.compile(
    r"(?=[\dvrb])(?:(?<!\d)(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s*[ap]\.?m\b\.?)?(?!\d)"
    r"|\b(?:v|version\s+|release\s+|build\s+)\d+(?:\.\d+)+)",
    re.IGNORECASE,
)
# Digit groups with the separators phone numbers use: an optional +country code, an optional
# (area code), then groups split by one space, dot or dash. Not glued to a word, a ticket mark
# or another number ("INV-2024-0042", "#48213", "v10.4.12"), nor followed by more of one.
_PHONE_CANDIDATE = re.compile(
    r"(?=[\d+(])(?<![\w.+/#:@-])"
    r"(?:\+\d{1,3}[ .-]?)?"
    r"(?:\(\d{1,4}\)[ .-]?)?"
    r"\d{2,8}(?:[ .-]\d{2,8})*"
    r"(?![\w+/@]|[.:-]\d)"
)
# "Call 030 1234567": a word like these just before a number of two groups makes it a phone.
_PHONE_CUE = re.compile(
    r"\b(?:phone|tel|telephone|call|mobile|cell|cellphone|fax|whatsapp|sms|ring)\b[^\d\n]{0,12}$",
    re.IGNORECASE,
)
_DIGIT_GROUP = re.compile(r"\d+")


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


def _phones(text: str, taken: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """Phone numbers: 7 to 15 digits (E.164's longest), written with a leading +country code,
    an (area code), or at least three groups (two after a word like "call"). A bare digit run
    is an order, ticket or account number as often as a phone, so it needs the "+". Spans
    already read as a date, time, IP address or version are not phones."""
    phones = []
    for match in _PHONE_CANDIDATE.finditer(text):
        start = match.start()
        if _overlaps(match.span(), taken):
            continue
        value = match.group(0)
        groups = _DIGIT_GROUP.findall(value)
        if not 7 <= sum(len(g) for g in groups) <= 15:
            continue
        marked = value.startswith("+") or value.startswith("(")
        cued = _PHONE_CUE.search(text, max(0, start - 40), start) is not None
        if marked or len(groups) >= 3 or (cued and len(groups) >= 2):
            phones.append((value, start, match.end()))
    return phones


def structured_entities(text: str) -> list[tuple[str, str, int, int]]:
    """``(type, value, start, end)`` of every email, URL, UUID, IP address, date and phone
    number, in that order of types, each type in order of appearance. Values are stripped
    of trailing punctuation and lower-cased (an email of its leading dots and signs)."""
    found = []
    taken = [match.span() for match in _TIMES_AND_VERSIONS.finditer(text)]
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if kind == "ip" and _overlaps(match.span(), taken):
                continue
            taken.append(match.span())
            value = match.group(0).strip().rstrip(".,;:!?").lower()
            if kind == "email":
                value = value.lstrip(".+-")
            found.append((kind, value, match.start(), match.end()))
    for value, start, end in _phones(text, taken):
        found.append(("phone", value.lower(), start, end))
    return found
