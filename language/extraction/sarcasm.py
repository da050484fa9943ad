"""Sarcasm, which states the opposite of what it says. Two shapes cover most of it in chat:

- praise of what nobody enjoys: "oh I just LOVE being stuck in traffic", "nothing beats
  queuing at the post office", "love it when my train gets cancelled" (the contrast of a
  positive verb and a negative situation);
- an emphatic claim undercut by an eye-roll or an explicit marker: "yes I definitely moved
  to Antarctica 🙄", "best job ever /s", "sure, I'm a morning person, yeah right".

The first takes back the taste it would state; the second everything its sentence states
but contact details (nobody types a joke phone number to be believed). An eye-roll with
no emphatic claim is only exasperation ("started at Hydro, three meetings already 🙄") and
takes nothing back. An upside-down face after a claim shouted in capitals ("i just ADORE
working weekends at Grunwald 🙃") takes back the taste only: the workplace it names holds.
"""

import re
from collections.abc import Sequence

from language.extraction.statements import Statement

# Situations people praise only in jest. Kept general (chores, waiting, delays, pain, red
# tape): a taste for one of these, stated plainly, is rare enough to give up.
_NEGATIVE = (
    r"stuck|waiting|queues?|queuing|queueing|lines\s+at|on\s+hold|hold\s+music|traffic|"
    r"delays?|delayed|cancell?ed|cancell?ations?|commut(?:e|es|ing)|mondays?|deadlines?|"
    r"taxes|tax\s+returns?|paperwork|filling\s+(?:in|out)\s+forms|bureaucracy|red\s+tape|"
    r"overtime|unpaid|bills|hangovers?|alarms?|[3-6]\s?am\b|laundry|chores|ironing|"
    r"doing\s+the\s+dishes|washing\s+up|back[-\s]to[-\s]back\s+meetings|meetings\s+that|"
    r"ignored|rejected|rejections?|left\s+on\s+read|dentists?|root\s+canals?|buffering|"
    r"lagging|crashing|roadworks|jet\s?lag|insomnia|migraines?|headaches?|the\s+flu|"
    r"food\s+poisoning|customer\s+service|power\s+cuts?|outages?|mosquito(?:e?s)?|sunburn|"
    r"parking\s+tickets?|flat\s+tyres?|flat\s+tires?|snoring|yelled\s+at|shouted\s+at|"
    r"lied\s+to|overcharged|woken\s+up|getting\s+up\s+at|leaking|mould|mold|"
    r"passive[-\s]aggressive|mandatory\s+fun|team[-\s]building|stepping\s+on"
)
# A praise and, at most a few words on, its object: "love being stuck", "adore airport
# queues", "love it when my flight is delayed". No "but", "and" or punctuation between:
# "I love my job but hate the commute" praises the job.
_PRAISE_OF_NEGATIVE = re.compile(
    r"\b(?:love|luv|adore|enjoy|live\s+for|nothing\s+beats|can't\s+get\s+enough\s+of|"
    r"favou?rite\s+(?:thing|part|hobby|pastime|activity))\b"
    r"(?:\s+it\s+when)?(?:\s+(?!but\b|and\b|except\b|though\b)[\w'-]{1,20}){0,4}?\s+"
    rf"(?:{_NEGATIVE})\b",
    re.IGNORECASE,
)
# Signs that a sentence means the opposite: an eye-roll, "/s", "yeah right", "said no one
# ever". The upside-down face is left out: it is as often playful as ironic.
_MARKER = re.compile(
    r"\U0001f644|\U0001f612|\U0001f611|(?<![\w/])/s\b|\byeah,?\s+right\b|"
    r"\bsaid\s+no\s?(?:one|body)\s+ever\b",
    re.IGNORECASE,
)
_EMPHATIC = re.compile(
    r"\b(?:love|loved|loving|luv|adore|best|favou?rite|definitely|totally|of\s+course|"
    r"obviously|absolutely|so\s+fun|so\s+much\s+fun|happy\s+place|dream|thrilled|"
    r"can't\s+wait|cant\s+wait|yay|oh\s+yeah|yes|sure|great|fantastic|amazing|wonderful)\b",
    re.IGNORECASE,
)
# Where a marker's sentence begins: the end of the one before, or an emoji between words.
_BREAK = re.compile(r"[.!?\n]|[\U0001f300-\U0001faff\u2600-\u27bf]")
_CONTACT = frozenset({"email", "phone"})
_TASTE = frozenset({"likes"})


def praises_the_unpleasant(clause: str) -> bool:
    return bool(_PRAISE_OF_NEGATIVE.search(clause))


def ironic_spans(message: str) -> list[str]:
    """The stretches of ``message`` (as typed) that an irony marker turns around: from the
    start of the marker's sentence to the marker, when that stretch makes an emphatic claim."""
    spans = []
    for marker in _MARKER.finditer(message):
        before = message[: marker.start()]
        breaks = [m.end() for m in _BREAK.finditer(before.rstrip())]
        start = breaks[-1] if breaks else 0
        stretch = message[start : marker.end()]
        if _EMPHATIC.search(stretch):
            spans.append(message[start : marker.start()])
    return spans


# The upside-down face after a claim shouted in capitals: "i just ADORE working weekends at
# Grunwald 🙃", "SO relaxing 🙃". The taste is turned around; what it is about still holds.
_UPSIDE_DOWN = re.compile("\U0001f643")
_SHOUTED = re.compile(r"\b(?:[A-Z]{3,}|SO)\b")


def playful_spans(message: str) -> list[str]:
    """The stretches before an upside-down face that shout their claim (:data:`_SHOUTED`)."""
    spans = []
    for marker in _UPSIDE_DOWN.finditer(message):
        before = message[: marker.start()]
        breaks = [m.end() for m in _BREAK.finditer(before.rstrip())]
        stretch = message[breaks[-1] if breaks else 0 : marker.start()]
        shouted = _SHOUTED.search(stretch) and _EMPHATIC.search(stretch.casefold())
        if shouted or re.search(r"\bSO\s+\w+", stretch):
            spans.append(stretch)
    return spans


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9']+", text.casefold().replace("\u2019", "'")))


def _within(clause: str, span: str) -> bool:
    inner, outer = _words(clause), _words(span)
    if not inner or len(inner) > len(outer):
        return False
    return any(outer[i : i + len(inner)] == inner for i in range(len(outer) - len(inner) + 1))


def within_any(clause: str, spans: Sequence[str]) -> bool:
    """Whether ``clause`` is said inside one of the ``spans`` (its words in a row there)."""
    return any(_within(clause, span) for span in spans)


def unironic(
    found: list[Statement], clause: str, ironic: list[str], playful: Sequence[str] = ()
) -> list[Statement]:
    """``found`` (read from ``clause``) without what sarcasm takes back: the tastes of a
    clause that praises the unpleasant or sits in a playful stretch (:func:`playful_spans`),
    and everything but contact details of a clause inside an ironic stretch of the message
    (:func:`ironic_spans`)."""
    if not found:
        return found
    if within_any(clause, ironic):
        return [s for s in found if s.predicate in _CONTACT]
    if praises_the_unpleasant(clause) or within_any(clause, playful):
        return [s for s in found if s.predicate not in _TASTE or s.is_ending]
    return found
