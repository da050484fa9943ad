"""Words typed wrong, read as the word meant: "my girlfreind", "i wrok at", "moevd to".

A general layer, not a list of misspellings: a typed word that is no English word and lies
within one typo (Damerau-Levenshtein distance 1: a letter swapped with its neighbour,
dropped, doubled or struck by another key; 2 for words of 8 letters or more) of exactly one
of the caller's key words is read as that key word. Everything else is read as typed:

- a real word is never corrected ("wide" stays "wide" though "wife" is one typo away), so a
  correction cannot turn one sentence into another that is also English;
- a word as near two key words is left alone: no guessing. Unless one is nearer than the
  rest ("dauhgter" is one typo from "daughter", two from "daughters"), or one is made by
  the likelier slip of the fingers ("namde": "named" with two letters swapped, not "name"
  with a letter added; "basec": "based" with the key next to "d", not "basic"), or only one
  keeps the typed word's first and last letters ("workd" is "worked", not "works");
- two words written as one ("backend": "back" and "end") are no typo ("backed");
- names are values, never corrected: a capitalised word (unless it opens a sentence), a word
  in capitals, a place the gazetteer knows, anything inside an address, a handle or a number.

The English word list is pyspellchecker's (MIT, 160,000 words of its English frequency list,
shipped in the package: no network); the distance and its index are ours, a few lines: a
symmetric-delete index (SymSpell's idea) of the key words, so a lookup costs a handful of
set look-ups per unknown word, whatever the vocabulary's size.
"""

import re
from collections.abc import Iterable
from functools import cache

from language.places import city, country

# A word of letters only, not inside an address, a handle, a contraction or a number.
# A possessive "'s" may follow ("my wiffe's name").
_WORD = re.compile(r"(?<![\w@.'’/-])[A-Za-z]{3,24}(?![\w@/-]|\.\w|['’](?!s\b))")
# What ends a sentence before a capitalised word that may be a typo rather than a name.
_SENTENCE_END = re.compile(r"(?:^|[.!?:\n])[\s\"'(]{0,3}$")
# What follows the first of a list of names: "Mateus, Inês and Beatriz".
_LISTED_NEXT = re.compile(r"(?<!\s)\s*+(?:,|&|and\b)")
# Words of this length or more may carry two typos.
LONG_WORD = 8
# The words on each side of a word that a place's name may take with it ("Ho Chi Minh City").
_PLACE_WORDS = 3
_NEAR_WORDS = re.compile(r"[A-Za-z]{1,24}")


@cache
def english_words() -> frozenset[str]:
    """The English word list (lower case), loaded once: about 0.1 s and 10 MB."""
    from spellchecker import SpellChecker

    return frozenset(SpellChecker(language="en", distance=1).word_frequency.keys())


def distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): insertions, deletions,
    substitutions and swaps of two neighbouring letters, each one edit."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _deletes(word: str, depth: int) -> set[str]:
    """``word`` with up to ``depth`` letters taken out (``word`` itself included)."""
    found, edge = {word}, {word}
    for _ in range(depth):
        edge = {w[:i] + w[i + 1 :] for w in edge for i in range(len(w))}
        found |= edge
    return found


# The keys around each key of a QWERTY keyboard: a finger that slips strikes one of these.
_NEIGHBOURS = {
    "q": "wa", "w": "qeas", "e": "wrsd", "r": "etdf", "t": "ryfg", "y": "tugh", "u": "yihj",
    "i": "uojk", "o": "ipkl", "p": "ol", "a": "qwsz", "s": "awedxz", "d": "serfcx",
    "f": "drtgvc", "g": "ftyhbv", "h": "gyujnb", "j": "huikmn", "k": "jiolm", "l": "kop",
    "z": "asx", "x": "zsdc", "c": "xdfv", "v": "cfgb", "b": "vghn", "n": "bhjm", "m": "njk",
}  # fmt: skip


def slip(typed: str, word: str) -> int:
    """How likely a slip of the fingers turns ``word`` into ``typed``, one edit apart: 0 for
    two letters swapped, 1 for a neighbouring key struck, a letter dropped or doubled, 2 for
    any other edit."""
    if len(typed) == len(word):
        diffs = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        if len(diffs) == 2 and sorted(typed) == sorted(word):
            return 0
        struck, meant = typed[diffs[0]], word[diffs[0]]
        return 1 if len(diffs) == 1 and struck in _NEIGHBOURS.get(meant, "") else 2
    if len(typed) == len(word) - 1:
        return 1  # a letter dropped
    # One letter too many: the first place the two differ.
    pairs = zip(typed, word, strict=False)
    extra = next((i for i, (a, b) in enumerate(pairs) if a != b), len(word))
    # A letter struck twice, or with the key next to it.
    around = typed[extra - 1 : extra] + typed[extra + 1 : extra + 2]
    doubled = any(c == typed[extra] or typed[extra] in _NEIGHBOURS.get(c, "") for c in around)
    return 1 if doubled else 2


def _likeliest(typed: str, words: list[str]) -> list[str]:
    """Of key words as near ``typed``, the ones the likeliest slip makes it, then those that
    keep its first and last letters (a typo rarely touches them): "namde" is "named" (two
    letters swapped), not "name"; "workd" is "worked", not "works"."""
    if all(distance(typed, w) == 1 for w in words):
        best = min(slip(typed, w) for w in words)
        words = [w for w in words if slip(typed, w) == best]
    if len(words) > 1:
        words = [w for w in words if w[0] == typed[0] and w[-1] == typed[-1]]
    return words


