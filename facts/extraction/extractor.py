"""The extraction pipeline: text -> sentences -> clauses; each clause is cleared of traps,
then read for endings and statements."""

import re
from dataclasses import replace
from datetime import UTC, datetime

from facts.extraction import clauses as traps
from facts.extraction.contacts import EMAIL
from facts.extraction.dates import future_start
from facts.extraction.endings import endings
from facts.extraction.patterns import STATEMENT_RULES, birthday, dislikes
from facts.extraction.statements import Statement, is_lowercase_text

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})
_MONTH_MAY = re.compile(
    r"\b(?:in|from|since|of|this|next|until|by|early|late|mid|starting|on)\s+may\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?may\b|\bmay\s+\d",
    re.I,
)
# "Just moved to Lisbon!": the subject a chat message leaves out is the speaker.
_SUBJECT_DROPPED = re.compile(
    r"^(?:(?:so|well|oh|and|also|btw|update|news|guess what|anyway|ok|okay|yeah|yep|hey)"
    r"[,:!]?\s+)*(?=(?:just|finally|recently|officially|currently|now)?\s*"
    r"(?:moved|relocated|joined|started|"
    r"got|quit|left|resigned|became|adopted|married|switched|broke up|"
    r"working\s+(?:at|for|as)|living\s+in)\b)",
    re.I,
)
_LEAVING = re.compile(r"\b(?:i'm|i am|we're|we are)\s+(?:\w+\s+)?leaving\b", re.I)
_NOW = re.compile(r"\b(?:today|now|as of today|right now|this week)\b", re.I)


def _normalise(text: str) -> str:
    text = text.translate(_APOSTROPHES)
    return re.sub(r"\b([Ii])m\b", r"\1'm", text)


def _with_start(found: list[Statement], start: datetime | None) -> list[Statement]:
    if start is None:
        return found
    return [replace(s, valid_from=start) for s in found]


def _with_speaker(clause: str) -> str:
    dropped = _SUBJECT_DROPPED.match(clause)
    if dropped is None:
        return clause
    speaker = "i " if is_lowercase_text(clause) else "I "
    return clause[: dropped.end()] + speaker + clause[dropped.end() :]


def _quoted(found: list[Statement], clause: str) -> list[Statement]:
    """Evidence in the text's own words: without the "I " put in for a dropped subject."""
    return [
        replace(s, evidence=s.evidence[2:])
        if s.evidence not in clause and s.evidence[:2] in {"I ", "i "}
        else s
        for s in found
    ]


def extract_clause(clause: str, *, now: datetime, scene: str = "") -> list[Statement]:
    """What one clause says about the speaker; nothing when it is a trap, judged with the
    clause that sets its ``scene``, if any ("If I get the job, ...")."""
    if scene and _is_trap(f"{scene}, {clause}", now):
        return []
    return _quoted(_extract_clause(_with_speaker(clause), now=now), clause)


def _is_trap(text: str, now: datetime) -> bool:
    return (
        traps.is_question(text)
        or traps.is_hypothetical(text)
        or traps.is_reported(text)
        or traps.is_plan(_MONTH_MAY.sub(" ", text))
        or traps.is_past(text, now.year)
    )


def _extract_clause(clause: str, *, now: datetime) -> list[Statement]:
    if traps.is_question(clause) or traps.is_hypothetical(clause) or traps.is_reported(clause):
        return []
    plan = traps.is_plan(_MONTH_MAY.sub(" ", clause))
    if plan:
        return []
    ended = endings(clause)
    if ended and (traps.is_future(clause) or _LEAVING.search(clause)):
        # "I'm leaving Intel on June 30" ends the job on that date; with no date, a plan.
        start = future_start(clause, now)
        return _with_start(ended, start) if start or _NOW.search(clause) else []
    if ended:
        return ended
    born = birthday(clause)
    if born:
        return born
    disliked = dislikes(clause)
    if disliked:
        return disliked
    # An address's own words ("ola@firma.no") negate nothing.
    if traps.is_negated(EMAIL.sub(" ", clause)) or traps.is_past(clause, now.year):
        return []
    start = None
    if traps.is_future(clause):
        start = future_start(clause, now)
        if start is None and not _NOW.search(clause):
            # A future with no date is a plan ("I'm moving to Berlin"), not a change.
            return []
    found = [s for rule in STATEMENT_RULES for s in rule(clause)]
    return _with_start(found, start)


def extract(text: str, *, now: datetime | None = None) -> list[Statement]:
    """The statements ``text`` makes about its speaker, in the order they appear, each
    (predicate, qualifier, value) once."""
    now = now or datetime.now(UTC)
    seen: set[tuple[str, str, str | None]] = set()
    found: list[Statement] = []
    for sentence in traps.sentences(_normalise(text)):
        scene = ""
        for clause in traps.clauses(sentence):
            for item in extract_clause(clause, now=now, scene=scene):
                key = (item.predicate, item.qualifier, item.value or item.ended)
                if key not in seen:
                    seen.add(key)
                    found.append(item)
            scene = clause if traps.scene_setting(clause) else ""
    return found
