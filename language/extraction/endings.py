"""Phrasings that end a value without giving a new one: "I left Dropbox", "I'm not with
Acme anymore", "we split up", "no longer a vegetarian". Each ending names the value it ends
when the text does; the check ends a current fact only when that value matches it.

The endings of a job are read in work_endings.py, of a couple in couple_endings.py, of an
email or a phone number in contacts.py; the rest (a diet, a title, a home, a taste, a
language, a pet) here."""

import re

from language.extraction.contacts import contact_endings
from language.extraction.couple_endings import couple_endings
from language.extraction.grammar import SPECIES_GROUP, S
from language.extraction.statements import Statement, ending, is_lowercase_text, phrase, proper_name
from language.extraction.vocabulary import COUNTRIES, DIETS, JOB_WORDS, LANGUAGES
from language.extraction.work_endings import JOBLESS, job_endings

# "not at Rappi anymore", "not vegan these days": what makes a negation an ending.
_ANYMORE = re.compile(r"\b(?:anymore|any more|no longer|these days)\b", re.I)
_DIET = "|".join(sorted(DIETS, key=len, reverse=True))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


NOT_A = _rx(
    r"(?:" + S + r"|^)(?:'m|am)?\s*(?:no longer|not)\s+(?:an?\s+|the\s+)?(?P<v>[\w -]{1,80}?)"
    r"(?:\s++anymore|\s++any more)?(?:[,.;!?]|$)"
)
USED_TO_BE = _rx(S + r"used to be\s+(?:an?\s+)?(?P<v>[\w -]+?)(?:[,.;!?]|$)")
STOPPED_DIET = _rx(
    S
    + r"(?:stopped|quit|gave up|dropped|ditched)\s+(?:being\s+)?(?:an?\s+|the\s+)?(?P<v>"
    + _DIET
    + r")\b"
    # "ex-vegan here"
    r"|(?:^|\bi(?:'m|\s+am)\s+(?:an?\s+)?)ex-(?P<v3>" + _DIET + r")\b"
    r"|\bi(?:'m|\s+am)\s+off\s+(?:the\s+)?(?P<v2>" + _DIET + r")\b"
    # The speaker left out at the message's start: "not vegan anymore lol", "no longer
    # pescatarian", "stopped being vegan last month" (issue 22).
    r"|^(?:(?:so|ok|okay|well|yeah|update|news|btw)[,:!]?[ \t]{1,3}){0,2}(?:(?:not|no[ \t]+longer)"
    r"[ \t]{1,3}(?:an?[ \t]+)?(?P<v4>" + _DIET + r")\b(?=[ \t]{0,3}(?:anymore|any[ \t]+more|now)\b)"
    r"|no[ \t]+longer[ \t]{1,3}(?:an?[ \t]+)?(?P<v5>" + _DIET + r")\b"
    r"|(?:stopped|quit)[ \t]{1,3}being[ \t]{1,3}(?:an?[ \t]+)?(?P<v6>" + _DIET + r")\b)"
)
LEFT_PLACE = _rx(
    S + r"(?:left|moved (?:away\s+)?(?:out of|away from|from)|no longer live in|"
    r"used to live in|(?P<negated>don't|do not)\s+live\s+in)\s+"
    # "I moved from Berlin to Munich" states the new city instead.
    r"(?!(?:the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+to\s)(?P<v>.+)"
)
LIKE_NO_MORE = _rx(
    # "my stomach can't handle spicy food anymore": the speaker's body speaks for them.
    r"(?:" + S + r"|\bmy\s+(?:stomach|body|gut|tummy)\s+)"
    r"(?:(?:don't|do not|no longer)\s+(?:like|love|enjoy)|used to (?:like|love|enjoy)|"
    r"(?:don't|do not|no longer)\s+(?:eat|drink)|(?:stopped|quit)\s+(?:eating|drinking)|"
    r"(?:gave|'ve given|have given)\s+up(?!\s+on\b)|"
    r"stopped (?:liking|loving|enjoying)|(?:'m|am)\s+(?:no longer|not)\s+into|"
    r"(?:'ve|have)?\s*lost\s+(?:all\s+)?(?:interest|my\s+interest)\s+in|"
    # "my stomach cant handle spicy food anymore" (the "anymore" checked below)
    r"(?:can't|cant|cannot)\s+(?:handle|stomach|tolerate|take|do)|"
    r"(?:'m|am)\s+over)\s+(?P<v>.+)"
)
LANGUAGE_GONE = _rx(
    S + r"(?:can't|cannot|can no longer|no longer|don't|do not)\s+speak\s+(?:any\s+)?(?P<v>\w+)"
)
PET_GONE = _rx(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?P<species>" + SPECIES_GROUP + r")\s+(?-i:(?P<v>[A-Z]\w+)\s+)?"
    r"(?:died|passed away|passed|ran away|is gone|was put down)"
    r"|\bwe\s+(?:lost|had to put down|rehomed|gave away)\s+our\s+(?:\w+\s+)?(?P<species2>"
    + SPECIES_GROUP
    + r")(?:,?\s+(?-i:(?P<v2>[A-Z]\w+)))?"
    # The "anymore" looked for only after "I don't" and within 300 characters: from each
    # "I" of "I I I ...", a scan to the clause's end was quadratic.
    r"|\b(?:i|we)\s+(?=(?:don't|do not|no longer)\s)"
    r"(?=.{0,300}?\b(?:anymore|any more|no longer)\b)(?:don't|do not|no longer)\s+"
    r"have\s+(?:a|an|the|my|our)\s+(?:\w+\s+)?(?P<species4>" + SPECIES_GROUP + r")\b"
    r"|\b(?:i|we)\s+(?:gave|had to give)\s+(?:my|our)\s+(?:\w+\s+)?(?P<species3>"
    + SPECIES_GROUP
    + r")(?:,?\s+(?-i:(?P<v3>[A-Z]\w+)),?)?\s+away\b"
    # "we gave Goldie away", "Rex passed away": by name only, it ends a pet only if one is
    # called so.
    r"|\b(?:i|we)\s+(?:had\s+to\s+)?(?:put|have\s+put)\s+(?-i:(?P<v7>[A-Z]\w+))\s+"
    r"(?:down|to\s+sleep)\b"
    r"|\b(?:i|we)\s+(?:gave|had to give|rehomed|had to rehome|'ve rehomed|had to find|found|"
    r"lost)\s+"
    r"(?-i:(?P<v5>[A-Z]\w+))(?:\s+away|\s+a\s+new\s+home)?\b"
    r"|^(?-i:(?P<v6>[A-Z]\w+))\s+(?:died|passed away|passed|ran away|was put down|"
    r"is no longer with us)\b"
    # "RIP Gizmo, best hamster ever": a farewell by name.
    r"|^(?:rip|r\.i\.p\.?)[,:]?\s+(?:little\s+|my\s+|our\s+)?(?-i:(?P<v8>[A-Z]\w+))\b"
)


