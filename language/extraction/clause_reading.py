"""What one clause says about the speaker. A trap (a question, a supposition, a plan)
states only what it takes for granted ("should I propose to my gf Mina?"), the past nothing;
else the clause is read for a swap, an ending, a birthday, a dislike, then the statements of
every rule, each dated when the change it states takes effect later ("I join Canva next
month"), without what a reporting verb or a negation before it takes back."""

import re
from dataclasses import replace
from datetime import datetime

from language.extraction import traps
from language.extraction.contacts import EMAIL
from language.extraction.dates import future_start
from language.extraction.endings import endings
from language.extraction.patterns import (
    STATEMENT_RULES,
    birthday,
    birthday_on,
    dislikes,
    swaps,
    workplace,
)
from language.extraction.people import presupposed
from language.extraction.statements import Statement, is_lowercase_text

_MONTH_MAY = re.compile(
    r"\b(?:in|from|since|of|this|next|until|by|early|late|mid|starting|on)\s+may\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?may\b|\bmay\s+\d",
    re.I,
)
# "Just moved to Lisbon!": the subject a chat message leaves out is the speaker.
_SUBJECT_DROPPED = re.compile(
    r"^(?:(?:so|well|oh|and|also|btw|update|news|guess what|anyway|ok|okay|yeah|yep|hey)"
    r"[,:!]?\s++)*(?=(?:just|finally|recently|officially|currently|now)?\s*"
    r"(?:moved|relocated|joined|started|"
    r"got|quit|left|resigned|became|adopted|married|switched|broke up|gave up|dropped|"
    r"divorced|signed|handed in|bought|rehomed|promoted|emigrated|accepted|went|turned|landed|"
    r"retired|picked up|took up|learned|learnt|"
    r"working\s+(?:at|for|as)|living\s+in|employed\s+(?:at|by))\b)",
    re.I,
)
# "Joining Uber on Monday!": an -ing form whose "I'm" was left out.
_SUBJECT_DROPPED_ING = re.compile(
    r"^(?:(?:so|well|oh|and|also|btw|update|news|guess what|anyway|ok|okay|yeah|yep|hey)"
    r"[,:!]?\s++)*(?=(?:(?:officially|finally|now|just)\s+)?(?:joining|starting\s+(?:at|with|as|a|my)|moving|"
    r"relocating|leaving|quitting|getting married|marrying|(?:really\s+|so\s+)?into|"
    r"obsessed with|settled in|settling in|no longer an?|fluent in)\b)",
    re.I,
)
_LEAVING = re.compile(r"\b(?:i'm|i am|we're|we are)\s+(?:\w+\s+)?leaving\b", re.I)
# "As a kid I hated fish, but these days I love sushi": the scene ends where now begins.
_NOW_OPENS = re.compile(r"^(?:now|these days|nowadays|today)\b", re.I)
_NOW = re.compile(r"\b(?:today|now|as of today|right now|this week)\b", re.I)


# The predicates a date in the text can start: "my daughter starts school in September" does
# not make her a child only from September.
DATED = frozenset(
    {"employer", "job_title", "city", "country", "spouse", "partner", "diet", "email", "phone"}
)


def with_start(found: list[Statement], start: datetime | None) -> list[Statement]:
    """``found`` valid from ``start``: its endings and its statements of DATED slots."""
    if start is None:
        return found
    return [
        replace(s, valid_from=start) if s.is_ending or s.predicate in DATED else s for s in found
    ]


def _span(item: Statement, clause: str) -> tuple[int, int]:
    """Where a statement's evidence sits in its clause (the whole clause if not found)."""
    start = clause.find(item.evidence)
    return (start, start + len(item.evidence)) if start >= 0 else (0, len(clause))


def _unsaid(found: list[Statement], clause: str) -> list[Statement]:
    """The statements a reporting verb before them ("Tom told everyone I'm joining Apple")
    or a negation before their end ("I never worked at Meta") takes back; "My wife Ingrid
    says hi" and "I live in Lima, not Cusco" still say what comes first."""
    reported = traps.REPORTED.search(clause)
    # An address's own words ("ola@firma.no") negate nothing.
    negated = traps.NEGATION.search(EMAIL.sub(lambda m: " " * len(m.group(0)), clause))
    kept = []
    for item in found:
        start, end = _span(item, clause)
        # Only the reporter's own words stand: "My wife Ingrid says hi" (the reporting verb
        # right after them), not "I'm the best engineer, according to my boss".
        if reported and not start <= reported.start() < end:
            continue
        if (
            negated
            and negated.start() < end
            and not (item.is_ending or item.predicate == "dislikes")
        ):
            continue
        kept.append(item)
    return kept


