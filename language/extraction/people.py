"""The people and animals of the speaker's life: spouse, partner, children, pets.

They count only with a name, read the ways people write it: after the word for them ("my son
jake", "my wife, Priya", "hubby (Rangi)", "my dog's name is Rex", "my kids are tane and
mere"), before it ("Farida, my wife", "Lola (my parrot)"), in a list of an introduction
("married to Declan, one daughter, Niamh", "mum of Timur and Dana"), or in the next clause or
sentence ("we got a kitten, named him Chorizo"). Only the speaker's own: "my friend's son
Leo" names nobody of theirs."""

import re
import string
from dataclasses import replace
from functools import lru_cache

from language.extraction.fragments import about_someone_else
from language.extraction.grammar import NAME_AND_I, SPECIES_GROUP, S
from language.extraction.statements import (
    ARTICLES,
    EXPLICIT,
    LIKELY,
    NOT_A_VALUE,
    Statement,
    is_lowercase_text,
)
from language.extraction.statements import statement as said
from language.extraction.vocabulary import (
    COMMON_WORDS,
    DIETS,
    JOB_WORDS,
    LANGUAGES,
    PET_SPECIES,
    STOP_WORDS,
)

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
_FORMER = (
    r"(?!(?:ex|ex-\w+|late|last|old|previous|former|first|childhood|dead|future|dream|"
    r"imaginary|fake|hypothetical|would-be|potential|next|own)\b)"
)
# Words between "my" and the relative: "my new bf", "my little girl", "my 5yo".
_ADJ = (
    r"(?:(?:new|current|lovely|beautiful|gorgeous|wonderful|amazing|sweet|dear|darling|"
    r"little|baby|newborn|oldest|eldest|youngest|older|younger|big|second|third|middle|"
    r"teenage|teen|adopted|rescue|two|three|four|five|2|3|4|5|\d{1,2}[- ]?(?:yo|y/o|y\.o\.)|"
    r"[\w-]+-year-old|\d{1,2}\s+year\s+old)\s+){0,3}"
)
# Any one word before a pet's species: "my ginger cat", "our rescue greyhound".
_PET_ADJ = r"(?:(?:" + _FORMER + r"[\w-]+)\s+){0,2}?"
_RELATIVE = (
    r"(?:(?P<person>" + _PERSON_GROUP + r"|" + _PARTNER_PHRASES + r")"
    r"|" + _PET_ADJ + r"(?P<species>" + _SPECIES_PLURAL + r"))\b(?!-)"
)
# "the wife (Anneke) says", "the hubby": a spouse is the speaker's even after "the".
_THE_SPOUSE = r"the(?=\s+(?:wife|wifey|hubby|husband|missus|hubs|other\s+half|better\s+half)\b)"
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
    r"\b(?P<own>my|our|ma|" + _THE_SPOUSE + r"|" + _THE_PET + r")\s+" + _FORMER + _ADJ + _RELATIVE,
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
    + _FORMER
    + _ADJ
    + _RELATIVE,
    re.IGNORECASE,
)

