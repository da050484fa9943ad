"""What extraction finds: a statement about the speaker, and the value cleaners its rules
share."""

import re
import string
from dataclasses import dataclass
from datetime import datetime

from language.extraction.vocabulary import NAME_CONNECTORS, PET_SPECIES, STOP_WORDS
from language.places import place_name
from language.text import normalise_value

# How far a statement is trusted. A speaker stating their own employer or city is as good a
# source as an operator typing it in (whose facts default to 1.0), so an explicit change of
# the same verification supersedes the old value rather than waiting as a dispute.
EXPLICIT = 1.0
LIKELY = 0.9
# "We moved to ...": about a household the speaker presumably belongs to.
HOUSEHOLD = 0.6

MULTI_VALUED = frozenset({"likes", "dislikes", "language", "skill", "child", "pet"})
ARTICLES = frozenset({"a", "an", "the", "some"})
NOT_A_VALUE = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "your",
        "his",
        "her",
        "our",
        "their",
        "its",
        "this",
        "that",
        "it",
        "home",
        "work",
        "there",
        "here",
        "them",
        "him",
        "you",
        "we",
        "us",
        "myself",
    ]
)


@dataclass(frozen=True)
class Statement:
    """One statement about the speaker. ``value`` None: the text ends the slot's value;
    ``ended`` is then the value it names as ended ("I left Dropbox"), if any. With a
    ``value``, ``ended`` is the value it replaces ("leaving Tallinn for Tartu"): the statement
    holds for the slot that holds that value, and for no other."""

    predicate: str
    value: str | None
    evidence: str
    confidence: float
    verification: str = "stated"
    qualifier: str = ""
    ended: str | None = None
    valid_from: datetime | None = None
    level: str = "pattern"
    # A change announced earlier for a later date, taken back ("cancelled": "the move is
    # off") or moved ("moved": "the start got pushed to August 3", the new date in
    # ``valid_from``); ``ended`` is then the value of the change, when the text names it.
    # Only a change the agent holds for later in the slot is touched (facts.services).
    schedule: str = ""

    @property
    def is_ending(self) -> bool:
        return self.value is None and not self.schedule


def qualifier_for(predicate: str, value: str | None) -> str:
    """Multi-valued predicates are keyed by their value: likes[sushi]."""
    if predicate in MULTI_VALUED and value:
        return normalise_value(value)
    return ""


# Slots whose value is a name: typed in lower case ("my son jake"), kept with capitals.
NAMED = frozenset({"spouse", "partner", "child", "pet"})


def written_as_a_name(predicate: str, value: str) -> str:
    """A value typed in lower case, with the capitals of its kind: a place as the gazetteer
    writes it ("new york" -> "New York"), a person's or a pet's name with capitals."""
    if value != value.casefold():
        return value
    if predicate in ("city", "country"):
        return place_name(value)
    if predicate == "language":
        return string.capwords(value)  # "korean" -> "Korean": a language is a proper noun
    if predicate in NAMED and not (predicate == "pet" and value in PET_SPECIES):
        # A pet known only by its species ("we got a cat") keeps the species as written.
        return string.capwords(value)
    return value


def statement(
    predicate: str, value: str, evidence: str, confidence: float, verification: str = "stated"
) -> Statement:
    value = written_as_a_name(predicate, value)
    return Statement(
        predicate=predicate,
        qualifier=qualifier_for(predicate, value),
        value=value,
        evidence=evidence.strip(" ,;"),
        confidence=confidence,
        verification=verification,
    )


def ending(predicate: str, ended: str | None, evidence: str, confidence: float) -> Statement:
    return Statement(
        predicate=predicate,
        qualifier=qualifier_for(predicate, ended),
        value=None,
        ended=ended,
        evidence=evidence.strip(" ,;"),
        confidence=confidence,
    )


_CUT = re.compile(r"[,;:!?()\"]|(?<!\bSt)(?<!\bMt)(?<!\bDr)\.(?:\s|$)|\s[-–—]\s")


def _head(raw: str) -> list[str]:
    return _CUT.split(raw, maxsplit=1)[0].split()


def is_lowercase_text(text: str) -> bool:
    """Text typed without any capital (not even "I"), where a name cannot be told by its
    capital. A capitalised sentence without one ("I joined the team") is not such text."""
    return not re.search(r"[A-Z]", text)


