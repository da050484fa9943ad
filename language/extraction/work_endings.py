"""Phrasings that end a job: "I left Dropbox", "handed in my notice, finishing at BBVA on
July 15", "I'm not at Rappi anymore", "I stepped down as CEO", "I retired from teaching",
"Friday is my last day", "unemployed now". Each names the employer or the title it ends when
the text does."""

import re

from language.extraction.grammar import S
from language.extraction.statements import Statement, ending, phrase, proper_name
from language.extraction.vocabulary import COUNTRIES

_NO_LONGER = r"(?:no longer|not|n't|not really)"
_JOB_PHRASE = re.compile(
    r"^(?:my|the|this|that)\s+(?:\w+\s+)?(?:job|position|role|company|employer|work|gig)\b"
    r"(?:\s+(?:at|with)\s+(?P<org>.+))?",
    re.I,
)
_WHEN = frozenset(
    {"last", "this", "yesterday", "today", "recently", "earlier", "in", "on", "at", "after"}
    | {"before", "a", "two", "three"}
)

LEFT_JOB = re.compile(
    S + r"(?P<verb>left|quit|resigned(?:\s+from)?|(?:was|got|been)\s+(?:laid off|let go|fired|"
    r"made redundant)(?:\s+(?:from|by))?|retired(?:\s+from)?|walked away from|"
    r"handed in my notice at|"
    r"stopped working (?:at|for)|finished (?:at|with)|'m leaving|am leaving|'ll be leaving|"
    # "finishing at BBVA on July 15", "i finish at sunny days nursery on friday"
    r"(?:'m\s+|am\s+)?finishing(?:\s+up)?\s+(?:at|with)|finish(?:\s+up)?\s+(?:at|with)|"
    r"will be leaving|'ll leave|will leave|moved on from|stepped down(?:\s+from)?|"
    r"(?:'m|am)?\s*(?:quitting|retiring(?:\s+from)?|resigning(?:\s+from)?)|'ll quit|will quit|"
    r"'ll retire|will retire|'ll resign|will resign|leave)"
    r"(?:\s+(?P<v>.+?))?[\s.!]*$",
    re.IGNORECASE,
)
NOT_WITH = re.compile(
    r"(?:^|"
    + S
    + r")(?:'m|am|are|'re)?\s*"
    + _NO_LONGER
    + r"\s+(?:with|at|working (?:at|for)|employed (?:at|by)"
    r"|work(?:ing)? (?:at|for)|(?:driving|delivering|riding|cooking|cleaning|teaching)\s+for)"
    r"\s+(?P<v>.+)",
    re.IGNORECASE,
)
DONT_WORK = re.compile(
    S + r"(?:don't|do not|no longer)\s+work\s+(?:at|for)\s+(?P<v>.+)", re.IGNORECASE
)
USED_TO_WORK = re.compile(S + r"used to work\s+(?:at|for)\s+(?P<v>.+)", re.IGNORECASE)
JOBLESS = re.compile(
    S + r"(?:'m|am)?\s*(?:now\s+)?(?:unemployed|between jobs|out of work|jobless|"
    r"looking for work)\b"
    # "unemployed life is nice", "officially unemployed now": the speaker's state, said alone.
    r"|^(?:(?:so|well|ok|and|now|officially)\s+)*(?:unemployed|jobless)\b(?!\s+(?:people|friends?))",
    re.IGNORECASE,
)
LAST_DAY = re.compile(
    r"\bmy\s+last\s+(?:day|shift|week)\s+(?:at|with)\s+(?P<v>.+)"
    # "my contract with Sony ends on June 30"
    r"|\bmy\s+(?:contract|job|position|role|time)\s+(?:at|with)\s+(?P<v2>.{1,120}?)\s++"
    r"(?:ends|is ending|finishes|runs out|is over|ended|is up)\b",
    re.IGNORECASE,
)
# "Friday is my last day", "my last day is the 28th": at work, said without naming it.
LAST_DAY_AT_WORK = re.compile(
    r"\b(?:is|will be|'s)\s+my\s+last\s+day(?:\s+at\s+work|\s+at\s+the\s+office)?\s*[.!]*$"
    r"|\bmy\s+last\s+day(?:\s+at\s+work)?\s+(?:is|will be)\b",
    re.IGNORECASE,
)


