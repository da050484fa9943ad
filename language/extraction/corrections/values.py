"""What a value said alone is, by its form or its word list: an email, a phone number, a
date, a language, a diet, a country, a city, a job ("sorry, Linz", "Slovak not Czech"); by
the words before it ("the bank I work for is Starling"); or, a name of no known kind
("typo - Siemens"), one statement for each slot a name may fill."""

import re
from dataclasses import replace

from language.extraction.contacts import EMAIL
from language.extraction.dates import birthday_value
from language.extraction.statements import (
    LIKELY,
    MULTI_VALUED,
    Statement,
    is_lowercase_text,
    proper_name,
    statement,
)
from language.extraction.vocabulary import COUNTRIES, DIETS, JOB_WORDS, LANGUAGES, STOP_WORDS
from language.places import city
from language.values import normalised

# The words around a value said alone: "it's Linz", "I meant Linz", "Linz actually".
_LEAD = re.compile(
    r"^(?:(?:it's|its|it\s+is|that's|thats|i'm|im|i\s+am|i\s+meant?|the\s+right\s+one\s+is|"
    r"the\s+new\s+one\s+is|actually|just|mine's|mine\s+is|she's|he's|oh|and|so|ok|okay|"
    r"ugh|well|wait|in|at)[,!]?\s{1,3})+",
    re.I,
)
_TAIL = re.compile(r"(?:\s{1,3}(?:actually|then|lol|haha|tho|though|btw|really)){1,4}$", re.I)
_DENIED = re.compile(r"\b(?:not|never|isn't|isnt|aren't|wasn't|no\s+longer)\b|n't\b", re.I)
# The single-valued slots a name may fill.
_NAMED_SINGLE = ("employer", "city", "country", "job_title", "spouse", "partner")


def bare_value(raw: str, *, hint: str | None = None) -> list[Statement]:
    """What a value said alone is, by its form or its word list: an email, a phone number, a
    date, a language, a diet, a country, a city, a job. ``hint``: the predicate the value
    stands in for, when the text said it before."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    if not raw or _DENIED.search(raw):
        return []  # "No, my email isn't sam@example.com": what it is not
    evidence = raw
    email = EMAIL.search(raw)
    if email:
        return [statement("email", email.group(0), evidence, 1.0)]
    if re.match(r"^\+?[\d][\d ()./-]{6,24}\d$", raw):
        phone = normalised("phone", raw)
        return [statement("phone", phone, evidence, 1.0)] if phone else []
    if hint in (None, "birthday"):
        born = birthday_value(raw)
        if born and re.search(r"\d", raw):
            return [statement("birthday", born, evidence, 1.0)]
    if hint is not None:
        # Said in place of a value of a known slot: the value runs to the first stop word
        # ("data engineer since the reorg").
        words = []
        for word in raw.split():
            if word.lower() in STOP_WORDS:
                break
            words.append(word)
        raw = evidence = " ".join(words)
    if re.match(r"^(?:not|no|never)\b", raw, re.I):
        return []
    words = raw.split()
    if not words or len(words) > 4:
        return []
    lowered = raw.lower()
    head = words[-1].lower()
    if lowered in LANGUAGES and hint in (None, "language"):
        return [statement("language", raw.capitalize(), evidence, LIKELY)]
    if lowered in DIETS and hint in (None, "diet"):
        return [statement("diet", lowered, evidence, 1.0)]
    if hint in ("diet", "language", "email", "phone", "birthday"):
        return []
    if hint == "job_title" or (hint is None and head in JOB_WORDS):
        value = " ".join(w for w in words if w.lower() not in {"a", "an", "the"})
        return [statement("job_title", value, evidence, 1.0)] if head in JOB_WORDS else []
    name = proper_name(raw, lenient=is_lowercase_text(raw))
    if not name:
        return []
    if hint is not None and hint not in ("city", "country"):
        if hint in MULTI_VALUED and hint not in ("pet", "child"):
            return []
        return [statement(hint, name, evidence, 1.0)]
    if name.lower() in COUNTRIES:
        return [statement("country", name, evidence, 1.0)]
    if hint == "city" or (hint is None and name[:1].isupper() and city(name)):
        return [statement("city", name, evidence, 1.0)]
    return []


# "the bank I work for is Starling": the slot a value is said to fill, by the words before it.
_SLOT_WORDS = (
    ("job_title", re.compile(r"\b(?:job\s+title|title|role|position)\b", re.I)),
    (
        "employer",
        re.compile(
            r"\b(?:work|works|working|company|employer|bank|firm|shop|store|office)\b", re.I
        ),
    ),
    ("email", re.compile(r"\b(?:e-?mail)\b", re.I)),
    ("phone", re.compile(r"\b(?:number|phone|mobile|cell)\b", re.I)),
    ("birthday", re.compile(r"\b(?:birthday|bday|b-day|born)\b", re.I)),
    ("partner", re.compile(r"\b(?:bf|gf|boyfriend|girlfriend|partner|fianc[ée]e?)\b", re.I)),
    ("spouse", re.compile(r"\b(?:husband|wife|hubby|wifey|spouse)\b", re.I)),
    ("city", re.compile(r"\b(?:live|living|city|town|based)\b", re.I)),
    ("country", re.compile(r"\bcountry\b", re.I)),
)
_IS = re.compile(r"^(?P<what>.{1,80}?)\s(?:is|'s|are)\s{1,3}(?P<v>[^,;]{1,60})$", re.I)


def said_as(raw: str) -> list[Statement]:
    match = _IS.match(raw.strip())
    if not match or not re.search(r"\b(?:i|my|i'm|im)\b", match.group("what"), re.I):
        return []
    for predicate, words in _SLOT_WORDS:
        if words.search(match.group("what")):
            return bare_value(match.group("v"), hint=predicate)
    return []


def candidates(raw: str, old: str) -> list[Statement]:
    """A name said in place of another ("Estela, not Estrella"), its kind unsaid: one
    statement for each slot a name may fill, each holding only where ``old`` is held."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    name = proper_name(raw)
    if not name or len(raw.split()) > 4 or not old[:1].isupper():
        return []
    return [
        replace(statement(predicate, name, raw, 1.0), ended=old, level="candidate")
        for predicate in (*_NAMED_SINGLE, "pet", "child")
    ]


def retyped(raw: str) -> list[Statement]:
    """A name said alone as a correction ("typo - Siemens"), its kind unsaid: one statement
    for each single-valued slot a name may fill, each holding only where the agent holds a
    value it is a retyping of."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    name = proper_name(raw, lenient=is_lowercase_text(raw))
    if not name or len(raw.split()) > 4:
        return []
    return [
        replace(statement(predicate, name, raw, 1.0), level="candidate")
        for predicate in _NAMED_SINGLE
    ]
