"""The words for the speaker's relatives and pets ("wife", "bf", "my little one", "our rescue
greyhound", "two guinea pigs"), and the patterns that find them said as the speaker's own:
"my son", "the wife", "hubby (Rangi)", "we adopted a kitten", "2 kids, a dog called Rolo",
"cat dad". Not "my ex" or "my future wife": someone the speaker had, or has not got. A
statement whose value is only such a word (is_unnamed()) waits for a name."""

import re

from language.extraction.grammar import SPECIES_GROUP, S
from language.extraction.statements import EXPLICIT, LIKELY, Statement
from language.extraction.vocabulary import PET_SPECIES

# The words for the speaker's relatives, by the slot they name.
_RELATIVES = {
    "spouse": "wife wifey husband hubby hubs spouse missus",
    "partner": "boyfriend girlfriend partner fiancé fiancée fiance fiancee bf gf",
    "child": "son daughter kid child baby boy girl stepson stepdaughter youngest eldest oldest "
    "firstborn toddler newborn teenager",
}
_PLURAL_CHILDREN = "kids children sons daughters boys girls twins triplets babies"
RELATIVE_WORDS = {
    word: predicate for predicate, words in _RELATIVES.items() for word in words.split()
} | dict.fromkeys(_PLURAL_CHILDREN.split(), "child")
# Two-word names for a partner.
_PARTNER_PHRASES = r"other\s+half|better\s+half|significant\s+other"
# A child by their place among the children: "my little one", "our youngest one".
_CHILD_PHRASES = r"(?:little|lil|wee|youngest|eldest|oldest|middle|baby)\s+one"
_PERSON_GROUP = (
    "|".join(sorted(RELATIVE_WORDS, key=len, reverse=True))
    + r"|\d{1,2}-year-old|\d{1,2}\s?(?:yo|y/o|y\.o\.|year[- ]old|yr[- ]old)|"
    + _CHILD_PHRASES
)
# A species, singular or plural ("puppies", "guinea pigs", "mice").
_SPECIES_PLURAL = r"(?:" + SPECIES_GROUP + r")(?:es|s)?|puppies|bunnies|mice|kitties|ponies"
# "my ex", "my late husband", "my last dog": someone the speaker had, not has; "my future
# wife", "my dream dog": someone they have not got.
FORMER = (
    r"(?!(?:ex|ex-\w+|late|last|old|previous|former|first|childhood|dead|future|dream|"
    r"imaginary|fake|hypothetical|would-be|potential|next|own)\b)"
)
# Words between "my" and the relative: "my new bf", "my little girl", "my 5yo".
ADJ = (
    r"(?:(?:new|current|lovely|beautiful|gorgeous|wonderful|amazing|sweet|dear|darling|"
    r"little|baby|newborn|oldest|eldest|youngest|older|younger|big|second|third|middle|"
    r"teenage|teen|adopted|rescue|two|three|four|five|2|3|4|5|\d{1,2}[- ]?(?:yo|y/o|y\.o\.)|"
    r"[\w-]+-year-old|\d{1,2}\s+year\s+old)\s+){0,3}"
)
# Any one word before a pet's species: "my ginger cat", "our rescue greyhound".
_PET_ADJ = r"(?:(?:" + FORMER + r"[\w-]+)\s+){0,2}?"
RELATIVE = (
    r"(?:(?P<person>" + _PERSON_GROUP + r"|" + _PARTNER_PHRASES + r")"
    r"|" + _PET_ADJ + r"(?P<species>" + _SPECIES_PLURAL + r"))\b(?!-)"
)
# "the wife (Anneke) says", "the hubby": a spouse is the speaker's even after "the".
THE_SPOUSE = r"the(?=\s+(?:wife|wifey|hubby|husband|missus|hubs|other\s+half|better\s+half)\b)"
# "the cat (Mango)", "the dog's name is Ruby", "and the dog Pochi needs a walk": a pet after
# "the" only as it is named (not "the dog Rex next to us").
_THE_PET = (
    r"the(?=\s+(?:"
    + SPECIES_GROUP
    + r")(?:'s\s+name\b|\s*+\(|\s+is\s+(?:called|named)\b|\s+(?:called|named)\b"
    r"|\s++(?-i:[A-Z][a-z]++)\b(?!\s++(?:next|from|of|at|down|across|up|over|"
    r"upstairs|downstairs|in\s++the)\b)))"
)
# The speaker's own: "my", "our", "me n my".
POSSESSED = re.compile(
    r"\b(?P<own>my|our|ma|" + THE_SPOUSE + r"|" + _THE_PET + r")\s+" + FORMER + ADJ + RELATIVE,
    re.IGNORECASE,
)
# A chat message or an introduction's item that leaves out "my": "hubby (Rangi) is cooking",
# "wife's name is Siobhán", "..., bf Cian, hates mornings". Not a pet ("dog next door") and
# not "baby" or "kid" (anyone's).
_OPENERS = r"(?:(?:and|also|btw|oh|so|plus|ps|update|news|fyi|ok|okay|lol|haha)[,:!]?\s+)*"
BARE = re.compile(
    r"(?:^|[,;]\s*+)"
    + _OPENERS
    + r"(?:new\s+|current\s+|the\s+(?=(?:kids|children|twins)\s+are\b))?"
    r"(?P<person>wifey|wife|husband|hubby|hubs|spouse|boyfriend|girlfriend|partner|"
    r"fianc[ée]e?|fiancee|bf|gf|son|daughter|kids|children|twins)\b(?!-)",
    re.IGNORECASE,
)
# "we have a son called mateo", "I've got 2 dogs, pepper and miso", "we adopted a kitten".
_HAVE = (
    r"(?:have|has|'ve got|'ve|got|'ve just got|just got|adopted|rescued|bought|"
    r"brought home|took in|took home|welcomed|had|just had|'re keeping|are keeping|kept)"
)
_SOME = r"(?:a|an|one|two|three|four|five|six|\d{1,2}|our|another|a\s+new)"
HAD = re.compile(
    r"(?:"
    + S
    + r"|\b(?:ive|weve|i\s+has|we\s+has)\s+)"
    + _HAVE
    + r"\s+(?:"
    + _SOME
    + r"\s+)?"
    + FORMER
    + ADJ
    + RELATIVE,
    re.IGNORECASE,
)

