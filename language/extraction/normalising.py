"""The text as the rules read it: one kind of apostrophe, emoji read as chat uses them (an
end of sentence, or nothing: "Rex died last night 💔 if we ever get another dog", "my wife
👩 Nadia"), "im" as "i'm", and chat spellings written out ("i wrk at", "moved 2 leeds")."""

import re
import unicodedata

from language.extraction.chat import spelled_out
from language.extraction.kinship import KIN_WORDS

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})
# Emoji and other pictographs, with their modifiers and the space before them: "engineering
# lead 🎉" is a job title, "Turkish coffee ☕" a drink.
_SYMBOLS = re.compile(r"(?<!\s)(\s*)([^\w\s]+)")


def _is_pictograph(char: str) -> bool:
    category = unicodedata.category(char)
    return category == "So" or char in "\u200d\ufe0f" or (category == "Sk" and ord(char) > 0x2000)


# A capitalised word after an emoji that may be a name ("He", "She" begin a sentence).
_NAME_NEXT = re.compile(r"\s(?!(?:He|She|It|They|I|We|The|This|That|My|Our)\b)(?-i:[A-Z])")
# The word for a relative or a pet right before an emoji.
_KIN_BEFORE = re.compile(
    r"\b(?:my|our)\s+(?:" + "|".join(sorted(KIN_WORDS, key=len, reverse=True)) + r")s?$", re.I
)


def _without_pictographs(match: re.Match[str]) -> str:
    """An emoji at the end goes; one between words ends a sentence as chat uses it ("Rex died
    last night 💔 if we ever get another dog ...")."""
    kept = "".join(c for c in match.group(2) if not _is_pictograph(c))
    if kept == match.group(2):
        return match.group(0)
    following = match.string[match.end() : match.end() + 2]
    if (
        not kept
        and _NAME_NEXT.match(match.string, match.end())
        and _KIN_BEFORE.search(match.string[max(0, match.start() - 24) : match.start()])
    ):
        return ""  # "my wife 👩 Nadia", "our dog 🐶 Rex": the name goes on after it
    if (
        not kept
        and re.match(r"\s\w", following)
        and not re.search(r"[.!?,;:]\s*$", match.string[: match.start()])
    ):
        return "."
    return match.group(1) + kept if kept else ""


def normalise(text: str) -> str:
    text = _SYMBOLS.sub(_without_pictographs, text.translate(_APOSTROPHES))
    text = re.sub(r"\b([Ii])m\b", r"\1'm", text)
    return spelled_out(text)  # chat spellings: "i wrk at", "ive", "moved 2 leeds"
