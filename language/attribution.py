"""Whose words a message holds. People paste other people's text into a chat: an email they
reply to ("> " lines, "On Mon, Ana wrote:", "-----Original Message-----"), a forwarded
message ("---------- Forwarded message ---------", "Fwd:"), another person's signature
below it, a draft they are writing for someone else ("can you check my reply: 'Hi, I'm the
new manager at ...'"), a long quotation. None of that is the user speaking about
themselves, and a fact taken from it would be a false update about the user.

``own_words(text)`` keeps what the user wrote and replaces everything else with a sentence
break, so the user's sentences on either side never run together. The user's own
signature (below a "-- " line of a message they wrote) is kept: it is their name, title and
number. Every pattern here is bounded per line (a line of a message is read alone), so the
cost is linear in the text's length.
"""

import re
from dataclasses import dataclass

# A line after which the rest of the message is someone else's: a forward, a reply's
# quoted original, a pasted email's header block.
_FORWARD = re.compile(
    r"^\s*(?:-{2,}\s*(?:forwarded message|original message)\s*-{2,}"
    r"|begin forwarded message:?"
    r"|-{2,}\s*(?:forwarded|original)\b.{0,40})\s*$",
    re.IGNORECASE,
)
_REPLY_HEADER = re.compile(r"^\s*(?:on\s.{3,160}\s)?\S.{0,80}?\swrote:\s*$", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(?:from|to|cc|bcc|sent|date|subject|reply-to)\s*:\s*\S", re.IGNORECASE)
_SUBJECT_FORWARD = re.compile(r"^\s*(?:subject\s*:\s*)?(?:fwd?|fw)\s*:", re.IGNORECASE)
_QUOTED_LINE = re.compile(r"^\s*>")
_DEVICE_LINE = re.compile(r"^\s*sent from my [\w ]{1,40}\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*```")

# A draft or someone else's text introduced by the user, then a colon: "can you check my
# reply:", "proofread this for my sister:", "here's the bio I wrote for Tom:", "draft:".
_ASK = (
    r"(?:check|proofread|proof-read|review|fix|improve|edit|polish|rewrite|reword|tweak"
    r"|translate|shorten|tidy(?: up)?|clean up|correct|look over|go over|read over)"
)
_WRITING = (
    r"(?:reply|response|answer|draft|email|e-mail|message|msg|text|letter|note|post|bio"
    r"|caption|intro|introduction|cover letter|speech|toast|announcement|tweet|dm|card"
    r"|paragraph|script|template|profile|description|wording)"
)
_DRAFT_INTRO = re.compile(
    # An ask names what it asks about ("check this:"); "edit:" alone is a label.
    rf"(?:\b{_ASK}\b[ \t]+[^.!?\n:\s][^.!?\n:]{{0,79}}"
    rf"|\b(?:my|the|this|that|a|an|our|his|her|their|your)\s+(?:[\w'-]+\s+){{0,2}}"
    rf"{_WRITING}s?\b[^.!?\n:]{{0,60}}"
    rf"|^[ \t]*(?:draft|reply|response)"
    r"|\b(?!(?:i|we)\b)\w+\s+(?:said|says|wrote|writes|texted|posted"
    r"|messaged|replied|asked)\b[^.!?\n:]{0,40}"
    r")[ \t]*:[ \t]*(?=\S)",
    re.IGNORECASE | re.MULTILINE,
)
# Quotation marks that open and close another voice: straight and typographic, double and
# single (a single quote only when it opens after a space or the line's start, so that
# "I'm" and "Ana's" are never read as quotes; inside one, an apostrophe between letters is
# a word's: 'I'm a pilot').
_QUOTE = re.compile(
    r"\"[^\"\n]{1,600}\"|“[^”\n]{1,600}”|‘[^’\n]{1,600}’"
    r"|(?:(?<=\s)|(?<=^)|(?<=:))'(?:[^'\n]|(?<=\w)'(?=\w)){1,600}'(?=\W|$)",
    re.MULTILINE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i’m|im|i've|i'd|i'll|me|my|mine|we|our|us)\b", re.I)
# What follows a draft's introduction is a draft only when it is text, not one value.
_DRAFT_MIN_WORDS = 4
# A quotation this short without "I" or "my" is a name or a word ("a cat called "Mochi"").
_SHORT_QUOTE_WORDS = 4
# What stands in for text that is not the user's: a sentence break, so that the user's
# sentences on either side are read apart.
BREAK = "\n.\n"


@dataclass(frozen=True)
class Attribution:
    """A message split by voice: ``own`` is the user's words (others' replaced by BREAK);
    ``others`` the passages that were someone else's, in order."""

    own: str
    others: tuple[str, ...]


def attribute(text: str) -> Attribution:
    """The user's own words in ``text`` and the passages that are someone else's."""
    others: list[str] = []
    kept: list[str] = []
    lines = text.split("\n")
    first = next((line for line in lines if line.strip()), "")
    if _SUBJECT_FORWARD.match(first):
        # The whole message is a forward: "Fwd: Re: new job".
        return Attribution(own="", others=(text,))
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            others.append(line)
            continue
        if in_fence or _QUOTED_LINE.match(line) or _DEVICE_LINE.match(line):
            others.append(line)
            kept.append(BREAK)
            continue
        if _FORWARD.match(line) or _REPLY_HEADER.match(line) or _pasted_headers(lines, index):
            others.append("\n".join(lines[index:]))
            kept.append(BREAK)
            break
        kept.append(line)
    own, drafted = _without_drafts("\n".join(kept))
    own, quoted = _without_quotes(own)
    return Attribution(own=own, others=(*others, *drafted, *quoted))


def own_words(text: str) -> str:
    """``text`` with every passage that is someone else's replaced by a sentence break."""
    return attribute(text).own


def _pasted_headers(lines: list[str], index: int) -> bool:
    """A pasted email starts here: a header line ("From: Ana <ana@x.org>") with another
    one among the next few lines (one "To:" alone may be the user's own words)."""
    if not _HEADER.match(lines[index]):
        return False
    return any(_HEADER.match(line) for line in lines[index + 1 : index + 4])


def _without_drafts(text: str) -> tuple[str, list[str]]:
    """Everything after a draft's introduction, to the end of its paragraph (a blank line),
    is the draft: the user's words are before it."""
    drafts: list[str] = []
    parts: list[str] = []
    for paragraph in re.split(r"(\n\s*\n)", text):
        match = _DRAFT_INTRO.search(paragraph)
        # A value after the colon ("my new email: t@x.com") is the user's; a draft is text.
        if match is None or len(paragraph[match.end() :].split()) < _DRAFT_MIN_WORDS:
            parts.append(paragraph)
            continue
        drafts.append(paragraph[match.end() :])
        parts.append(paragraph[: match.end()] + BREAK)
    return "".join(parts), drafts


def _without_quotes(text: str) -> tuple[str, list[str]]:
    """Quotations that are a voice (a first person, or more than a few words) out; short
    ones (a name, a word) stay."""
    quoted: list[str] = []

    def voice(match: re.Match[str]) -> str:
        inner = match.group(0)[1:-1]
        if len(inner.split()) <= _SHORT_QUOTE_WORDS and not _FIRST_PERSON.search(inner):
            return match.group(0)
        quoted.append(inner)
        return BREAK

    return _QUOTE.sub(voice, text), quoted