def proper_name(raw: str, *, lenient: bool = False, max_words: int = 6) -> str | None:
    """The proper name ``raw`` starts with: capitalised words and the connectors inside
    them ("Bank of America"), a leading "the" dropped. ``lenient``: text without capitals,
    where the name runs to the first stop word instead."""
    tokens = _head(raw)
    if not lenient and tokens and tokens[0].lower() == "the" and len(tokens) > 1:
        tokens = tokens[1:]
    words: list[str] = []
    for index, token in enumerate(tokens[:max_words]):
        word = token.strip("'\"")
        if not word.strip("."):
            break
        if lenient:
            if not words and word.lower() in ARTICLES | NOT_A_VALUE:
                return None  # "the team", "my keys": a common noun, not a name
            if word.lower() in STOP_WORDS:
                break
            words.append(word)
            continue
        if (
            word[0].isupper()
            or word[0].isdigit()
            or (
                words
                and word.lower() in NAME_CONNECTORS
                and index + 1 < len(tokens)
                and tokens[index + 1][:1].isupper()
            )
        ):
            words.append(word)
        else:
            break
    if lenient and len(words) > 3:
        return None
    value = " ".join(words).rstrip(".")
    if not value or value.lower() in NOT_A_VALUE or value.lower() in ARTICLES:
        return None
    return value


def phrase(raw: str, *, max_words: int = 5, stops: frozenset[str] = STOP_WORDS) -> str | None:
    """A common-noun phrase: to the first stop word, leading articles dropped."""
    words: list[str] = []
    for token in _head(raw):
        word = token.strip(".'\"")
        if not word or word.lower() in stops:
            break
        if not words and word.lower() in ARTICLES:
            continue
        words.append(word)
    if not words or len(words) > max_words or words[0].lower() in NOT_A_VALUE:
        return None
    return " ".join(words)


_LIST_END = re.compile(
    r"(?<=\s)(?:and|&)\s[^,]{1,80}?(?=,\s(?!(?:a\s+bit|a\s+little|some|basic|bits|fluent|"
    r"conversational|native|also|plus|and|or)\b))"
)
_FILLER = re.compile(
    r"\s{0,3}(?:like|very|really|so|such|properly|mostly|especially|i mean)\b", re.I
)


def listed(raw: str, *, max_words: int = 5) -> list[str]:
    """The items of "sushi, ramen and tacos" (each a phrase)."""
    head = _CUT.split(raw, maxsplit=1)[0] if "," not in raw else raw.split(".")[0]
    # "pottery and woodwork, very relaxing stuff": the list ends at its "and".
    end = _LIST_END.search(head)
    head = head[: end.end()] if end else head
    # Spaces before "and" or "&" read from the run's first one only (a long run: quadratic).
    parts = re.split(
        r",\s*(?:and\s+|or\s+)?|(?<!\s)\s+(?:and|or)\s+|(?<!\s)\s*&\s*|(?<=\s)&\s*", head
    )
    values: list[str] = []
    for part in parts:
        if _FILLER.match(part):
            break  # "knitting, like properly, ...": a remark, not an item
        # "French and now Arabic too"
        part = re.sub(r"^\s*(?:now|also|even|then)\s+", "", part, flags=re.I)
        if values and _CLAUSE_OPENS.match(part):
            break  # "I still hate olives, nothing's changed": a clause, not an item
        value = phrase(part, max_words=max_words)
        if value is None:
            break
        values.append(value)
        if "," in head and not part.rstrip(" .!?'\"").endswith(value.split()[-1]):
            break  # "biryani anymore after eid, had way too much": the list ended in a reason
    return values


# A part of a list that is a clause of its own: a pronoun or a contracted verb first.
_CLAUSE_OPENS = re.compile(
    r"\s{0,3}(?:[a-z]{1,12}'(?:s|re|ve|ll|d|m)\b|(?:nothing|everything|something|which|who|that|it|"
    r"he|she|they|we|you|i|had|has|have|was|were|is|are|got|made|did|forgot|forget|lol|haha|"
    r"could|would|should|can|will|might|must|tastes|smells|looks|sounds|feels|makes)\b)",
    re.I,
)
