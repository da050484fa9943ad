"""The speaker of a memory written as a line of a conversation: "Caroline: I went to a
support group yesterday". Only a capitalised name of one to three words before a colon at
the very start (after an optional bracketed time or date, "[1:56 pm on 8 May, 2023] Ana:
hi"), followed by text; never a label ("Note:", "Error:", "Summary:", "TODO:", "User:"),
a time ("10:30") or a URL scheme ("Https://"). A conversation's role ("User:",
"Assistant:", "AI:") is read as the speaker too, in its usual spelling ("User"), but is no
person: the entity graph leaves it out (``is_role``).
"""

import re

from language.entities.names import _NOT_NAMES

SPEAKER_MAX_CHARS = 200

_LEADING_SPEAKER = re.compile(
    r"\A\s*(?:\[[^\]\n]{1,60}\]\s*)?"
    r"(?P<name>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2})"
    r"\s?:[ \t]+(?=\S)"
)
# Labels that notes and logs open lines with, besides the words that are never names.
_LABELS_TEXT = """
    Action Actions Answer Assignee Background Budget Bug Caveat Category Comment Comments
    Conclusion Context Cost Deadline Decision Description Details Edit Example Examples
    Fact Facts Feature Feedback Goal Goals Hint Idea Ideas Input Insight Issue Key Lesson
    Link Memory Objective Observation Outcome Output Owner Plan Plans Policy Preference
    Price Priority Problem Project Pros Cons Quote Rule Solution Source Step Steps Story
    Tag Tags Takeaway Team Thought Thoughts Topic Total Type Url Fyi Ps Psa Eta Tldr
    Prompt Reply Message Query Transcript Speaker Author From To Sender
    Btw Nb Ps Pps Fwd Fw Correction Addendum Aside News Heads Reminder Recap Followup
"""
_LABELS = frozenset(_LABELS_TEXT.split())
# Roles of a chat transcript, lower-cased, with how a speaker column spells them.
_ROLES = {
    "user": "User",
    "assistant": "Assistant",
    "system": "System",
    "human": "Human",
    "ai": "AI",
    "bot": "Bot",
    "agent": "Agent",
    "customer": "Customer",
}
_LEADING_ROLE = re.compile(r"\A\s*(?:\[[^\]\n]{1,60}\]\s*)?(?P<role>[A-Za-z]{2,9})\s?:[ \t]+(?=\S)")


def is_role(speaker: str | None) -> bool:
    """Whether a speaker is a transcript's role ("User", "assistant"), not a person."""
    return bool(speaker) and (speaker or "").strip().lower() in _ROLES


def _is_name_word(word: str) -> bool:
    bare = word.rstrip(".")
    return (
        bare not in _NOT_NAMES
        and bare not in _LABELS
        # A label in capitals ("TODO", "NOTE", "FYI"), a gerund ("Meeting", "Shopping").
        and not (len(bare) > 1 and bare.isupper())
        and not bare.endswith("ing")
    )


def speaker_label(content: str) -> tuple[str, int] | None:
    """The name (or role) a memory's text opens with as a conversation's line does, and
    where the speaker's words start after it; None when it opens with no speaker."""
    role = _LEADING_ROLE.match(content)
    if role is not None and role.group("role").lower() in _ROLES:
        return _ROLES[role.group("role").lower()], role.end()
    match = _LEADING_SPEAKER.match(content)
    if match is None:
        return None
    name = match.group("name")
    if not all(_is_name_word(word) for word in name.split(" ")):
        return None
    return name[:SPEAKER_MAX_CHARS], match.end()


def speaker_of(content: str) -> str | None:
    """The name (or role) a memory's text opens with as a conversation's line does, or
    None."""
    found = speaker_label(content)
    return found[0] if found is not None else None
