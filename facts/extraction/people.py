"""The people and animals of the speaker's life: spouse, partner, children, pets."""

import re

from facts.extraction.grammar import CHILD_ADJ, CHILD_WORDS, NAME, NAME_AND_I, SPECIES_GROUP, S, rx
from facts.extraction.statements import EXPLICIT, LIKELY, Statement
from facts.extraction.statements import statement as said
from facts.extraction.vocabulary import PET_SPECIES, STOP_WORDS

SPOUSE = rx(
    r"\bmy\s+(?:wife|husband|spouse)(?:'s\s+name\s+is|(?:\s+is|'s)\s+called|\s+is|,)?\s+" + NAME,
    S + r"(?:have|'ve got)\s+a\s+(?:wife|husband)\s+(?:named|called)\s+" + NAME,
    S + r"(?:married to|married|got married to|'m married to|am married to|'re married to|wed|"
    r"marrying|getting married to|marry|be marrying|be getting married to)\s+"
    r"(?:my\s+[\w\s-]{3,40}?,\s+)?" + NAME,
    NAME_AND_I + r"(?:got married|tied the knot|got hitched|married|got wed|are married|"
    r"'re married|getting married|be getting married|be married)\b",
)
_PARTNER_WORDS = r"(?:boyfriend|girlfriend|partner|fianc[ée]e?|bf|gf)"
PARTNER = rx(
    r"\bmy\s+(?:new\s+|current\s+)?"
    + _PARTNER_WORDS
    + r"(?:'s\s+name\s+is|(?:\s+is|'s)\s+called|\s+is|,)?\s+"
    + NAME,
    S
    + r"(?:have|'ve got|got)\s+a\s+(?:new\s+)?"
    + _PARTNER_WORDS
    + r"(?:\s+named|\s+called|,)\s+"
    + NAME,
    NAME_AND_I + r"(?:got engaged|engaged|dating|got together|moved in together|together)\b",
    S + r"(?:dating|'m dating|am dating|'m seeing|am seeing|got engaged to|'m engaged to|"
    r"am engaged to|'m in a relationship with|moved in with)\s+"
    r"(?:(?:someone|a guy|a girl|a man|a woman)\s+(?:named|called)\s+)?" + NAME,
)
CHILD = rx(
    # "Welcome to the world, Ezra"
    r"^welcome\s+to\s+the\s+world,?\s+(?:little\s+|baby\s+)?" + NAME,
    r"\b(?:my|our)\s+" + CHILD_ADJ + rf"(?:{CHILD_WORDS})(?:'s\s+name\s+is|\s+is\s+(?:named|called)"
    r"|\s+named|\s+called|,)?\s+" + NAME,
    r"\b(?:my|our)\s+(?:youngest|eldest|oldest|firstborn),\s+" + NAME,
    S
    + r"(?:have|'ve got|had|just had|welcomed)\s+(?:a|an|our)\s+"
    + CHILD_ADJ
    + rf"(?:{CHILD_WORDS}|toddler|newborn|\d+-year-old)(?:\s+(?:boy|girl))?"
    r"(?:\s+named|\s+called|,)\s+" + NAME,
)
CHILDREN = re.compile(
    r"(?:\b(?:my|our)|\b(?:i|we)(?:\s+have|'ve\s+got)(?:\s+(?:two|three|four|five|\d+))?"
    r"|\bi(?:'m|\s+am)\s+a\s+(?:mom|mum|dad|mother|father|parent)\s+(?:of|to)"
    r"\s+(?:two|three|four|five|\d+))\s+"
    r"(?:kids|children|sons|daughters|boys|girls|twins|triplets)(?:\s+are|,)?\s+(?:named\s+|called\s+)?"
    r"(?-i:(?P<v>[A-Z][\w'-]+(?:(?:,\s*|\s+and\s+)[A-Z][\w'-]+)+))",
    re.I,
)
# "My last dog, Pepper, was a lab": a pet the speaker had, not has.
_FORMER = r"(?!(?:last|old|late|previous|former|first|childhood|dead|ex)\b)"
PET = rx(
    r"\b(?:my|our)\s+" + _FORMER + r"(?:\w+\s+)?(?P<species>" + SPECIES_GROUP + r")"
    r"(?:'s\s+name\s+is|\s+is\s+(?:named|called)|\s+named|\s+called|,)?\s+" + NAME,
    S + r"(?:have|'ve got|got|adopted|rescued|bought|brought home|took in|took home)\s+"
    r"(?:a|an|our)\s+(?:[\w-]+\s+){0,2}?(?P<species>" + SPECIES_GROUP + r")\b"
    r"(?:\s+(?:now|too|as well|today|yesterday))?"
    r"(?:(?:\s+named|\s+called|,)\s+" + NAME + ")?",
)
# "I've got two cats, Miso and Tofu", "my dogs are called Rex and Bo".
PETS = re.compile(
    r"(?:\b(?:my|our)|\b(?:i|we)(?:'ve|\s+have)?(?:\s+just)?(?:\s+got|\s+have|\s+adopted|"
    r"\s+rescued|\s+brought home)\s+(?:two|three|four|five|\d+))\s+(?:[\w-]+\s+)?(?:"
    + SPECIES_GROUP
    + r")(?:e?s)\b"
    r"(?:\s+are(?:\s+(?:named|called))?|,|:)?\s+(?:named\s+|called\s+)?"
    r"(?-i:(?P<v>[A-Z][\w'-]+(?:(?:,\s*|\s+and\s+|,\s+and\s+)[A-Z][\w'-]+)+))",
    re.I,
)

