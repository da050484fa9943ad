"""An item added to a multi-valued slot, ending nothing: "add olives to the list of things I
hate", "I know SQL too", "and Arabic, a bit"; and a change said with both its ends, each
read as a clause of its own ("left Grab and joined Gojek")."""

import re

from language.extraction.corrections.corrected import Read
from language.extraction.corrections.reversals import named_item
from language.extraction.statements import LIKELY, NOT_A_VALUE, Statement, phrase, statement
from language.extraction.vocabulary import LANGUAGES

# "add olives to the list of things I hate", "add crochet to my skills".
_ADD = re.compile(
    r"\b(?:add|put)\s+(?P<v>[^,.;!?]{1,60}?)\s+(?:to|on)\s+(?:the|my)\s+"
    r"(?:(?:list|column|pile)\s+(?:of\s+)?)?(?P<what>[^,.;!?]{1,60})",
    re.I,
)
_HATE_WORDS = re.compile(
    r"\b(?:hate|dislike|can't stand|cant stand|loathe|ick|nope|avoid)\w*", re.I
)
_LOVE_WORDS = re.compile(r"\b(?:love|like|enjoy|favou?rite|adore|into)\w*", re.I)
_SKILL_WORDS = re.compile(r"\b(?:skills?|can do|abilities|cv|resume)\b", re.I)
_LANGUAGE_WORDS = re.compile(r"\blanguages?\b", re.I)


# "add Italian too", "oh and add Czech as well": the list named by the item's kind alone.
_ADD_TOO = re.compile(
    r"^(?:(?:oh|and|also|ok|pls|please)[,]?\s{1,3}){0,3}add\s{1,3}(?P<v>[^,.;!?]{1,40}?)"
    r"\s{1,3}(?:too|as\s+well|also)\s{0,3}[.!]{0,3}$",
    re.I,
)


def additions(clause: str) -> list[Statement]:
    """An item added to a list the speaker keeps: "add humidity to the list of things i hate"."""
    match = _ADD.search(clause)
    if not match:
        too = _ADD_TOO.match(clause.strip())
        if too and too.group("v").strip().lower() in LANGUAGES:
            value = too.group("v").strip().capitalize()
            return [statement("language", value, too.group(0).strip(), LIKELY)]
        return []
    what = match.group("what")
    value = phrase(match.group("v"), max_words=4)
    if not value or value.lower() in NOT_A_VALUE:
        return []
    if _LANGUAGE_WORDS.search(what) and value.lower() in LANGUAGES:
        predicate = "language"
    elif _SKILL_WORDS.search(what):
        predicate = "skill"
    elif _HATE_WORDS.search(what):
        predicate = "dislikes"
    elif _LOVE_WORDS.search(what):
        predicate = "likes"
    else:
        return []
    return [statement(predicate, value, match.group(0), LIKELY)]


# "I know SQL too", "i can do video editing too", "my japanese is pretty good now too",
# "been getting into birdwatching too", "loving afrobeats lately too".
_ALSO = re.compile(
    r"(?:^|\bi\s{1,3}|\bi've\s{1,3}|\bive\s{1,3})(?:also\s+)?(?:"
    r"(?P<skill>(?:know|can\s+do|can\s+use|learned|learnt|picked\s+up)\s+(?P<s>[^,.;!?]{1,60}?))"
    r"|(?P<like>(?:been\s+)?(?:getting|got)\s+(?:really\s+)?into\s+(?P<l>[^,.;!?]{1,60}?))"
    r"|(?P<loving>loving\s+(?P<l2>[^,.;!?]{1,60}?))"
    r")\s+(?:\w+\s+){0,2}?(?:too|as\s+well|also)\b"
    r"|^(?:and\s+|oh\s+and\s+)?my\s+(?P<lang>[a-z]+)\s+is\s+(?:\w+\s+){0,3}?"
    r"(?:good|decent|fluent|ok|okay|solid|not\s+bad)\b",
    re.I,
)
# "and Arabic, a bit", "oh and Farsi too": a language named alone, added to the list.
_ALSO_LANGUAGE = re.compile(
    r"^(?:(?:oh|ah|plus)\s+)?(?:and|also|plus)\s+(?:some\s+|a\s+bit\s+of\s+|a\s+little\s+)?"
    r"(?P<v>[a-z]+)(?:\s+(?:too|as\s+well|also))?\s*(?:[,.!]|$)",
    re.I,
)


def also(clause: str) -> list[Statement]:
    match = _ALSO.search(clause)
    if match:
        if match.group("lang"):
            lang = match.group("lang")
            if lang.lower() not in LANGUAGES:
                return []
            return [statement("language", lang.capitalize(), match.group(0), LIKELY)]
        raw = match.group("s") or match.group("l") or match.group("l2")
        value = named_item(raw)
        if not value:
            return []
        if match.group("skill"):
            predicate = "language" if value.lower() in LANGUAGES else "skill"
            if predicate == "language":
                value = value.capitalize()
        else:
            predicate = "likes"
        return [statement(predicate, value, match.group(0), LIKELY)]
    match = _ALSO_LANGUAGE.match(clause.strip())
    if match and match.group("v").lower() in LANGUAGES:
        return [statement("language", match.group("v").capitalize(), match.group(0), LIKELY)]
    return []


# "left Grab and joined Gojek": the ending and the new value, both said.
_LEFT_AND = re.compile(
    r"^(?P<first>[^,;.!?]{0,60}?\b(?:left|quit)\s[^,;.!?]{1,60}?)\s+and\s+(?:then\s+|now\s+|just\s+)?"
    r"(?P<second>(?:joined|started|moved|signed|relocated)\b[^.!?]{1,200})",
    re.I,
)


def left_and_joined(sentence: str, read: Read) -> list[Statement]:
    match = _LEFT_AND.match(sentence)
    if not match:
        return []
    first, second = read(match.group("first")), read(match.group("second"))
    return first + second if first and second else []
