"""The three rules (relationships, children, pets) over the people of one clause, read once;
and the relatives a question, a wish or a plan still takes as the speaker's (presupposed()).
A relative's word typed with two letters swapped ("husbnad") is read spelt right."""

import re
from dataclasses import replace
from functools import lru_cache

from language.extraction.people.couples import spouse_or_partner
from language.extraction.people.name_first import name_first
from language.extraction.people.parenthood import litter, parent_of, welcome
from language.extraction.people.relatives import own_relatives
from language.extraction.people.unnamed import named_pets
from language.extraction.people.words import is_unnamed
from language.extraction.statements import Statement

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


def _all(typed: str) -> list[Statement]:
    return list(_read(typed))


# Read once for the three rules (relationships, children, pets) that ask about one clause.
@lru_cache(maxsize=64)
def _read(typed: str) -> tuple[Statement, ...]:
    clause = _typos_fixed(typed)
    found = spouse_or_partner(clause)
    found += own_relatives(clause) + parent_of(clause) + name_first(clause) + welcome(clause)
    found += litter(clause)
    found = named_pets(found, clause)
    # A relative without a name waits behind one named in the same clause.
    found = [s for s in found if not is_unnamed(s)] + [s for s in found if is_unnamed(s)]
    return tuple(_as_typed(_once(found), typed, clause))


def presupposed(typed: str) -> list[Statement]:
    """The relatives a question, a wish or a plan still takes as the speaker's: "should I
    propose to my gf Mina?", "if my wife Hira agrees we'll move" (not "if I had a dog I'd
    call it Rex")."""
    clause = _typos_fixed(typed)
    found = own_relatives(clause, presupposed=True)
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
