"""The relatives and pets a clause names after the word for them, as the speaker's: "my son
jake", "we got a dog called Rex", "son (Oliver, 9) and daughter (Maeve, 12)". One said only
by the word for them waits for a name ("we got a kitten", "new bf alert")."""

import re
from dataclasses import replace

from language.extraction.people.names import NAME_ENDS, name_statements, named_after
from language.extraction.people.words import (
    ADJ,
    BARE,
    CONFIDENCE,
    FORMER,
    HAD,
    LISTED,
    NAMED_THE,
    PET_PARENT,
    POSSESSED,
    RELATIVE,
    relative_of,
)
from language.extraction.statements import LIKELY, Statement, is_lowercase_text
from language.extraction.statements import statement as said

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


def own_relatives(clause: str, *, presupposed: bool = False) -> list[Statement]:
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
            if taken[match.start()] or _passed_over(clause, match, presupposed=presupposed):
                continue
            found += _relative_at(clause, match, pattern, taken, cased=cased)
    return found


def _passed_over(clause: str, match: re.Match[str], *, presupposed: bool) -> bool:
    """Whether the word for a relative ``match`` finds is passed over: after a verb of
    naming when only what is taken as given is read ("I'd name my son Otis"), or as the
    owner of someone else ("my son's friend Leo")."""
    # Only the words just before: the whole clause again for each match is quadratic.
    if presupposed and _NAMING_BEFORE.search(clause[max(0, match.start() - 40) : match.start()]):
        return True
    # "my son's friend Leo": someone of theirs ("my dog's name is Rex" is the dog's).
    rest = clause[match.end() : match.end() + 12]
    return bool(re.match(r"'s?\b", rest)) and not re.match(
        r"(?:'s|s)\s+(?:name|called|named)\b", rest, re.I
    )


def _relative_at(
    clause: str, match: re.Match[str], pattern: re.Pattern[str], taken: bytearray, *, cased: bool
) -> list[Statement]:
    """The relative or pet ``match`` finds, with its name and any named beside it ("son
    (Oliver, 9) and daughter (Maeve, 12)"), or unnamed when a name may come later; its
    place marked ``taken``."""
    predicate, many, species = relative_of(match)
    named = _name_of(clause, match, pattern, cased=cased)
    if named:
        names, stop = named
        evidence = clause[match.start() : stop]
        found = name_statements(predicate, names, evidence, CONFIDENCE[predicate])
        _mark(taken, match.start(), stop)
        more = _coordinated(clause, stop, cased=cased)
        if more:
            found += more[0]
            _mark(taken, stop, more[1])
        return found
    if predicate == "pet" and not many and pattern in (HAD, LISTED):
        # "we got a kitten": a name may come later ("named him Chorizo").
        _mark(taken, match.start(), match.end())
        return [said("pet", species, match.group(0), LIKELY)]
    if predicate != "pet" and not many and _UNNAMED_END.match(clause, match.end()):
        # "new bf alert! his name is Karim", "we had a baby boy. meet Ezra"
        word = re.sub(r"\s+", " ", (match.group("person") or "").lower())
        item = said(predicate, word, match.group(0), CONFIDENCE[predicate])
        _mark(taken, match.start(), match.end())
        return [replace(item, value=word, qualifier="")]
    return []


def _name_of(
    clause: str, match: re.Match[str], pattern: re.Pattern[str], *, cased: bool
) -> tuple[list[str], int] | None:
    """The names after the word ``match`` finds, or after a word of time next to it ("a
    second cat now, Ziggy"), and where they end."""
    named = named_after(clause, match, cased=cased)
    if named is None:
        later = _NOW_WORDS.match(clause, match.end())
        if later:
            named = named_after(clause, match, cased=cased, at=later.end())
    # "a dog called Rex bit me": a list's first item is the sentence's subject when a
    # verb follows its name, not an item of the speaker's.
    if (
        named
        and pattern is LISTED
        and not clause[: match.start()].strip(" ,:;(")
        and not NAME_ENDS.match(clause, named[1])
    ):
        return None
    return named


# A relative the clause ends on, unnamed: "I have a girlfriend now", "new bf alert".
_UNNAMED_END = re.compile(r"(?<!\s)(?:\s++(?:alert|now|too|as\s++well|!+))?\s*+[.!]*+$", re.I)


# "son (Oliver, 9) and daughter (Maeve, 12)", "a guinea pig named Nugget and a hamster named
# Pip": the second of a pair the first one's owner covers.
_AND_RELATIVE = re.compile(
    r"(?<!\s)\s*+(?:,\s*+)?(?:and|&|plus)\s++(?:(?:my|our|a|an|one|two|three|\d{1,2})\s++)?"
    + FORMER
    + ADJ
    + RELATIVE,
    re.I,
)


def _coordinated(clause: str, end: int, *, cased: bool) -> tuple[list[Statement], int] | None:
    match = _AND_RELATIVE.match(clause, end)
    if not match:
        return None
    named = named_after(clause, match, cased=cased)
    if not named:
        return None
    predicate = relative_of(match)[0]
    evidence = clause[match.start() : named[1]].strip(" ,")
    return name_statements(predicate, named[0], evidence, CONFIDENCE[predicate]), named[1]