# "we named the puppy Bo", "I finally called the kitten Miso": a pet of theirs, named.
NAMED_THE = re.compile(
    r"\b(?:we|i)(?:'ve|\s++have|\s++just|\s++finally|\s++also){0,3}\s++(?:named|called|renamed)\s++"
    r"(?:the|our|my)\s++(?:new\s++|little\s++|baby\s++)?" + _RELATIVE,
    re.IGNORECASE,
)
# "cat dad (Pistachio)", "proud dog mom of Luna and Rex": a pet of theirs by what they are to it.
PET_PARENT = re.compile(
    r"(?:^|[,;(]\s*+|\b(?:a|proud|crazy|i'm\s++a)\s++)" + _RELATIVE + r"\s++"
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
    + _FORMER
    + _ADJ
    + _RELATIVE,
    re.IGNORECASE,
)
# The name after the word for them.
# A whole word (a value over the size limit is refused as such, not cut), read once.
_NAME_WORD = r"[^\W\d_][\w'-]*+"
# "Niamh, 12" or "Rex (3)": an age after the name.
_AGE = r"(?<!\s)(?:(?:\s*+,\s*+|\s++)\d{1,2}(?:\s*+(?:yo|y/o|years?(?:\s++old)?|months?))?)?"
# "(Ben 8 and Lucy 5)": an age after each name of a list.
_LISTED_AGE = re.compile(
    r"(?<!\s)(?:\s++\d{1,2}(?:\s*+(?:yo|y/o|yrs?|years?(?:\s++old)?|months?))?"
    r"|\s*+\(\s*+\d{1,2}(?:\s*+(?:yo|y/o|yrs?|years?(?:\s++old)?|months?))?\s*+\))"
    r"(?=\s*+(?:,|and\b|&|\)))",
    re.I,
)
_STRONG = re.compile(
    r"(?<!\s)(?:(?:'s|s)?\s++name(?:'s|\s++is|\s*+:|\s++was)\s++(?:literally\s++)?(?P<start>)"
    r"|(?:'s|\s++is|\s++was|\s++are)?(?:\s++(?:literally|actually|also|just|officially))?\s++"
    r"(?:called|named)\s++(?P<start2>)"
    r"|\s*+\(\s*+(?P<paren>)"
    # "my daughter - her name's Sun-hee -", "a puppy, his name is Bo"
    r"|\s*+[-–—,(]?\s*+(?:his|her|their|its)\s++names?(?:'s|\s++is|\s++are)\s++(?P<start3>))",
    re.IGNORECASE,
)
# Whitespace taken whole (possessive) and from its first character only ((?<!\s)): read
# from every position of a long run of spaces, a pattern that may fail after it is quadratic.
_APPOSED = re.compile(r"(?<!\s)(?:\s*+,\s*+|\s*+:\s*+|\s++-\s++|\s++)(?P<start>)")
_IS = re.compile(r"(?<!\s)\s++(?:is|'s|are)\s++(?P<start>)", re.IGNORECASE)
# What may follow a name put after a comma or "is": the end, a pause, an age, another name.
_NAME_ENDS = re.compile(
    r"(?<!\s)\s*+(?:$|[.,!?;:()\-–—]|\d|(?:and|&|n|btw|lol|haha|now|too|though|tho|who|x+)\b)",
    re.IGNORECASE,
)
# What follows a verb, not a name: "broke her phone", "threw up on the rug".
_OBJECT_NEXT = re.compile(
    r"(?<!\s)\s++(?:the|a|an|my|his|her|their|our|your|me|him|us|them|it|up|down|out|off|on|in|at|to|"
    r"with|about|away|over|into|through|for|from|by|some|any|every|all|so|too|very|really)\b",
    re.IGNORECASE,
)
_LIST_JOIN = re.compile(
    r"(?<!\s)(?:\s*+,\s*+(?:and\s++|&\s*+)?|\s++(?:and|&|n)\s++|\s*+&\s*+)"
    r"(?:(?:little|lil|wee|baby|big)\s++)?",
    re.I,
)
# People who are not a name: "my son is sick", "my wife and I".
_NOT_NAMES = (
    STOP_WORDS
    | COMMON_WORDS
    | NOT_A_VALUE
    | ARTICLES
    | DIETS
    | JOB_WORDS
    | frozenset(RELATIVE_WORDS)
)
# Chat words that start a sentence before a name: "Ugh", "Omg".
_PRONOUNS = frozenset(["i", "she", "he", "they", "it", "this", "that", "who", "we", "you", "me"])


def _lowercase_name(word: str) -> bool:
    lowered = word.lower()
    return (
        len(lowered) >= 2
        and lowered not in _NOT_NAMES
        and lowered not in LANGUAGES
        and lowered not in PET_SPECIES
        and not ("-" not in lowered and len(lowered) > 5 and lowered.endswith("ing"))
        and not ("-" not in lowered and len(lowered) > 4 and lowered.endswith("ed"))
        and not _inflected(lowered)
    )


def _inflected(word: str) -> bool:
    """A common verb with its ending: "my son plays", "my dog barked"."""
    for ending, stem in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("d", "")):
        base = word[: -len(ending)] + stem
        if word.endswith(ending) and len(base) >= 3 and base in COMMON_WORDS:
            return True
    return False


