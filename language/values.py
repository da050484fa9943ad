"""The stored form of the values of some predicates, one function for every way a value
comes in (learned from text by the check, asserted through the API, the dashboard or the
CLI), and their readable form:

- phone: E.164 ("+442079460958") with the phonenumbers library when the text gives a
  country code ("+44 ...", "0044 ...") or DEWEE_PHONE_REGION names the region numbers
  without one are read in; otherwise kept as typed, its spaces and separators tidied.
- email: the whole address lower-cased, without the punctuation around it ("Me@X.com." ->
  "me@x.com").
- birthday: ISO, "YYYY-MM-DD", or "--MM-DD" without a year (ISO 8601's form for a day of
  any year); shown as "14 February", "9 March 1988" (``display_value``).

``normalised`` says None when the text is no value of the predicate (a phone number no
country could have, an address that is not one): learned text then teaches nothing, and an
asserted value is kept as given (``stored_value``), since an operator's word is not refused.
"""

import re
from datetime import date
from email.utils import parseaddr

import phonenumbers
from django.conf import settings

from language.moments import MONTHS

# An address as mail systems take it: a local part of the usual characters, a domain of
# labels with a dot between them, each part within the lengths RFC 5321 allows. Stricter
# than RFC 5322 on purpose: what people type.
_EMAIL = re.compile(
    r"[A-Za-z0-9._%+'-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}"
)
# An address as it appears in running text, not glued to a word before it ("x.ana@..." is
# read whole): what the extractor and the entity tagger find before it is checked.
EMAIL_IN_TEXT = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Around an address or a number in running text: quotes, brackets, end of sentence.
_AROUND = " \t\r\n.,;:!?\"'()[]{}<>«»“”‘’"
# Read after blanks are collapsed to one space, so one optional space on each side.
_SEPARATORS = re.compile(r" ?([-./]) ?")
# Digits a phone number has at least and at most (E.164 allows 15).
PHONE_MIN_DIGITS, PHONE_MAX_DIGITS = 7, 15
_ISO_DAY = re.compile(r"(?P<year>\d{4}|-)-(?P<month>\d{2})-(?P<day>\d{2})")


def phone_region() -> str | None:
    """The region (ISO 3166 alpha-2) numbers without a country code are read in, if any."""
    region = (getattr(settings, "DEWEE_PHONE_REGION", "") or "").strip().upper()
    return region or None


def _tidy_phone(text: str) -> str:
    """As typed, with single spaces and no spaces around a separator: "555 - 0142" ->
    "555-0142"."""
    return _SEPARATORS.sub(r"\1", " ".join(text.split()))


def normalise_phone(text: str, *, region: str | None = None) -> str | None:
    """``text`` as a phone number: E.164 when it has a country code or ``region`` is given,
    else as typed and tidied; None when it cannot be one (too few or too many digits, or a
    length no number of its country has). Whether a number is allocated is not asked
    (phonenumbers' is_valid_number): that changes with each release of its data, and the
    numbers reserved for examples ("+44 7700 900123") are what people type in tests."""
    # An area code's brackets stay: "(020) 7946 0958".
    stripped = text.strip().lstrip(_AROUND.replace("(", "")).rstrip(_AROUND.replace(")", ""))
    if stripped.endswith(")") and stripped.count(")") > stripped.count("("):
        stripped = stripped[:-1]
    if stripped.startswith("(") and stripped.endswith(")") and stripped.count("(") == 1:
        stripped = stripped[1:-1].strip()  # "(+81 90 1234 5678)": the whole in brackets
    digits = re.sub(r"\D", "", stripped)
    if not PHONE_MIN_DIGITS <= len(digits) <= PHONE_MAX_DIGITS:
        return None
    international = stripped.startswith("+") or stripped.startswith("00")
    if not international and region is None:
        return _tidy_phone(stripped)
    candidate = "+" + stripped[2:] if stripped.startswith("00") else stripped
    try:
        number = phonenumbers.parse(candidate, None if international else region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def normalise_email(text: str) -> str | None:
    """``text`` as an email address, lower-cased, or None when it is none. A display name
    ("Ana <ana@x.org>") and "mailto:" are dropped."""
    stripped = text.strip().strip(_AROUND)
    if stripped.lower().startswith("mailto:"):
        stripped = stripped[len("mailto:") :]
    _name, address = parseaddr(stripped)
    address = (address or stripped).strip(_AROUND)
    if not _EMAIL.fullmatch(address):
        return None
    return address.lower()


def normalise_birthday(text: str) -> str | None:
    """An ISO birthday ("1988-03-09", "--03-09") as stored; None for anything else (the
    extractor reads a birthday written in words into this form)."""
    match = _ISO_DAY.fullmatch(text.strip())
    if match is None:
        return None
    month, day = int(match.group("month")), int(match.group("day"))
    year = 2000 if match.group("year") == "-" else int(match.group("year"))  # 2000: a leap year
    try:
        date(year, month, day)
    except ValueError:
        return None
    return text.strip()


def normalised(predicate: str, value: str) -> str | None:
    """The stored form of ``value`` for ``predicate``; None when it is no value of it. A
    predicate without a normaliser keeps its value."""
    if predicate == "phone":
        return normalise_phone(value, region=phone_region())
    if predicate == "email":
        return normalise_email(value)
    return value


def stored_value(predicate: str, value: str) -> str:
    """What an asserted value is stored as: normalised where it can be, else as given."""
    return normalised(predicate, value) or value


def display_value(predicate: str, value: str) -> str | None:
    """A value as a person reads it, where it differs from the stored form: a birthday
    "14 February" ("--02-14") or "9 March 1988" ("1988-03-09"). None: shown as stored."""
    if predicate not in ("birthday", "birth_date"):
        return None
    match = _ISO_DAY.fullmatch(value.strip())
    if match is None or normalise_birthday(value) is None:
        return None
    month = MONTHS[int(match.group("month")) - 1]
    day = int(match.group("day"))
    return (
        f"{day} {month}" if match.group("year") == "-" else f"{day} {month} {match.group('year')}"
    )