def _with_speaker(clause: str) -> str:
    speaker = "I "
    dropped = _SUBJECT_DROPPED.match(clause)
    if dropped is None:
        dropped, speaker = _SUBJECT_DROPPED_ING.match(clause), "I'm "
    if dropped is None:
        return clause
    if is_lowercase_text(clause):
        speaker = speaker.lower()
    return clause[: dropped.end()] + speaker + clause[dropped.end() :]


def _quoted(found: list[Statement], clause: str) -> list[Statement]:
    """Evidence in the text's own words: without the "I " put in for a dropped subject."""
    return [replace(s, evidence=_unquoted(s.evidence, clause)) for s in found]


def _unquoted(evidence: str, clause: str) -> str:
    if evidence in clause:
        return evidence
    for speaker in ("I'm ", "i'm ", "I ", "i "):
        if evidence.startswith(speaker):
            return evidence[len(speaker) :]
    return evidence


def extract_clause(
    clause: str, *, now: datetime, scene: str = "", when: str = ""
) -> list[Statement]:
    """What one clause says about the speaker; nothing when it is a trap, judged with the
    clause that sets its ``scene``, if any ("If I get the job, ..."). ``when``: a clause
    before it that only says when ("Come September, I'll be teaching at Stanford")."""
    if scene and not _NOW_OPENS.match(clause) and _is_trap(f"{scene}, {clause}", now):
        return []
    clause = traps.without_courtesy(clause)
    return _quoted(_extract_clause(_with_speaker(clause), now=now, when=when), clause)


def _is_trap(text: str, now: datetime) -> bool:
    return (
        traps.is_question(text)
        or traps.is_hypothetical(text)
        or traps.is_reported(text)
        or traps.is_plan(_MONTH_MAY.sub(" ", text))
        or traps.is_past(text, now.year)
    )


def _extract_clause(clause: str, *, now: datetime, when: str = "") -> list[Statement]:
    return _unsaid(_stated(clause, now=now, when=when), clause)


def taken_for_granted(clause: str) -> list[Statement]:
    """What a question, a plan or a supposition takes for granted: "should I propose to my
    gf Mina?" names her; "i need to vent, my manager at Acme ..." works at Acme."""
    return presupposed(clause) + workplace(clause)


def _stated(clause: str, *, now: datetime, when: str) -> list[Statement]:
    if traps.is_question(clause) or traps.is_hypothetical(clause):
        return taken_for_granted(clause)
    plan = traps.is_plan(_MONTH_MAY.sub(" ", clause))
    if plan:
        return taken_for_granted(clause)
    start, dateless_future = _start(clause, now)
    if start is None and when:
        start, dateless_future = _start(f"{when}, {clause}", now)
    swapped = swaps(clause)
    if swapped:
        return [] if dateless_future else with_start(swapped, start)
    ended = endings(clause)
    if ended:
        # "I'm leaving Intel on June 30" ends the job on that date; with no date, a plan.
        return [] if dateless_future else with_start(ended, start)
    born = birthday(clause) or birthday_on(clause, now)
    if born:
        return born
    disliked = dislikes(clause)
    if disliked:
        return disliked
    if traps.is_past(clause, now.year):
        return []
    if dateless_future:
        # A future with no date is a plan ("I'm moving to Berlin"), not a change.
        return taken_for_granted(clause)
    found = [s for rule in STATEMENT_RULES for s in rule(clause)]
    return _given_now(with_start(found, start), clause)


def _given_now(found: list[Statement], clause: str) -> list[Statement]:
    """ "me and my partner Hemi are getting married next year": the date is the wedding's;
    the partner the clause names in passing is one today."""
    given = {(s.predicate, s.value) for s in presupposed(clause)}
    if not given:
        return found
    return [replace(s, valid_from=None) if (s.predicate, s.value) in given else s for s in found]


def _start(clause: str, now: datetime) -> tuple[datetime | None, bool]:
    """When the change ``clause`` states takes effect, if later than today ("I join Canva
    next month", "my first day at Klarna is Monday"), and whether the clause speaks of the
    future without saying when (a plan)."""
    future = traps.is_future(clause) or bool(_LEAVING.search(clause))
    start = future_start(clause, now, future_tense=future)
    if start is not None and not future and traps.has_past_verb(clause):
        start = None  # "I moved to Oslo on the 20th": when it happened
    return start, future and start is None and not _NOW.search(clause)


def said_once(item: Statement) -> tuple[str, str, str | None]:
    """What makes two statements one: "Korean" and "korean" are one language."""
    value = item.value or item.ended
    return (item.predicate, item.qualifier, value.casefold() if value else None)
