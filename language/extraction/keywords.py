"""The words the extraction rules key on, for reading their typos (language.spelling):
"my girlfreind", "i wrok at", "moevd to", "my dauhgter", "i'm vegeterian".

Not a hand list: every word written in the rules' own patterns (the verbs, nouns and cue
words of language/extraction's module-level regular expressions, the traps' included, so "mabye
i'll move" is still a maybe), their inflections, and the closed word lists the rules check
values against (jobs, pets, diets, languages). A word added to a rule is read through its
typos from then on."""

import importlib
import re
from collections.abc import Iterator
from functools import cache

from language.extraction import vocabulary
from language.extraction.chat import SPELLINGS
from language.extraction.vocabulary import CRAFTS, DIETS, JOB_WORDS, LANGUAGES, PET_SPECIES
from language.spelling import Speller, allowed_distance, distance, english_words

# The modules whose patterns are read (not the LLM, embedding or classifier helpers; not
# chat.py's, which lists misspellings: the words it writes out are taken instead; not the
# extractor's, extractor.py, clause_reading.py and normalising.py, which read this module),
# and the attribution of quoted, pasted and forwarded text ("got this messsage: ...").
_MODULES = (
    *(
        f"language.extraction.{name}"
        for name in (
            "clauses",
            "contacts",
            "corrections.added",
            "corrections.corrected",
            "corrections.reversals",
            "corrections.values",
            "couple_endings",
            "dates",
            "endings",
            "fragments",
            "grammar",
            "kinship",
            "patterns.abilities",
            "patterns.birthdays",
            "patterns.home",
            "patterns.left_for",
            "patterns.preferences",
            "patterns.work",
            "people.couples",
            "people.name_first",
            "people.names",
            "people.parenthood",
            "people.relatives",
            "people.rules",
            "people.unnamed",
            "people.words",
            "signature",
            "statements",
            "structure",
            "traps",
            "work_endings",
        )
    ),
    "language.attribution",
)
# A pattern's own syntax, taken out before its words are read: escapes (\b, \s, \w), group
# names ((?P<v>), inline flags ((?-i:) and named references.
_SYNTAX = re.compile(r"\\[A-Za-z]|\(\?P?<[^>]{1,40}>|\(\?[a-zA-Z-]{1,8}:|\(\?P=\w{1,40}\)")
_LETTERS = re.compile(r"[a-z]{3,}")
# The inflections of a pattern's word ("move": "moves", "moved", "moving").
_INFLECTIONS = ("s", "es", "d", "ed", "ing")
# Endings a pattern writes apart from a stem that is no word ("marri(?:ed|age)").
_ENDINGS = ("e", "ed", "es", "s", "ing", "er", "ers", "age", "y", "ies", "ied", "ment")


def _patterns(value: object) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _patterns(item)


@cache
def _pattern_runs() -> frozenset[str]:
    """Every run of letters the rules' patterns are written with (stems included)."""
    runs: set[str] = set()
    for name in _MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if attribute.startswith("__"):
                continue
            for pattern in _patterns(value):
                if isinstance(pattern.pattern, str):
                    runs |= set(_LETTERS.findall(_SYNTAX.sub(" ", pattern.pattern).lower()))
    return frozenset(runs)


def _pattern_words() -> set[str]:
    english = english_words()
    found: set[str] = set()
    for run in _pattern_runs():
        if run in english:
            forms = [run + s for s in _INFLECTIONS]
            # "move" -> "moving", "marry" -> "married"
            forms += [run[:-1] + s for s in ("ing", "ied", "ies")]
        else:
            forms = [run + s for s in _ENDINGS] if len(run) >= 4 else []
        found |= {w for w in [run, *forms] if w in english}
    return found


def _known_words() -> frozenset[str]:
    """The words never read as another besides English: the words the rules themselves are
    written with ("intro", "lol") and their chat spellings ("bday")."""
    lists = [v for v in vars(vocabulary).values() if isinstance(v, frozenset)]
    chat = {w.lower() for w in SPELLINGS}
    return _pattern_runs() | chat | frozenset().union(*lists)


# The rules' words of three letters, read back from two letters swapped only: "my cta
# Mochi", "our dgo Rex", "my bf", "my sno Ali".
SHORT_KEY_WORDS = ("cat", "dog", "son", "kid", "job", "pet")


@cache
def key_words() -> frozenset[str]:
    """The words typos are read back to: of 4 letters or more (a shorter word is one typo
    away from too many others to be told apart)."""
    # The chat spellings are read after the typos (chat.spelled_out): "bdya" is "bday",
    # written out as "birthday" next. Not those that are themselves typos ("daugther"):
    # "daugter" is one typo from it and from "daughter", the word both mean.
    written_out = {w for spelling in SPELLINGS.values() for w in spelling.split()}
    shorthands = {
        typed
        for typed, meant in SPELLINGS.items()
        if distance(typed, meant) > allowed_distance(meant)
    }
    lists = DIETS | JOB_WORDS | LANGUAGES | PET_SPECIES | CRAFTS
    # Pets come in numbers: "two rabitts", "we got chikens".
    plurals = {w + ("es" if w.endswith(("sh", "ch", "x", "s")) else "s") for w in PET_SPECIES}
    words = _pattern_words() | written_out | shorthands | lists | plurals
    return frozenset(w for w in words if len(w) >= 4 and w.isalpha())


@cache
def _speller() -> Speller:
    # The chat spellings are known words, never re-read as another word.
    return Speller(key_words(), also_known=_known_words(), short_words=SHORT_KEY_WORDS)


def typos_read(text: str) -> str:
    """``text`` with the typos of the rules' key words written as the words meant."""
    return _speller().corrected(text)