# "... and a dog named Bo", after a first pet of the same clause.
MORE_PETS = re.compile(
    r"\band\s+(?:a|an|our|my)\s+(?:[\w-]+\s+){0,2}?(?:" + SPECIES_GROUP + r")\s+"
    r"(?:named|called)\s+" + NAME,
    re.I,
)


def _named(
    predicate: str, patterns: list[re.Pattern[str]], clause: str, confidence: float = EXPLICIT
) -> list[Statement]:
    for pattern in patterns:
        match = pattern.search(clause)
        if match and match.group("v").split()[0].lower() not in STOP_WORDS | {"i"}:
            return [said(predicate, match.group("v"), match.group(0), confidence)]
    return []


def relationships(clause: str) -> list[Statement]:
    return _named("spouse", SPOUSE, clause) or _named("partner", PARTNER, clause)


def children(clause: str) -> list[Statement]:
    found = _named("child", CHILD, clause, LIKELY)
    match = CHILDREN.search(clause)
    if match:
        names = re.split(r",\s*(?:and\s+)?|(?<!\s)\s+and\s+", match.group("v"))
        found += [said("child", n, match.group(0), LIKELY) for n in names if n]
    return found


def pets(clause: str) -> list[Statement]:
    """Every pet of the clause: "a cat named Whiskers and a dog named Bo"; a pet known
    only by its species takes the name the clause gives it next ("a puppy, her name is
    Nova")."""
    found = _pets(clause)
    if len(found) == 1:
        later = re.search(r"(?:,|\band)\s+(?=(?:his|her|its|their)\s+name)", clause, re.I)
        named = later and named_later(found[0], clause[later.end() :])
        if named:
            return [named]
    return found


def _pets(clause: str) -> list[Statement]:
    found: list[Statement] = []
    match = PETS.search(clause)
    if match:
        names = re.split(r",\s*(?:and\s+)?|(?<!\s)\s+and\s+", match.group("v"))
        return [said("pet", n, match.group(0), LIKELY) for n in names if n]
    for pattern in PET:
        for match in pattern.finditer(clause):
            name = match.groupdict().get("v")
            if name and name.split()[0].lower() in STOP_WORDS | {"i", "is"}:
                name = None
            if name is None and "subj" not in pattern.groupindex:
                continue
            value = name or match.group("species").lower()
            found.append(said("pet", value, match.group(0), LIKELY))
        if found:
            more = MORE_PETS.finditer(clause)
            return found + [said("pet", m.group("v"), m.group(0), LIKELY) for m in more]
    return found


# "we got a dog! his name is Bongo": the name of a pet the sentence before gave none.
NAMED_AFTER = re.compile(
    r"^(?:and\s+)?(?:his|her|its|their|the\s+(?:" + SPECIES_GROUP + r")'s)\s+name"
    r"(?:'s|\s+is)\s+" + NAME,
    re.I,
)


def named_later(pet: Statement, sentence: str) -> Statement | None:
    """``pet`` (a pet known only by its species) under the name ``sentence`` gives it."""
    match = NAMED_AFTER.match(sentence)
    if match is None or pet.value is None or pet.value.lower() not in PET_SPECIES:
        return None
    return said("pet", match.group("v"), match.group(0), pet.confidence)
