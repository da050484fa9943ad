"""extract_entities: every entity of a text, typed, with where it first appears."""

import unicodedata
from dataclasses import dataclass, field

from language.entities.names import name_spans, name_type
from language.entities.speaker import speaker_of
from language.entities.structured import structured_entities

ENTITY_PREFIX = "entity:"

# Types that name someone or something. Their tags all read ``entity:name:<value>``: recall
# matches a query's names against them whatever the type (a query rarely says whether
# "Jordan" is a person or a place), and the tags written before types existed still match.
NAMED_TYPES = frozenset({"person", "organisation", "place", "product", "name"})


def is_entity_tag(tag: str) -> bool:
    """Whether ``tag`` was derived from a memory's text (extract_entities) rather than given."""
    return tag.startswith(ENTITY_PREFIX)


def entity_key(value: str) -> str:
    """The normalised form entities are matched by: NFKC, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())


@dataclass(frozen=True)
class Entity:
    """One entity of a text. Equal by type and value; ``text`` is the first form seen (as
    written), ``start``/``end`` its span, ``count`` how often the text has it."""

    type: str
    value: str
    text: str = field(default="", compare=False)
    start: int | None = field(default=None, compare=False)
    end: int | None = field(default=None, compare=False)
    count: int = field(default=1, compare=False)

    @property
    def tag_type(self) -> str:
        return "name" if self.type in NAMED_TYPES else self.type

    @property
    def tag(self) -> str:
        return f"{ENTITY_PREFIX}{self.tag_type}:{self.value}"


# Names of more than this many words are not run together ("Ana Bo Cy Dee" is a list).
WHOLE_NAME_WORDS = 4


def whole_names(text: str, spans: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Names written next to each other with one space between them, as one name: "Maria
    Lopez", "New York", "Harry Potter" (each is one entity, not two). A possessive, a comma
    or any other word between them keeps them apart ("Ana's Bob", "Ana, Bob", "Ana and
    Bob"), and so does a run longer than WHOLE_NAME_WORDS."""
    merged: list[tuple[str, int, int]] = []
    run: list[tuple[str, int, int]] = []

    def close() -> None:
        if 1 < len(run) <= WHOLE_NAME_WORDS:
            merged.append((text[run[0][1] : run[-1][2]], run[0][1], run[-1][2]))
        else:
            merged.extend(run)
        run.clear()

    for span in spans:
        if run and text[run[-1][2] : span[1]] != " ":
            close()
        run.append(span)
    close()
    return merged


def extract_entities(text: str) -> list[Entity]:
    """Structured entities (emails, URLs, UUIDs, IP addresses, dates, phone numbers) and names
    (see ``names.query_names``: a cheap stand-in for a named-entity model), each typed by
    ``names.name_type`` at its first appearance. Values are lower-cased; kinds come in that
    order, each in order of first appearance."""
    found: dict[tuple[str, str], Entity] = {}
    counts: dict[tuple[str, str], int] = {}
    for kind, value, start, end in structured_entities(text):
        key = (kind, value)
        counts[key] = counts.get(key, 0) + 1
        found.setdefault(key, Entity(kind, value, text[start:end], start, end))
    # The words of a leading "Name: text" name a person: the speaker.
    speaker = speaker_of(text)
    speaker_end = text.find(speaker) + len(speaker) if speaker else -1
    spans = whole_names(text, name_spans(text))
    # A name has one type in one text: the first cue found for any of its mentions.
    types: dict[str, str] = {}
    for word, start, end in spans:
        kind = "person" if end <= speaker_end else name_type(text, start, end)
        if types.get(word.lower(), "name") == "name":
            types[word.lower()] = kind
    for word, start, end in spans:
        key = (types[word.lower()], word.lower())
        counts[key] = counts.get(key, 0) + 1
        found.setdefault(key, Entity(key[0], key[1], word, start, end))
    return [
        Entity(e.type, e.value, e.text, e.start, e.end, counts[(e.type, e.value)])
        for e in found.values()
    ]
