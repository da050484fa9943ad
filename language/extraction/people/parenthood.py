"""The speaker as the parent of those they name: "mum of Timur and Dana", "cat mum to Pelle";
a birth ("welcome to the world, Ezra", "baby number 2 arrived!!") or a litter ("we're
keeping one, Udon")."""

import re
from dataclasses import replace

from language.extraction.grammar import SPECIES_GROUP
from language.extraction.people.names import NAME_ENDS, is_name, name_at, name_statements
from language.extraction.people.words import CONFIDENCE
from language.extraction.statements import LIKELY, Statement, is_lowercase_text
from language.extraction.statements import statement as said

# "mum of Timur and Dana", "dad to 3, Sam, Leo and Ava", "cat mum to Pelle".
PARENT_OF = re.compile(
    r"(?:^|[,:;]\s*+|\bi(?:'m|\s+am)\s+(?:a\s+)?)(?:proud\s+|busy\s+|single\s+|tired\s+|happy\s+)?"
    r"(?:(?P<species>" + SPECIES_GROUP + r")\s+(?:lady|guy|person|owner|mum|mom|mama|dad|daddy|"
    r"parent)|(?:mum|mom|mam|mummy|mommy|mama|dad|daddy|papa|father|mother|parent))"
    r"\s+(?:of|to)\s+"
    r"(?:(?:two|three|four|five|\d)(?:\s+(?:kids|boys|girls|children))?\s*[,:]?\s+)?(?P<start>)",
    re.IGNORECASE,
)


def parent_of(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    found = []
    for match in PARENT_OF.finditer(clause):
        names, stop = name_at(clause, match.end(), cased=cased, many=True)
        if not names or (cased and not all(n[:1].isupper() for n in names)):
            continue
        predicate = "pet" if match.group("species") else "child"
        evidence = clause[match.start() : stop].strip(" ,;:")
        found += name_statements(predicate, names, evidence, CONFIDENCE[predicate])
    return found


WELCOME = re.compile(
    r"^welcome\s+to\s+the\s+world,?\s+(?:little\s+|baby\s+)?(?-i:(?P<v>[A-Z][\w'-]+))", re.I
)


def welcome(clause: str) -> list[Statement]:
    match = WELCOME.search(clause)
    if not match or not is_name(match.group("v"), cased=True):
        return []
    return name_statements("child", [match.group("v")], match.group(0), LIKELY)


# "we're keeping one, Udon", "kept one of the puppies and named him Bo": one of a litter.
_KEPT_ONE = re.compile(
    r"\b(?:we|i)(?:'re|'ve|\s+are|\s+have|\s+am|'m)?\s+(?:keeping|kept|keep|keeping\s+one\s+of)\s+"
    r"(?:one|one\s+of\s+(?:them|the\s+(?:kittens|puppies|pups|babies)))(?:\s*+,\s*+|\s++and\s++|\s*+:\s*+)"
    r"(?:(?:we\s+|i\s+)?(?:named|called|call|calling|'re\s+calling)\s+(?:him|her|it|them)\s+)?(?P<start>)",
    re.IGNORECASE,
)
# "baby number 2 arrived!!", "our baby girl is here": a child, named next ("meet Oliver").
_ARRIVED = re.compile(
    r"^(?:(?:our|my)\s+)?(?:new\s+)?baby(?:\s+(?:number|no\.?|#)\s*+\d|\s+(?:boy|girl))?\s+"
    r"(?:has\s+arrived|arrived|is\s+here|came|was\s+born)\b",
    re.IGNORECASE,
)


def litter(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    found = []
    match = _KEPT_ONE.search(clause)
    if match:
        # Of a litter the message speaks of; the name ends the clause ("we kept one, Sarah
        # took the other" names a person).
        names, stop = name_at(clause, match.end(), cased=cased, many=False)
        if names and (not cased or names[0][:1].isupper()) and NAME_ENDS.match(clause, stop):
            found += name_statements("pet", names, clause[match.start() : stop], LIKELY)
    arrived = _ARRIVED.search(clause)
    if arrived:
        item = said("child", "baby", arrived.group(0), LIKELY)
        found.append(replace(item, value="baby", qualifier=""))
    return found