def _is_name(word: str, *, cased: bool) -> bool:
    """``word`` read as a name: capitalised in text that has capitals, or, typed in lower
    case, no common word ("my son jake", not "my son is sick")."""
    word = re.sub(r"'s$", "", word)
    lowered = word.lower()
    if lowered in _PRONOUNS or lowered in STOP_WORDS or lowered in NOT_A_VALUE:
        return False
    if word[:1].isupper():
        return cased or _lowercase_name(word)
    return _lowercase_name(word)


def _name_at(clause: str, start: int, *, cased: bool, many: bool) -> tuple[list[str], int]:
    """The name (or names, for ``many``) at ``start``, and where they end."""
    names: list[str] = []
    pos = start
    while True:
        match = re.compile(_NAME_WORD).match(clause, pos)
        if not match or not _is_name(match.group(0), cased=cased):
            break
        word, end = re.sub(r"'s$", "", match.group(0)), match.end()
        # A surname in text with capitals: "my husband John Smith", "the puppy Sir Reginald
        # Fluffington".
        for _ in range(2):
            second = re.compile(r"(?<!\s)\s++(" + _NAME_WORD + ")").match(clause, end)
            if not (
                cased
                and word[:1].isupper()
                and second
                and second.group(1)[:1].isupper()
                and _is_name(second.group(1), cased=True)
                and second.group(1).lower() not in LANGUAGES
            ):
                break
            word, end = f"{word} {re.sub(r"'s$", '', second.group(1))}", second.end()
        if match.group(0).endswith("'s"):
            end -= 2
        names.append(word)
        pos = end
        if not many:
            break
        aged = _LISTED_AGE.match(clause, pos)
        if aged:
            pos = aged.end()
        joined = _LIST_JOIN.match(clause, pos)
        if not joined:
            break
        pos = joined.end()
    if many and len(names) > 1:
        # The end of the last name, not of a join after it.
        pos = clause.find(names[-1].split()[-1], start) + len(names[-1].split()[-1])
    return names, pos


def _relative(match: re.Match[str]) -> tuple[str, bool, str]:
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


# What may stand between the word for them and the name: how long ("my partner of 6 yrs,
# Kemal", "my husband of ten years Tom") or an age ("my son, 7, Oliver").
_BETWEEN = re.compile(
    r"(?<!\s)(?:\s++of\s++(?:\d{1,2}\+?|a\s++few|many|two|three|four|five|six|seven|eight|nine|"
    r"ten|almost\s++\d{1,2}|nearly\s++\d{1,2}|over\s++\d{1,2})\s*+(?:yrs?|years?|months?|decades?)\b)?"
    r"(?:\s*+,\s*+\d{1,2}\s*+(?:yo|y/o|years?\s++old|months?(?:\s++old)?)?(?=\s*+,))?"
    # "a dog though, Biscotti", "chickens lol, three of them: Ada, Grace and Hedy"
    r"(?:\s++(?:though|tho|lol|haha|btw|too)(?=\s*+[,:]))?"
    r"(?:\s*+,\s*+(?:two|three|four|five|six|both|all)\s++of\s++them(?=\s*+:))?",
    re.IGNORECASE,
)