def allowed_distance(word: str) -> int:
    return 2 if len(word) >= LONG_WORD else 1


class Speller:
    """Reads the words typed one typo off ``key_words`` as those words (see the module)."""

    def __init__(
        self,
        key_words: Iterable[str],
        *,
        english: frozenset[str] | None = None,
        also_known: Iterable[str] = (),
        short_words: Iterable[str] = (),
    ):
        """``english``: the words of the language (default: english_words()); ``also_known``:
        more words never corrected (the caller's own shorthands); ``short_words``: words of
        three letters read back only from two neighbours swapped ("cta", "dgo"): any other
        slip leaves a three-letter word as near to too many others."""
        self.key_words = frozenset(w.casefold() for w in key_words if len(w) >= 4)
        self.english = english_words() if english is None else english
        self.known = self.english | self.key_words | frozenset(also_known)
        self._swapped = {
            word[:i] + word[i + 1] + word[i] + word[i + 2 :]: word
            for word in (w.casefold() for w in short_words)
            for i in range(len(word) - 1)
            if word[i] != word[i + 1]
        }
        # Every key word under each of its forms with a letter or two taken out.
        self._index: dict[str, set[str]] = {}
        for word in self.key_words:
            for form in _deletes(word, allowed_distance(word)):
                self._index.setdefault(form, set()).add(word)

    def meant(self, typed: str) -> str | None:
        """The one key word ``typed`` (lower case) is a typo of, or None."""
        if typed in self.known or len(typed) < 3:
            return None
        if typed in self._swapped:
            return self._swapped[typed]
        # Two neighbours swapped is the likeliest slip of all: "promtoed" is "promoted", though
        # it also reads as "prom" + "toed"; "inot" is "into".
        swapped = {
            typed[:i] + typed[i + 1] + typed[i] + typed[i + 2 :] for i in range(len(typed) - 1)
        } & self.key_words
        if len(swapped) == 1 and not _a_known_place(typed):
            return swapped.pop()
        if self.compound(typed):
            return None
        # Two letters dropped from a long key word leave six.
        depth = 2 if len(typed) >= LONG_WORD - 2 else 1
        near: set[str] = set()
        for form in _deletes(typed, depth):
            near |= self._index.get(form, set())
        by_distance: dict[int, list[str]] = {}
        for word in near:
            edits = distance(typed, word)
            if edits <= allowed_distance(word):
                by_distance.setdefault(edits, []).append(word)
        # The nearest must be one word: "dauhgter" is one typo from "daughter" and two from
        # "daughters"; "workd" is one from "work", "works" and "worked": left as typed.
        nearest = by_distance[min(by_distance)] if by_distance else []
        if len(nearest) > 1:
            nearest = _likeliest(typed, nearest)
        if len(nearest) != 1:
            return None
        word = nearest[0]
        # A place is a value, not a typo: "lisboa" stays though it were one key off.
        return None if city(typed) or country(typed) else word

    def compound(self, typed: str) -> bool:
        """Two words written as one ("backend", "workmate"): no typo, though the list lacks
        it. Not with a letter struck three times ("messsage")."""
        if re.search(r"(\w)\1\1", typed):
            return False
        return any(
            typed[:i] in self.english and typed[i:] in self.english
            for i in range(3, len(typed) - 2)
        )

    def corrected(self, text: str) -> str:
        """``text`` with each typo of a key word written as the key word, in the case style
        it was typed in ("Girlfreind" -> "Girlfriend")."""
        return _WORD.sub(self._replacement, text)

    def _replacement(self, match: re.Match[str]) -> str:
        typed = match.group(0)
        if not typed.islower():
            capitalised = typed[0].isupper() and typed[1:].islower()
            opens = _SENTENCE_END.search(match.string, max(0, match.start() - 4), match.start())
            if not (capitalised and opens):
                return typed  # a name ("Jaon" is someone), or an acronym
            if ":" in opens.group(0) and _LISTED_NEXT.match(match.string, match.end()):
                return typed  # "3 kids: Mateus, Inês and Beatriz": names listed

        word = self.meant(typed.lower())
        if word is None or _in_place_name(match):
            return typed
        return word[0].upper() + word[1:] if typed[0].isupper() else word


def _in_place_name(match: re.Match[str]) -> bool:
    """The word is part of a place's name of several words: "nang" in "im in da nang now" is
    no typo of "nans". Read only for a word that would be corrected: a few lookups."""
    text = match.string
    before = _NEAR_WORDS.findall(text, max(0, match.start() - 40), match.start())
    after = _NEAR_WORDS.findall(text, match.end(), match.end() + 40)
    words = [*before[-_PLACE_WORDS:], match.group(0), *after[:_PLACE_WORDS]]
    at = len(before[-_PLACE_WORDS:])
    return any(
        city(" ".join(words[start:end]))
        for start in range(0, at + 1)
        for end in range(max(at + 1, start + 2), len(words) + 1)
    )


# A village's other names include many a typo ("inot" is one of a Cambodian village's): a word
# swapped from a key word is read as the key word unless it names a town of this size.
_SWAP_PLACE_POPULATION = 50_000


def _a_known_place(typed: str) -> bool:
    place = city(typed)
    return country(typed) is not None or (
        place is not None
        and (place.population >= _SWAP_PLACE_POPULATION or place.name.casefold() == typed)
    )
