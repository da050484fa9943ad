"""The speaker's own email signature: a block of name, title, company, phone and email
("Regards,\\nAmara Nwosu\\nHead of Finance, Paystack\\n...", "new signature: Maya Cohen |
Office Manager | Shalom Dental | +972 ... | maya@..."). A signature is the speaker's only
when the message says so ("my new signature", "my email footer", "that's me", "how I sign
my emails"): a signature pasted without that is anyone's (language/attribution.py has
already taken out quoted and forwarded text, and the signatures in it)."""

import re
from dataclasses import dataclass

from language.extraction.contacts import EMAIL, PHONE
from language.extraction.patterns.work import _title
from language.extraction.statements import EXPLICIT, Statement, proper_name
from language.extraction.statements import statement as said

# The message says the block is the speaker's.
OWNED = re.compile(
    r"\b(?:my|our)\s+(?:new\s+|updated\s+|current\s+|work\s+|email\s+|e-mail\s+)*"
    r"(?:signature|sig|footer|sign-?off|email\s+footer)\b"
    r"|\b(?:new|updated)\s+(?:email\s+)?(?:signature|sig|footer)\b"
    r"|\bthat(?:['’]s|\s+is)\s+(?:me|mine)\b|\bthis\s+is\s+me\b|\bhow\s+i\s+sign\b"
    r"|\bi\s+sign\s+(?:off\s+)?(?:my\s+)?(?:emails|mails|messages)\b",
    re.IGNORECASE,
)
# A block's first line: a sign-off, the "-- " delimiter, or a label.
_OPENS = re.compile(
    r"^[ \t]{0,8}(?:(?:(?:best|kind|warm|warmest)[ \t]{1,3})?regards|best(?:[ \t]{1,3}wishes)?|"
    r"cheers|thanks|thank[ \t]you|many[ \t]thanks|sincerely|"
    r"yours(?:[ \t]{1,3}(?:sincerely|truly))?|"
    r"all[ \t]the[ \t]best|take[ \t]care|-{2,3}|—|(?:my[ \t]{1,3})?(?:(?:new|updated)[ \t]{1,3})?"
    r"(?:email[ \t]{1,3})?(?:signature|sig|footer)|contact)[ \t]{0,3}[,:!.]?[ \t]{0,3}",
    re.IGNORECASE,
)
# The separators of a signature's fields on one line.
_FIELDS = re.compile(r"(?<!\s)\s++[|·•]\s|(?<!\s)\s*+,\s|(?<!\s)\s++/\s")
# A field's label: "Tel:", "M:", "Email:", "Mob.".
_LABEL = re.compile(
    r"^(?:tel|t|m|mob|mobile|cell|phone|ph|p|office|e|email|e-mail|w|web|contact)"
    r"(?::|\.\s)\s*",
    re.IGNORECASE,
)
# A remark after the block on its line: "— this is my new email footer, too long?".
_REMARK = re.compile(r"(?<!\s)\s++[—–-]\s.*$")
_SENTENCE = re.compile(r"\b(?:i|i'm|i've|my|me|we|you|is|are|was)\b", re.IGNORECASE)
_WEB = re.compile(r"^(?:https?://|www\.)|\.(?:com|org|net|io|co)(?:/|$)", re.IGNORECASE)


@dataclass
class _Fields:
    title: str | None = None
    employer: str | None = None
    phone: str | None = None
    email: str | None = None


def _lines(text: str) -> list[list[str]]:
    """The blocks of ``text`` that may be a signature, each as its fields."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        opening = _OPENS.match(line)
        if opening:
            current = []
            blocks.append(current)
            line = line[opening.end() :]
        elif current is None and len(_FIELDS.split(line)) >= 3:
            # "Maya Cohen | Office Manager | Shalom Dental | ...": a block of its own.
            current = []
            blocks.append(current)
        if current is None:
            continue
        if not line.strip():
            if current:
                current = None  # a blank line ends the block
            continue
        line = _REMARK.sub("", line.strip())
        current.extend(f.strip() for f in _FIELDS.split(line) if f.strip())
    return blocks


def _read(fields: list[str]) -> _Fields:
    found = _Fields()
    for field in fields:
        if _SENTENCE.search(field):
            continue  # "thanks, I'm a nurse": a sentence, not a field
        value = _LABEL.sub("", field).strip()
        email = EMAIL.search(value)
        if email:
            found.email = found.email or email.group(0)
            continue
        phone = PHONE.fullmatch(value)
        if phone and 7 <= len(re.sub(r"\D", "", value)) <= 15:
            found.phone = found.phone or value
            continue
        if _WEB.search(value):
            continue
        if found.title is None:
            title = _title(re.sub(r"(?<!\s)\s++@", " at ", value))
            if title and title.lower() == value.lower().split(" at ")[0].strip().lower():
                found.title = title
                company = re.search(r"\s(?:at|@)\s+(.+)$", value)
                if company:
                    found.employer = proper_name(company.group(1))
                continue
        elif found.employer is None:
            found.employer = proper_name(value)
    return found


# The "-- " line that opens a signature below a message (RFC 3676's delimiter, as typed).
_DELIMITER = re.compile(r"^[ \t]{0,8}-{2,3}[ \t]{0,3}$", re.MULTILINE)
# Words before a signature that make the message someone else's: a paste, a reply to write.
_NOT_MINE = re.compile(
    r"\b(?:his|her|their|your|he|she|they|him|them|who|who's|wrote|writes|says|said|sent|"
    r"forwarded|received|got\s+this|reply|respond|answer|from\s+(?:a|an|the|my|our)\s+\w+|"
    r"(?:this|that|the|an?)\s+(?:e-?mail|message|mail|msg|text|letter|note))\b|(?<!\w)\w++'s\b",
    re.IGNORECASE,
)


def _signed_below(text: str) -> bool:
    """A message of the speaker's own that ends on a "-- " signature: nothing above it
    makes the message someone else's (attribution has taken out quoted text already)."""
    delimiters = list(_DELIMITER.finditer(text))
    if len(delimiters) != 1:
        return False
    return not _NOT_MINE.search(text[: delimiters[0].start()])


def _paragraphs(text: str) -> list[list[str]]:
    """The paragraphs of ``text`` (blank-line apart) of two lines or more, each as its
    fields: a signature pasted without a sign-off ("my new sig:\n\nPriya Raman\n...")."""
    found = []
    for paragraph in re.split(r"\n[ \t]*\n", text):
        lines = [line.strip() for line in paragraph.split("\n") if line.strip()]
        if len(lines) >= 2:
            found.append([f.strip() for line in lines for f in _FIELDS.split(line) if f.strip()])
    return found


def signature(text: str) -> list[Statement]:
    """The statements of the speaker's own signature in ``text``, if the text says it is
    theirs."""
    if not OWNED.search(text) and not _signed_below(text):
        return []
    for block in [*_lines(text), *_paragraphs(text)]:
        fields = _read(block)
        if fields.title is None and fields.email is None and fields.phone is None:
            continue
        found = []
        evidence = " | ".join(block)[:300]
        for predicate in ("job_title", "employer", "phone", "email"):
            value = getattr(fields, "title" if predicate == "job_title" else predicate)
            if value:
                found.append(said(predicate, value, evidence, EXPLICIT))
        return found
    return []