def _named_after(
    clause: str, match: re.Match[str], *, cased: bool, at: int | None = None
) -> tuple[list[str], int] | None:
    """The names that follow the word for a relative or pet (or ``at``), if any."""
    predicate, many, _species = _relative(match)
    end = match.end() if at is None else at
    between = _BETWEEN.match(clause, end)
    if between and between.end() > end:
        end = between.end()
    strong = _STRONG.match(clause, end)
    if strong:
        start = strong.end()
        names, stop = _name_at(clause, start, cased=cased, many=many)
        if names and strong.group("paren") is not None:
            closed = re.compile(_AGE + r"\s*+[),]").match(clause, stop)
            return (names, closed.end()) if closed else None
        return (names, stop) if names else None
    # Without a word that says so, a name in text with capitals has one: "new bf alert" is
    # no name, "my son jake" in lower-case text is.
    apposed = _APPOSED.match(clause, end)
    if apposed and not _IS.match(clause, end):
        names, stop = _name_at(clause, apposed.end(), cased=cased, many=many)
        if names and cased and not all(n[:1].isupper() for n in names):
            names = []
        if names and not cased and not many and _OBJECT_NEXT.match(clause, stop):
            names = []  # "my gf broke her phone": a verb, its object next
        if names and not (predicate == "pet" and not many and names[0] == _species):
            after_comma = "," in clause[end : apposed.end()]
            if not after_comma or _NAME_ENDS.match(clause, stop) or many:
                return names, stop
    is_ = _IS.match(clause, end)
    if is_ and (cased or many):
        # "my wife is vegan", "my boyfriend is amazing": in lower-case text, "is" is followed
        # by what they are far more often than by who.
        names, stop = _name_at(clause, is_.end(), cased=cased, many=many)
        if names and cased and not all(n[:1].isupper() for n in names):
            return None
        if names and many and len(names) < 2:
            return None  # "my kids are tane and mere", not "my kids are monsters"
        if names and _NAME_ENDS.match(clause, stop) and not nationality(names[0]):
            return names, stop
    return None


def nationality(word: str) -> bool:
    lowered = word.lower()
    return lowered in LANGUAGES or lowered.rstrip("n") in LANGUAGES or lowered.endswith("ish")


def _capitalised(value: str, predicate: str) -> str:
    """A name with capitals ("jake" -> "Jake"), a pet named after its species too."""
    if value == value.casefold():
        return string.capwords(value, " ")
    return value


def _statements(
    predicate: str, names: list[str], evidence: str, confidence: float
) -> list[Statement]:
    found = []
    for name in names:
        value = _capitalised(name, predicate)
        item = said(predicate, value, evidence, confidence)
        if item.value != value:
            item = replace(item, value=value)
        found.append(item)
    return found


_CONFIDENCE = {"spouse": EXPLICIT, "partner": EXPLICIT, "child": LIKELY, "pet": LIKELY}
# "we call our dog Rex", "I'd name my son Otis": a naming, said as a wish or as a fact.
_NAMING_BEFORE = re.compile(r"\b(?:call|calling|called|name|naming|named|rename|renamed)\s+$", re.I)
# "a second cat now, Ziggy": a word of time between the relative and the name.
_NOW_WORDS = re.compile(
    r"(?<!\s)\s++(?:now|too|as\s++well|also|today|yesterday|as\s++of\s++today|last\s++(?:week|night|"
    r"month|year)|this\s++(?:morning|week|month|year)|recently|finally|at\s++last|"
    r"on\s++\w{3,9}day)\b",
    re.I,
)


def _mark(taken: bytearray, start: int, end: int) -> None:
    taken[start:end] = b"\x01" * (end - start)


