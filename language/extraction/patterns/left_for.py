"""An employer or a place left for another: "we're leaving Tallinn for Tartu", "I left
Google for Meta". The text does not say which slot the old value is in: the new value is
stated as both an employer and a place, each with the old one as ``ended``."""

from dataclasses import replace

from language.extraction.grammar import REST, S, evidence_of, rx
from language.extraction.patterns.home import home_trust
from language.extraction.patterns.work import trust
from language.extraction.statements import Statement, is_lowercase_text, proper_name
from language.extraction.statements import statement as said
from language.extraction.vocabulary import COUNTRIES, NOT_A_VALUE_AFTER_FOR

# "we're leaving Tallinn for Tartu", "I left Google for Meta": the new value replaces the one
# named, whichever slot holds it.
SWAP = rx(
    S + r"(?:'re|'m|are|am)?\s*(?:leaving|left|'ll leave|will leave|leave|swapping|swapped|"
    r"trading|traded|ditching|ditched|quitting|quit)\s+(?:the\s+)?"
    r"(?-i:(?P<old>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*))\s+for\s+(?:the\s+)?" + REST
)


def swaps(clause: str) -> list[Statement]:
    for match in SWAP[0].finditer(clause):
        value = proper_name(match.group("v"), lenient=is_lowercase_text(clause))
        if not value or value.lower() in NOT_A_VALUE_AFTER_FOR:
            continue
        evidence = evidence_of(clause, match, value)
        place = "country" if value.lower() in COUNTRIES else "city"
        return [
            replace(said("employer", value, evidence, *trust(match)), ended=match.group("old")),
            replace(said(place, value, evidence, *home_trust(match)), ended=match.group("old")),
        ]
    return []
