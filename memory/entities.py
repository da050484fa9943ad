"""Rule-based entity extraction: the pre-pass that always runs, before any NER model.

Entities become tags ``entity:<type>:<value>`` on a memory; recall's entity pass boosts
memories that share an entity with the query.
"""

import re
from dataclasses import dataclass

ENTITY_PREFIX = "entity:"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("url", re.compile(r"\bhttps?://[^\s<>\"')\]]+", re.IGNORECASE)),
    (
        "uuid",
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
    ),
    ("ip", re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b")),
    ("phone", re.compile(r"(?<![\w.])\+?\d{1,3}?[ .-]?\(?\d{2,4}\)?(?:[ .-]?\d{2,4}){2,3}\b")),
    (
        "date",
        re.compile(
            r"\b(?:\d{4}-\d{2}-\d{2}"
            r"|\d{1,2}/\d{1,2}/\d{2,4}"
            r"|\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*,?\s+\d{4}"
            r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\s+\d{1,2},?\s+\d{4})\b",
            re.IGNORECASE,
        ),
    ),
]

# Capitalised words that start sentences or are common enough not to name anything.
_NOT_NAMES = frozenset(
    [
        "I",
        "I'm",
        "I've",
        "I'd",
        "I'll",
        "A",
        "An",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "Its",
        "It's",
        "He",
        "She",
        "They",
        "We",
        "You",
        "Your",
        "My",
        "Our",
        "Their",
        "His",
        "Her",
        "Hi",
        "Hey",
        "Hello",
        "Thanks",
        "Thank",
        "Yes",
        "No",
        "Oh",
        "Ok",
        "Okay",
        "Wow",
        "Well",
        "So",
        "But",
        "And",
        "Or",
        "If",
        "When",
        "What",
        "Where",
        "Who",
        "Why",
        "How",
        "Which",
        "Do",
        "Does",
        "Did",
        "Is",
        "Are",
        "Was",
        "Were",
        "Be",
        "Been",
        "Have",
        "Has",
        "Had",
        "Can",
        "Could",
        "Would",
        "Should",
        "Will",
        "Just",
        "Also",
        "Not",
        "Sure",
        "Great",
        "Good",
        "Nice",
        "Cool",
        "Really",
        "Very",
        "Maybe",
        "Let",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Today",
        "Tomorrow",
        "Yesterday",
    ]
)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?\b")


@dataclass(frozen=True)
class Entity:
    type: str
    value: str

    @property
    def tag(self) -> str:
        return f"{ENTITY_PREFIX}{self.type}:{self.value}"


def extract_entities(text: str) -> list[Entity]:
    """Structured entities (emails, URLs, UUIDs, IPs, phone numbers, dates) and capitalised
    words that are not common sentence openers (a cheap stand-in for person and place
    names). Values are lower-cased; order is first appearance."""
    found: dict[tuple[str, str], Entity] = {}
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            value = match.group(0).strip().rstrip(".,;:!?").lower()
            found.setdefault((kind, value), Entity(kind, value))
    for name in query_names(text):
        found.setdefault(("name", name), Entity("name", name))
    return list(found.values())


def query_names(text: str) -> list[str]:
    """Capitalised words that are not common openers, lower-cased, without repeats."""
    names = (m.group(0) for m in _NAME.finditer(text) if m.group(0) not in _NOT_NAMES)
    return list(dict.fromkeys(name.lower() for name in names))