def _own_relatives(clause: str, *, presupposed: bool = False) -> list[Statement]:
    """The relatives and pets ``clause`` names as the speaker's, each with its name; a pet
    known only by its species is kept under it, for a later name to replace. ``presupposed``:
    only those the clause takes as given ("my wife Hira", not "we got a dog named Rex"),
    which hold even in a question or a wish."""
    cased = not is_lowercase_text(clause)
    found: list[Statement] = []
    # Where a relative already read sits (one mark a character: a list of spans looked
    # through for every match is quadratic on a long text).
    taken = bytearray(len(clause) + 1)
    patterns = (
        (POSSESSED, BARE) if presupposed else (POSSESSED, BARE, HAD, LISTED, NAMED_THE, PET_PARENT)
    )
    for pattern in patterns:
        for match in pattern.finditer(clause):
            if taken[match.start()]:
                continue
            # Only the words just before: the whole clause again for each match is quadratic.
            if presupposed and _NAMING_BEFORE.search(
                clause[max(0, match.start() - 40) : match.start()]
            ):
                continue
            # "my son's friend Leo": someone of theirs ("my dog's name is Rex" is the dog's).
            rest = clause[match.end() : match.end() + 12]
            if re.match(r"'s?\b", rest) and not re.match(
                r"(?:'s|s)\s+(?:name|called|named)\b", rest, re.I
            ):
                continue
            predicate, many, species = _relative(match)
            named = _named_after(clause, match, cased=cased)
            if named is None:
                later = _NOW_WORDS.match(clause, match.end())
                if later:
                    named = _named_after(clause, match, cased=cased, at=later.end())
            # "a dog called Rex bit me": a list's first item is the sentence's subject when a
            # verb follows its name, not an item of the speaker's.
            if (
                named
                and pattern is LISTED
                and not clause[: match.start()].strip(" ,:;(")
                and not _NAME_ENDS.match(clause, named[1])
            ):
                named = None
            if named:
                names, stop = named
                evidence = clause[match.start() : stop]
                found += _statements(predicate, names, evidence, _CONFIDENCE[predicate])
                _mark(taken, match.start(), stop)
                more = _coordinated(clause, stop, cased=cased)
                if more:
                    found += more[0]
                    _mark(taken, stop, more[1])
                continue
            if predicate == "pet" and not many and pattern in (HAD, LISTED):
                # "we got a kitten": a name may come later ("named him Chorizo").
                found.append(said("pet", species, match.group(0), LIKELY))
                _mark(taken, match.start(), match.end())
            elif predicate != "pet" and not many and _UNNAMED_END.match(clause, match.end()):
                # "new bf alert! his name is Karim", "we had a baby boy. meet Ezra"
                word = re.sub(r"\s+", " ", (match.group("person") or "").lower())
                item = said(predicate, word, match.group(0), _CONFIDENCE[predicate])
                found.append(replace(item, value=word, qualifier=""))
                _mark(taken, match.start(), match.end())
    return found


# A relative the clause ends on, unnamed: "I have a girlfriend now", "new bf alert".
_UNNAMED_END = re.compile(r"(?<!\s)(?:\s++(?:alert|now|too|as\s++well|!+))?\s*+[.!]*+$", re.I)


# "son (Oliver, 9) and daughter (Maeve, 12)", "a guinea pig named Nugget and a hamster named
# Pip": the second of a pair the first one's owner covers.
_AND_RELATIVE = re.compile(
    r"(?<!\s)\s*+(?:,\s*+)?(?:and|&|plus)\s++(?:(?:my|our|a|an|one|two|three|\d{1,2})\s++)?"
    + _FORMER
    + _ADJ
    + _RELATIVE,
    re.I,
)


def _coordinated(clause: str, end: int, *, cased: bool) -> tuple[list[Statement], int] | None:
    match = _AND_RELATIVE.match(clause, end)
    if not match:
        return None
    named = _named_after(clause, match, cased=cased)
    if not named:
        return None
    predicate = _relative(match)[0]
    evidence = clause[match.start() : named[1]].strip(" ,")
    return _statements(predicate, named[0], evidence, _CONFIDENCE[predicate]), named[1]


# "This is Farida, my wife", "Lola (my parrot) says hello", "Jan is my boyfriend".
NAME_FIRST = re.compile(
    r"(?<![\w'-])(?P<v>" + _NAME_WORD + r")(?:\s*+,\s*+|\s*+\(\s*+|\s++[-–—]\s++|"
    r"\s++(?:is|'s)\s++(?:now\s++)?)"
    r"(?:my|our|" + _THE_SPOUSE + r")\s+" + _FORMER + _ADJ + _RELATIVE + r"(?!'s|\s+(?:friend|'s))",
    re.IGNORECASE,
)


# What follows "Farida, my wife" when it is an aside: the end, a pause, "says hi".
_ASIDE_ENDS = re.compile(
    r"(?<!\s)\s*+(?:$|[.,!?;:()\-–—]|(?:says?|said|is|'s|was|and|&|here|too|who|x+|lol|haha)\b)",
    re.IGNORECASE,
)