# "we named the puppy Bo", "I finally called the kitten Miso": a pet of theirs, named.
NAMED_THE = re.compile(
    r"\b(?:we|i)(?:'ve|\s++have|\s++just|\s++finally|\s++also){0,3}\s++(?:named|called|renamed)\s++"
    r"(?:the|our|my)\s++(?:new\s++|little\s++|baby\s++)?" + RELATIVE,
    re.IGNORECASE,
)
# "cat dad (Pistachio)", "proud dog mom of Luna and Rex": a pet of theirs by what they are to it.
PET_PARENT = re.compile(
    r"(?:^|[,;(]\s*+|\b(?:a|proud|crazy|i'm\s++a)\s++)" + RELATIVE + r"\s++"
    r"(?:dad|mom|mum|mama|papa|parent|lady|mother|father)(?:\s++(?:of|to))?\b",
    re.IGNORECASE,
)
# One item of a list that introduces the speaker: "hi! I'm a nurse in Leeds, 2 kids, a dog
# called Rolo", "married to Declan, one daughter, Niamh".
LISTED = re.compile(
    r"(?:^|[,:;(]\s*+|\bwith\s+)(?:and\s+|also\s+|plus\s+)?"
    + r"(?:new|"
    + _SOME
    + r")"
    + r"\s+"
    + FORMER
    + ADJ
    + RELATIVE,
    re.IGNORECASE,
)


def relative_of(match: re.Match[str]) -> tuple[str, bool, str]:
    """The slot the matched word names, whether it names several, and the species."""
    person = match.group("person")
    if person is None and match.groupdict().get("species"):
        species = match.group("species").lower()
        singular = _singular_species(species)
        # "two goldfish": a plural that looks singular, counted.
        counted = _COUNTED.search(match.string, match.start(), match.start("species"))
        return "pet", singular != species or counted is not None, singular
    word = re.sub(r"\s+", " ", person.lower())
    if word[:1].isdigit() or word.endswith(" one"):
        return "child", False, ""  # "a 3-year-old named Kai", "my little one, Aria"
    if word not in RELATIVE_WORDS:
        return "partner", False, ""  # "my other half"
    return RELATIVE_WORDS[word], word in _PLURAL_CHILDREN.split(), ""


_COUNTED = re.compile(r"\b(?:two|three|four|five|six|[2-9])\b", re.I)


def _singular_species(word: str) -> str:
    if word in PET_SPECIES:
        return word
    for plural, singular in (("ies", "y"), ("es", ""), ("s", ""), ("mice", "mouse")):
        if word.endswith(plural) and (word[: -len(plural)] + singular) in PET_SPECIES:
            return word[: -len(plural)] + singular
    return "mouse" if word == "mice" else word


# How far a relative or a pet named is trusted, by the slot it fills.
CONFIDENCE = {"spouse": EXPLICIT, "partner": EXPLICIT, "child": LIKELY, "pet": LIKELY}


def is_unnamed(item: Statement) -> bool:
    """A pet known only by its species ("we got a cat") or a relative by the word for them
    ("new bf alert"): no fact until a name comes."""
    if item.value is None or item.value != item.value.casefold():
        return False
    if item.predicate == "pet":
        return item.value in PET_SPECIES
    return item.predicate in _RELATIVES and (item.value in RELATIVE_WORDS or " " in item.value)