# "no more Deloitte": a name ends where it matches; "no more coffee" a liking.
NO_MORE = _rx(r"^(?:and\s+|so\s+)?no\s+more\s+(?P<v>[^,;.!?]+)")


def _no_more(clause: str, lenient: bool) -> list[Statement]:
    match = NO_MORE.search(clause)
    if not match:
        return []
    name = proper_name(match.group("v"), lenient=lenient)
    if name and match.group("v")[:1].isupper():
        evidence = clause[match.start() : clause.find(name, match.start()) + len(name)]
        return [ending("employer", name, evidence, 0.85), ending("city", name, evidence, 0.85)]
    value = phrase(match.group("v"), max_words=3)
    return [ending("likes", value, match.group(0), 0.85)] if value else []


# "I left London for a week": a trip, not a move.
_TRIP = re.compile(
    r"\bfor\s+(?:a|an|the|two|three|a few|a couple of|\d+)\s+(?:\w+\s+)?(?:days?|nights?|weeks?|"
    r"weekends?|months?|trip|holiday|vacation|break|conference|wedding|visit)\b",
    re.I,
)


def _state_endings(clause: str, *, anymore: bool) -> list[Statement]:
    match = STOPPED_DIET.search(clause)
    if match:
        value = next(v for v in match.group("v", "v2", "v3", "v4", "v5", "v6") if v)
        return [ending("diet", value, match.group(0), 0.9)]
    for pattern, needs_anymore in ((NOT_A, True), (USED_TO_BE, False)):
        match = pattern.search(clause)
        if not match:
            continue
        value = match.group("v").strip()
        if needs_anymore and not anymore:
            return []
        if value.lower() in DIETS:
            return [ending("diet", value, match.group(0).rstrip(" .!"), 0.9)]
        if value.split() and value.split()[-1].lower() in JOB_WORDS:
            return [ending("job_title", value, match.group(0).rstrip(" .!"), 0.85)]
    return []


def _place_endings(clause: str, *, lenient: bool, anymore: bool) -> list[Statement]:
    match = LEFT_PLACE.search(clause)
    if not match or (match.group("negated") and not anymore):
        return []
    place = proper_name(match.group("v"), lenient=lenient)
    if not place or (not match.group("v").split()[0][:1].isupper() and not lenient):
        return []
    evidence = clause[match.start() : clause.find(place, match.start()) + len(place)]
    if place.lower() in COUNTRIES:
        return [ending("country", place, evidence, 0.85)]
    return [ending("city", place, evidence, 0.85)]


def _preference_endings(clause: str, *, anymore: bool) -> list[Statement]:
    found = []
    match = LIKE_NO_MORE.search(clause)
    if match and (
        anymore
        or "used to" in match.group(0).lower()
        or re.search(r"\b(?:stopped|quit|gave|given|lost)\b", match.group(0), re.I)
        or "over" in match.group(0).lower()
    ):
        value = phrase(match.group("v"), max_words=4)
        if value:
            found.append(ending("likes", value, match.group(0).rstrip(" .!"), 0.85))
    match = LANGUAGE_GONE.search(clause)
    if (
        match
        and match.group("v").lower() in LANGUAGES
        and (anymore or "no longer" in match.group(0).lower())
    ):
        found.append(ending("language", match.group("v"), match.group(0), 0.85))
    match = PET_GONE.search(clause)
    if match:
        gone = next(
            (match.group(g) for g in ("v", "v2", "v3", "v5", "v6", "v7", "v8") if match.group(g)),
            None,
        )
        species = next(
            (
                match.group(g)
                for g in ("species", "species2", "species3", "species4")
                if match.group(g)
            ),
            "",
        ).lower()
        found.append(ending("pet", gone or species, match.group(0), 0.85))
    return found


def endings(clause: str) -> list[Statement]:
    """The endings ``clause`` states, if it is phrased as one."""
    if _TRIP.search(clause) and not JOBLESS.search(clause):
        return []
    lenient = is_lowercase_text(clause)
    anymore = bool(_ANYMORE.search(clause))
    return (
        _state_endings(clause, anymore=anymore)
        or job_endings(clause, lenient=lenient, anymore=anymore)
        or couple_endings(clause, anymore=anymore)
        or _place_endings(clause, lenient=lenient, anymore=anymore)
        or _preference_endings(clause, anymore=anymore)
        or contact_endings(clause)
        or _no_more(clause, lenient)
    )