def job_endings(clause: str, *, lenient: bool, anymore: bool) -> list[Statement]:
    left = _left_job(clause, lenient)
    if left:
        return left
    return _not_working_there(clause, lenient, anymore)


# "handed in my notice, finishing at BBVA on July 15": the speaker of the -ing left out.
_FINISHING = re.compile(r"(^|,\s{0,3})(?=finishing\s+(?:up\s+)?(?:at|with)\s)", re.I)


def _left_job(clause: str, lenient: bool) -> list[Statement]:
    clause = _FINISHING.sub(r"\1I'm ", clause)
    match = LEFT_JOB.search(clause)
    if match:
        raw = (match.group("v") or "").strip(" .!,")
        if raw and raw.split()[0].lower() in _WHEN:
            raw = ""  # "I retired last year": no object, only when
        verb = match.group("verb").lower()
        if not raw:
            if verb.startswith(("left", "moved on")) or "leav" in verb:
                return []
            return [ending("employer", None, clause[match.start() : match.end("verb")], 0.85)]
        role = re.match(r"as\s+(?:an?\s+|the\s+)?(?P<title>.+)", raw, re.I)
        title = role and phrase(role.group("title"), max_words=4)
        if title:
            # "I stepped down as CEO": the title ends, the employer may stay.
            evidence = clause[match.start() : clause.find(title, match.start()) + len(title)]
            return [ending("job_title", title, evidence, 0.85)]
        if verb.startswith("retired") and raw.split()[0].lower().endswith("ing"):
            # "I retired from teaching": the work ends, whoever it was for.
            return [ending("job_title", None, clause[match.start() : match.end()], 0.85)]
        job = _JOB_PHRASE.match(raw)
        if job:
            org = job.group("org") and proper_name(job.group("org"), lenient=lenient)
            return [ending("employer", org or None, match.group(0).rstrip(" .!"), 0.9)]
        org = proper_name(raw, lenient=lenient)
        # "left the Bayview Hotel": a name after "the" is as good as one without.
        named = raw.split()[0][:1].isupper() or (
            raw.split()[0].lower() == "the"
            and len(raw.split()) > 1
            and raw.split()[1][:1].isupper()
        )
        if not org or not (lenient or named):
            return []
        evidence = clause[match.start() : clause.find(org, match.start()) + len(org)]
        if org.lower() in COUNTRIES:
            return [ending("country", org, evidence, 0.85)]
        found = [ending("employer", org, evidence, 0.85)]
        if verb.startswith("left") or "leav" in verb:
            # "I left Berlin" names a city as often as "I left Dropbox" a company: both
            # endings are offered, and only one whose value matches a current fact ends it.
            found.append(ending("city", org, evidence, 0.85))
        return found
    return []


def _not_working_there(clause: str, lenient: bool, anymore: bool) -> list[Statement]:
    """Not leaving but no longer there: "I'm not at Rappi anymore, I left last week"."""
    for pattern, needs_anymore in ((NOT_WITH, True), (DONT_WORK, True), (USED_TO_WORK, False)):
        match = pattern.search(clause)
        if not match:
            continue
        if needs_anymore and not anymore:
            return []
        org = proper_name(match.group("v"), lenient=lenient)
        if org:
            evidence = clause[match.start() : clause.find(org, match.start()) + len(org)]
            found = [ending("employer", org, evidence, 0.9)]
            if pattern is NOT_WITH and len(org.split()) == 1 and " with " in evidence.lower():
                # "no longer with Priya" may be a partner: whichever value matches ends.
                found += [
                    ending("partner", org, evidence, 0.85),
                    ending("spouse", org, evidence, 0.85),
                ]
            return found
    match = LAST_DAY.search(clause)
    org = match and proper_name(match.group("v") or match.group("v2"), lenient=lenient)
    if match and org:
        evidence = clause[match.start() : clause.find(org, match.start()) + len(org)]
        return [ending("employer", org, evidence, 0.9)]
    match = LAST_DAY_AT_WORK.search(clause) or JOBLESS.search(clause)
    if match:
        return [ending("employer", None, match.group(0), 0.85)]
    return []