def _name_first(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    for match in NAME_FIRST.finditer(clause):
        name = match.group("v")
        before = clause[max(0, match.start() - 40) : match.start()]
        # "my real boss is my cat", "the best part is my dog": no name before it.
        if re.search(r"\b(?:my|our|the|a|an|his|her|their|your|this|that|of|'s)\s+$", before, re.I):
            continue
        if not _is_name(name, cased=cased) or (cased and not name[:1].isupper()):
            continue
        link = clause[match.end("v") : match.end("v") + 4]
        if not cased and not re.match(r"(?<!\s)(?:\s*+[,(]|\s++[-–—]\s)", link):
            continue  # "x is my dog" in lower-case text: too often no name
        predicate, many, _species = _relative(match)
        if many:
            continue
        if re.match(r"(?<!\s)\s*+[,–—-]", link) and not _ASIDE_ENDS.match(clause, match.end()):
            continue  # "my rabbit is called Rabbit, my 5yo named him": a new clause
        return _statements(predicate, [name], match.group(0), _CONFIDENCE[predicate])
    return []


# "mum of Timur and Dana", "dad to 3, Sam, Leo and Ava", "cat mum to Pelle".
PARENT_OF = re.compile(
    r"(?:^|[,:;]\s*+|\bi(?:'m|\s+am)\s+(?:a\s+)?)(?:proud\s+|busy\s+|single\s+|tired\s+|happy\s+)?"
    r"(?:(?P<species>" + SPECIES_GROUP + r")\s+(?:lady|guy|person|owner|mum|mom|mama|dad|daddy|"
    r"parent)|(?:mum|mom|mam|mummy|mommy|mama|dad|daddy|papa|father|mother|parent))"
    r"\s+(?:of|to)\s+"
    r"(?:(?:two|three|four|five|\d)(?:\s+(?:kids|boys|girls|children))?\s*[,:]?\s+)?(?P<start>)",
    re.IGNORECASE,
)


def _parent_of(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    found = []
    for match in PARENT_OF.finditer(clause):
        names, stop = _name_at(clause, match.end(), cased=cased, many=True)
        if not names or (cased and not all(n[:1].isupper() for n in names)):
            continue
        predicate = "pet" if match.group("species") else "child"
        evidence = clause[match.start() : stop].strip(" ,;:")
        found += _statements(predicate, names, evidence, _CONFIDENCE[predicate])
    return found


_LOWER_NAME = r"(?P<v>[^\W\d_][\w'-]{1,30})"
SPOUSE = [
    re.compile(
        S + r"(?:married to|married|got married to|'m married to|am married to|"
        r"'re married to|wed|marrying|getting married to|marry|be marrying|"
        r"be getting married to)\s+"
        r"(?:my\s+(?:[\w-]+\s+){0,3}?(?:sweetheart|love|boyfriend|girlfriend|fianc[ée]e?|bf|gf|"
        r"partner|soul\s?mate|best\s+friend|other\s+half|better\s+half|crush)(?:\s*+,\s*+|\s++)"
        r"|my\s+[\w\s-]{3,40}?,?\s+)?"
        # "married to a wonderful guy named Oskar"
        r"(?:(?:an?|the\s+(?:most\s+)?)\s*(?:[\w-]+\s+){0,3}?(?:guy|man|woman|girl|lady|bloke|fella|"
        r"chap|person|gentleman|dude)\s+(?:named|called)\s+)?" + _LOWER_NAME,
        re.IGNORECASE,
    ),
    # "married to Lars, mum to ..." in an introduction
    _LISTED_MARRIED := re.compile(
        r"(?:^|[,:;]\s*+)(?:happily\s+|newly\s+)?married\s+(?:to|with)\s+" + _LOWER_NAME, re.I
    ),
    re.compile(
        NAME_AND_I + r"(?:got married|tied the knot|got hitched|married|got wed|are married|"
        r"'re married|getting married|be getting married|be married)\b",
        re.IGNORECASE,
    ),
]
PARTNER = [
    # "seeing a girl called Naomi atm", "i've been dating this guy named Felix"
    re.compile(
        r"(?:^|\b(?:i'm|im|i\s+am|i've\s+been|ive\s+been|been|i\s+started|started)\s+)"
        r"(?:seeing|dating)\s+(?:a|this|an?\s+amazing|a\s+lovely|someone)\s+(?:[\w-]+\s+)?"
        r"(?:guy|girl|man|woman|lady|bloke|person|fella|chap|dude|boy)?\s*(?:named|called)\s+"
        + _LOWER_NAME,
        re.IGNORECASE,
    ),
    re.compile(
        NAME_AND_I + r"(?:got engaged|engaged|dating|got together|moved in together|together)\b",
        re.IGNORECASE,
    ),
    re.compile(
        S + r"(?:dating|'m dating|am dating|'m seeing|am seeing|got engaged to|'m engaged to|"
        r"am engaged to|'m in a relationship with|moved in with)\s+"
        r"(?:(?:someone|a guy|a girl|a man|a woman)\s+(?:named|called)\s+)?" + _LOWER_NAME,
        re.IGNORECASE,
    ),
]
# "kofi and i got married", "me and jamal are engaged": the couple in lower case.
_COUPLE = re.compile(
    r"^(?:(?:so|and|also|btw|omg|guess what|update|news)[,:!]?\s+)*"
    r"(?:me\s+(?:and|n|&)\s+)?(?P<v>[^\W\d_][\w'-]{1,30})\s+(?:and|n|&)\s+(?:i|me)"
    r"(?:'re|'ve|\s+(?:are|have|just|finally|recently|officially|both|r))*\s+"
    r"(?P<verb>got married|tied the knot|got hitched|married|got wed|are married|'re married|"
    r"getting married|got engaged|engaged|got together|moved in together|moving in together|"
    r"are together|'re together|dating)\b"
    r"|^(?:me\s+(?:and|n|&)\s+)(?P<v2>[^\W\d_][\w'-]{1,30})\s+(?:are|'re|r|have|just)?\s*"
    r"(?P<verb2>got married|getting married|got engaged|engaged|together|dating|moving in)",
    re.IGNORECASE,
)


def _couple(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    match = _COUPLE.search(clause)
    if not match:
        return []
    name = match.group("v") or match.group("v2")
    if not _is_name(name, cased=cased) or (cased and not name[:1].isupper()):
        return []
    verb = (match.group("verb") or match.group("verb2")).lower()
    predicate = (
        "spouse"
        if "married" in verb or verb in {"tied the knot", "got hitched", "got wed"}
        else "partner"
    )
    return _statements(predicate, [name], match.group(0), EXPLICIT)


def _verbs(predicate: str, patterns: list[re.Pattern[str]], clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    for pattern in patterns:
        match = pattern.search(clause)
        if not match:
            continue
        if pattern is _LISTED_MARRIED and about_someone_else(clause):
            continue
        name = match.group("v")
        if not _is_name(name, cased=cased) or (cased and not name[:1].isupper()):
            continue
        names, stop = _name_at(clause, match.start("v"), cased=cased, many=False)
        if names:
            return _statements(predicate, names, clause[match.start() : stop], EXPLICIT)
    return []


# The words for relatives as typed in a hurry: "husbnad", "girlfirend" (two letters swapped).
_TYPO_WORD = re.compile(r"\b[a-z]{5,12}\b", re.IGNORECASE)
_BY_LETTERS = {
    (word[0], "".join(sorted(word))): word
    for word in ("husband", "boyfriend", "girlfriend", "partner", "daughter", "fiance", "fiancee")
}


def _typos_fixed(clause: str) -> str:
    """``clause`` with a relative's word typed with two letters swapped spelt right; of the
    same length, so that what is found in it is read from the clause as typed."""

    def fixed(match: re.Match[str]) -> str:
        word = match.group(0)
        right = _BY_LETTERS.get((word[0].lower(), "".join(sorted(word.lower()))))
        if right is None or right == word.lower():
            return word
        return right if word.islower() else right.capitalize() if word[0].isupper() else right

    return _TYPO_WORD.sub(fixed, clause)


def _as_typed(found: list[Statement], typed: str, fixed: str) -> list[Statement]:
    """Evidence in the clause's own words: the span found in the spelt-right one."""
    if typed == fixed:
        return found
    kept = []
    for item in found:
        start = fixed.find(item.evidence)
        if start >= 0:
            item = replace(item, evidence=typed[start : start + len(item.evidence)])
        kept.append(item)
    return kept


WELCOME = re.compile(
    r"^welcome\s+to\s+the\s+world,?\s+(?:little\s+|baby\s+)?(?-i:(?P<v>[A-Z][\w'-]+))", re.I
)


def _welcome(clause: str) -> list[Statement]:
    match = WELCOME.search(clause)
    if not match or not _is_name(match.group("v"), cased=True):
        return []
    return _statements("child", [match.group("v")], match.group(0), LIKELY)


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


def _litter(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    found = []
    match = _KEPT_ONE.search(clause)
    if match:
        # Of a litter the message speaks of; the name ends the clause ("we kept one, Sarah
        # took the other" names a person).
        names, stop = _name_at(clause, match.end(), cased=cased, many=False)
        if names and (not cased or names[0][:1].isupper()) and _NAME_ENDS.match(clause, stop):
            found += _statements("pet", names, clause[match.start() : stop], LIKELY)
    arrived = _ARRIVED.search(clause)
    if arrived:
        item = said("child", "baby", arrived.group(0), LIKELY)
        found.append(replace(item, value="baby", qualifier=""))
    return found


def _all(typed: str) -> list[Statement]:
    return list(_read(typed))


# Read once for the three rules (relationships, children, pets) that ask about one clause.
@lru_cache(maxsize=64)
def _read(typed: str) -> tuple[Statement, ...]:
    clause = _typos_fixed(typed)
    found = (
        _verbs("spouse", SPOUSE, clause) or _couple(clause) or _verbs("partner", PARTNER, clause)
    )
    found += _own_relatives(clause) + _parent_of(clause) + _name_first(clause) + _welcome(clause)
    found += _litter(clause)
    found = _named_pets(found, clause)
    # A relative without a name waits behind one named in the same clause.
    found = [s for s in found if not is_unnamed(s)] + [s for s in found if is_unnamed(s)]
    return tuple(_as_typed(_once(found), typed, clause))


def presupposed(typed: str) -> list[Statement]:
    """The relatives a question, a wish or a plan still takes as the speaker's: "should I
    propose to my gf Mina?", "if my wife Hira agrees we'll move" (not "if I had a dog I'd
    call it Rex")."""
    clause = _typos_fixed(typed)
    found = _own_relatives(clause, presupposed=True)
    return _as_typed(_once([s for s in found if not is_unnamed(s)]), typed, clause)


def _once(found: list[Statement]) -> list[Statement]:
    """Each slot once, a single-valued one with its first value."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for item in found:
        key = (item.predicate, item.qualifier)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def relationships(clause: str) -> list[Statement]:
    return [s for s in _all(clause) if s.predicate in ("spouse", "partner")]


def children(clause: str) -> list[Statement]:
    return [s for s in _all(clause) if s.predicate == "child"]


def pets(clause: str) -> list[Statement]:
    """Every pet of the clause: "a cat named Whiskers and a dog named Bo"; a pet known
    only by its species takes the name the clause gives it next ("a puppy, her name is
    Nova", "a kitten, named him Chorizo")."""
    return [s for s in _all(clause) if s.predicate == "pet"]


# Those of the household who may name a pet: "got a hamster, the kids named it Hamster".
_NAMERS = (
    r"(?:the\s+(?:kids|children|boys|girls|twins)|my\s+(?:kids|son|daughter|wife|husband)|they)"
    r"\s+"
)


def _named_pets(found: list[Statement], clause: str) -> list[Statement]:
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
    names, stop = _name_at(sentence, match.end(), cased=not is_lowercase_text(sentence), many=False)
    if not names:
        return None
    return _statements(pet.predicate, names, sentence[:stop], pet.confidence)[0]


def is_unnamed(item: Statement) -> bool:
    """A pet known only by its species ("we got a cat") or a relative by the word for them
    ("new bf alert"): no fact until a name comes."""
    if item.value is None or item.value != item.value.casefold():
        return False
    if item.predicate == "pet":
        return item.value in PET_SPECIES
    return item.predicate in _RELATIVES and (item.value in RELATIVE_WORDS or " " in item.value)
