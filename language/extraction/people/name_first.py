"""A relative or a pet named before the word for them: "This is Farida, my wife", "Lola (my
parrot) says hello", "Jan is my boyfriend"."""

import re

from language.extraction.people.names import NAME_WORD, is_name, name_statements
from language.extraction.people.words import (
    ADJ,
    CONFIDENCE,
    FORMER,
    RELATIVE,
    THE_SPOUSE,
    relative_of,
)
from language.extraction.statements import Statement, is_lowercase_text

# "This is Farida, my wife", "Lola (my parrot) says hello", "Jan is my boyfriend".
NAME_FIRST = re.compile(
    r"(?<![\w'-])(?P<v>" + NAME_WORD + r")(?:\s*+,\s*+|\s*+\(\s*+|\s++[-–—]\s++|"
    r"\s++(?:is|'s)\s++(?:now\s++)?)"
    r"(?:my|our|" + THE_SPOUSE + r")\s+" + FORMER + ADJ + RELATIVE + r"(?!'s|\s+(?:friend|'s))",
    re.IGNORECASE,
)


# What follows "Farida, my wife" when it is an aside: the end, a pause, "says hi".
_ASIDE_ENDS = re.compile(
    r"(?<!\s)\s*+(?:$|[.,!?;:()\-–—]|(?:says?|said|is|'s|was|and|&|here|too|who|x+|lol|haha)\b)",
    re.IGNORECASE,
)


def name_first(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    for match in NAME_FIRST.finditer(clause):
        name = match.group("v")
        before = clause[max(0, match.start() - 40) : match.start()]
        # "my real boss is my cat", "the best part is my dog": no name before it.
        if re.search(r"\b(?:my|our|the|a|an|his|her|their|your|this|that|of|'s)\s+$", before, re.I):
            continue
        if not is_name(name, cased=cased) or (cased and not name[:1].isupper()):
            continue
        link = clause[match.end("v") : match.end("v") + 4]
        if not cased and not re.match(r"(?<!\s)(?:\s*+[,(]|\s++[-–—]\s)", link):
            continue  # "x is my dog" in lower-case text: too often no name
        predicate, many, _species = relative_of(match)
        if many:
            continue
        if re.match(r"(?<!\s)\s*+[,–—-]", link) and not _ASIDE_ENDS.match(clause, match.end()):
            continue  # "my rabbit is called Rabbit, my 5yo named him": a new clause
        return name_statements(predicate, [name], match.group(0), CONFIDENCE[predicate])
    return []
