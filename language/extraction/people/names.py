"""A name, read where the word for a relative or a pet leaves off: after "named" or "called",
in brackets, after a comma or "is" ("my son jake", "my wife, Priya", "Rex (3)", "my kids are
tane and mere"), with a surname, an age or more names of a list. A name typed in lower case
is one only when it is no common word: "my son is sick" names nobody."""

import re
import string
from dataclasses import replace

from language.extraction.people.words import RELATIVE_WORDS, relative_of
from language.extraction.statements import ARTICLES, NOT_A_VALUE, Statement
from language.extraction.statements import statement as said
from language.extraction.vocabulary import (
    COMMON_WORDS,
    DIETS,
    JOB_WORDS,
    LANGUAGES,
    PET_SPECIES,
    STOP_WORDS,
)

# A whole word (a value over the size limit is refused as such, not cut), read once.
NAME_WORD = r"[^\W\d_][\w'-]*+"
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
NAME_ENDS = re.compile(
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


def is_name(word: str, *, cased: bool) -> bool:
    """``word`` read as a name: capitalised in text that has capitals, or, typed in lower
    case, no common word ("my son jake", not "my son is sick")."""
    word = re.sub(r"'s$", "", word)
    lowered = word.lower()
    if lowered in _PRONOUNS or lowered in STOP_WORDS or lowered in NOT_A_VALUE:
        return False
    if word[:1].isupper():
        return cased or _lowercase_name(word)
    return _lowercase_name(word)


def name_at(clause: str, start: int, *, cased: bool, many: bool) -> tuple[list[str], int]:
    """The name (or names, for ``many``) at ``start``, and where they end."""
    names: list[str] = []
    pos = start
    while True:
        match = re.compile(NAME_WORD).match(clause, pos)
        if not match or not is_name(match.group(0), cased=cased):
            break
        word, end = re.sub(r"'s$", "", match.group(0)), match.end()
        # A surname in text with capitals: "my husband John Smith", "the puppy Sir Reginald
        # Fluffington".
        for _ in range(2):
            second = re.compile(r"(?<!\s)\s++(" + NAME_WORD + ")").match(clause, end)
            if not (
                cased
                and word[:1].isupper()
                and second
                and second.group(1)[:1].isupper()
                and is_name(second.group(1), cased=True)
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


def named_after(
    clause: str, match: re.Match[str], *, cased: bool, at: int | None = None
) -> tuple[list[str], int] | None:
    """The names that follow the word for a relative or pet (or ``at``), if any."""
    predicate, many, _species = relative_of(match)
    end = match.end() if at is None else at
    between = _BETWEEN.match(clause, end)
    if between and between.end() > end:
        end = between.end()
    strong = _STRONG.match(clause, end)
    if strong:
        start = strong.end()
        names, stop = name_at(clause, start, cased=cased, many=many)
        if names and strong.group("paren") is not None:
            closed = re.compile(_AGE + r"\s*+[),]").match(clause, stop)
            return (names, closed.end()) if closed else None
        return (names, stop) if names else None
    # Without a word that says so, a name in text with capitals has one: "new bf alert" is
    # no name, "my son jake" in lower-case text is.
    apposed = _APPOSED.match(clause, end)
    if apposed and not _IS.match(clause, end):
        names, stop = name_at(clause, apposed.end(), cased=cased, many=many)
        if names and cased and not all(n[:1].isupper() for n in names):
            names = []
        if names and not cased and not many and _OBJECT_NEXT.match(clause, stop):
            names = []  # "my gf broke her phone": a verb, its object next
        if names and not (predicate == "pet" and not many and names[0] == _species):
            after_comma = "," in clause[end : apposed.end()]
            if not after_comma or NAME_ENDS.match(clause, stop) or many:
                return names, stop
    is_ = _IS.match(clause, end)
    if is_ and (cased or many):
        # "my wife is vegan", "my boyfriend is amazing": in lower-case text, "is" is followed
        # by what they are far more often than by who.
        names, stop = name_at(clause, is_.end(), cased=cased, many=many)
        if names and cased and not all(n[:1].isupper() for n in names):
            return None
        if names and many and len(names) < 2:
            return None  # "my kids are tane and mere", not "my kids are monsters"
        if names and NAME_ENDS.match(clause, stop) and not nationality(names[0]):
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


def name_statements(
    predicate: str, names: list[str], evidence: str, confidence: float
) -> list[Statement]:
    """A statement of ``predicate`` for each of ``names``, each written with capitals."""
    found = []
    for name in names:
        value = _capitalised(name, predicate)
        item = said(predicate, value, evidence, confidence)
        if item.value != value:
            item = replace(item, value=value)
        found.append(item)
    return found
