"""The name of a pet or a relative said before without one: "we got a dog! his name is
Bongo", "a kitten, named him Chorizo", "got a hamster, the kids named it Hamster"."""

import re

from language.extraction.grammar import SPECIES_GROUP
from language.extraction.people.names import name_at, name_statements
from language.extraction.people.words import is_unnamed
from language.extraction.statements import Statement, is_lowercase_text

# Those of the household who may name a pet: "got a hamster, the kids named it Hamster".
_NAMERS = (
    r"(?:the\s+(?:kids|children|boys|girls|twins)|my\s+(?:kids|son|daughter|wife|husband)|they)"
    r"\s+"
)


def named_pets(found: list[Statement], clause: str) -> list[Statement]:
    """``found`` with its one pet (or relative) said without a name under the name the rest
    of the clause gives it ("we got a kitten, named him Chorizo")."""
    unnamed = [s for s in found if is_unnamed(s)]
    if len(unnamed) != 1:
        return found
    pet = unnamed[0]
    later = re.search(
        r"(?:,|\band|\bso)\s+(?=(?:we\s+|i\s+|" + _NAMERS + r")?"
        r"(?:his|her|its|their|name|named|called|call|"
        r"calling|'ve\s+named|have\s+named|meet|say\s+(?:hi|hello)\s+to)\b)",
        clause,
        re.I,
    )
    named = later and named_later(pet, clause[later.end() :])
    if not named:
        return found
    return [named if s is pet else s for s in found]


# "we got a dog! his name is Bongo", "named him Chorizo": the name of a pet the sentence (or
# clause) before gave none.
NAMED_AFTER = re.compile(
    r"^(?:and\s+|so\s+)?(?:(?:(?:his|her|its|their|the\s+(?:" + SPECIES_GROUP + r")'s)\s+)?"
    r"name(?:'s|\s+is|\s*:)"
    r"|(?:we|i|" + _NAMERS + r")?(?:'ve|\s+have|\s+just|\s+finally)?\s*(?:named|called|call|"
    r"calling|'re\s+calling|are\s+calling)\s+(?:him|her|it|them|the\s+\w+)"
    r"|(?:he|she|it)(?:'s|\s+is)\s+(?:called|named)"
    r"|meet|say\s+(?:hi|hello)\s+to)\s+(?P<start>)",
    re.IGNORECASE,
)


def named_later(pet: Statement, sentence: str) -> Statement | None:
    """``pet`` (a pet known only by its species, or a relative without a name) under the
    name ``sentence`` gives it."""
    match = NAMED_AFTER.match(sentence.strip())
    if match is None or not is_unnamed(pet):
        return None
    sentence = sentence.strip()
    names, stop = name_at(sentence, match.end(), cased=not is_lowercase_text(sentence), many=False)
    if not names:
        return None
    return name_statements(pet.predicate, names, sentence[:stop], pet.confidence)[0]
