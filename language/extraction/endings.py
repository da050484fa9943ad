"""Phrasings that end a value without giving a new one: "I left Dropbox", "I'm not with
Acme anymore", "we split up", "no longer a vegetarian". Each ending names the value it ends
when the text does; the check ends a current fact only when that value matches it."""

import re

from language.extraction.contacts import contact_endings
from language.extraction.grammar import NAME, NAME_AND_I, S_PLAIN, SPECIES_GROUP, S
from language.extraction.statements import Statement, ending, is_lowercase_text, phrase, proper_name
from language.extraction.vocabulary import (
    COMMON_WORDS,
    COUNTRIES,
    DIETS,
    JOB_WORDS,
    LANGUAGES,
    STOP_WORDS,
)

_NO_LONGER = r"(?:no longer|not|n't|not really)"
_ANYMORE = re.compile(r"\b(?:anymore|any more|no longer|these days)\b", re.I)
_JOB_PHRASE = re.compile(
    r"^(?:my|the|this|that)\s+(?:\w+\s+)?(?:job|position|role|company|employer|work|gig)\b"
    r"(?:\s+(?:at|with)\s+(?P<org>.+))?",
    re.I,
)
_WHEN = frozenset(
    {"last", "this", "yesterday", "today", "recently", "earlier", "in", "on", "at", "after"}
    | {"before", "a", "two", "three"}
)
_DIET = "|".join(sorted(DIETS, key=len, reverse=True))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


LEFT_JOB = _rx(
    S + r"(?P<verb>left|quit|resigned(?:\s+from)?|(?:was|got|been)\s+(?:laid off|let go|fired|"
    r"made redundant)(?:\s+(?:from|by))?|retired(?:\s+from)?|walked away from|"
    r"handed in my notice at|"
    r"stopped working (?:at|for)|finished (?:at|with)|'m leaving|am leaving|'ll be leaving|"
    # "finishing at BBVA on July 15", "i finish at sunny days nursery on friday"
    r"(?:'m\s+|am\s+)?finishing(?:\s+up)?\s+(?:at|with)|finish(?:\s+up)?\s+(?:at|with)|"
    r"will be leaving|'ll leave|will leave|moved on from|stepped down(?:\s+from)?|"
    r"(?:'m|am)?\s*(?:quitting|retiring(?:\s+from)?|resigning(?:\s+from)?)|'ll quit|will quit|"
    r"'ll retire|will retire|'ll resign|will resign|leave)"
    r"(?:\s+(?P<v>.+?))?[\s.!]*$"
)
NOT_WITH = _rx(
    r"(?:^|"
    + S
    + r")(?:'m|am|are|'re)?\s*"
    + _NO_LONGER
    + r"\s+(?:with|at|working (?:at|for)|employed (?:at|by)"
    r"|work(?:ing)? (?:at|for)|(?:driving|delivering|riding|cooking|cleaning|teaching)\s+for)"
    r"\s+(?P<v>.+)"
)
DONT_WORK = _rx(S + r"(?:don't|do not|no longer)\s+work\s+(?:at|for)\s+(?P<v>.+)")
USED_TO_WORK = _rx(S + r"used to work\s+(?:at|for)\s+(?P<v>.+)")
JOBLESS = _rx(
    S + r"(?:'m|am)?\s*(?:now\s+)?(?:unemployed|between jobs|out of work|jobless|"
    r"looking for work)\b"
    # "unemployed life is nice", "officially unemployed now": the speaker's state, said alone.
    r"|^(?:(?:so|well|ok|and|now|officially)\s+)*(?:unemployed|jobless)\b(?!\s+(?:people|friends?))"
)
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
LAST_DAY = _rx(
    r"\bmy\s+last\s+(?:day|shift|week)\s+(?:at|with)\s+(?P<v>.+)"
    # "my contract with Sony ends on June 30"
    r"|\bmy\s+(?:contract|job|position|role|time)\s+(?:at|with)\s+(?P<v2>.{1,120}?)\s++"
    r"(?:ends|is ending|finishes|runs out|is over|ended|is up)\b"
)
# "Friday is my last day", "my last day is the 28th": at work, said without naming it.
LAST_DAY_AT_WORK = _rx(
    r"\b(?:is|will be|'s)\s+my\s+last\s+day(?:\s+at\s+work|\s+at\s+the\s+office)?\s*[.!]*$"
    r"|\bmy\s+last\s+day(?:\s+at\s+work)?\s+(?:is|will be)\b"
)
SPLIT = _rx(
    S_PLAIN + r"(?P<verb2>broke up with|divorced(?:\s+from)?|split (?:up )?(?:with|from)|left)\s+"
    r"(?:my\s+(?P<who>wife|husband|boyfriend|girlfriend|partner|fianc[ée]e?)\s*)?" + NAME + "?"
    r"|\b(?:we|i|(?:my\s+(?:wife|husband|boyfriend|girlfriend|partner|fianc[ée]e?)\s+and\s+i)"
    r"|(?:me\s+and\s+my\s+(?:wife|husband|boyfriend|girlfriend|partner|fianc[ée]e?)))"
    r"(?:'re|\s+are|\s+have|'ve)?(?:\s+(?:just|finally|recently|officially|now))*\s+"
    r"(?:got\s+)?(?P<verb>split up|broke up|separated|divorced|called it quits)\b"
    r"|" + S_PLAIN + r"(?:'m|am)?\s*(?:now\s+)?(?P<state>divorced|single|separated)\b"
    r"|\bmy\s+(?P<who2>wife|husband|boyfriend|girlfriend|partner|fianc[ée]e?)\s+"
    r"(?-i:(?P<v2>[A-Z][\w'-]+)\s+)?"
    r"(?:just\s+|finally\s+)?(?:broke up with me|left me|dumped me|divorced me|"
    r"split up with me|(?:and\s+i\s+)?(?:(?:have\s+|'ve\s+)?(?:just\s+)?(?:broke up|split up|"
    r"separated|seperated|split|got divorced|divorced)))\b"
)
# "Kenji and I got divorced": ends the spouse only if Kenji is the one.
SPLIT_NAMED = _rx(
    NAME_AND_I + r"(?:got\s+)?(?P<verb>divorced|split up|broke up|separated|seperated|"
    r"called it quits|(?<=are\s)done|(?<='re\s)done)\b"
)
# "me and jamal broke up", "aiko n i split up": the couple typed in lower case.
SPLIT_COUPLE = _rx(
    r"^(?:(?:so|and|ugh|well|update|btw)[,:!]?\s+)*"
    r"(?:me\s+(?:and|n|&)\s+(?P<v>[^\W\d_][\w'-]{1,30})|(?P<v2>[^\W\d_][\w'-]{1,30})\s+"
    r"(?:and|n|&)\s+(?:i|me))(?:'re|'ve|\s+(?:are|have|just|finally|officially|r))*\s+"
    r"(?:got\s+)?(?P<verb>divorced|split up|broke up|separated|seperated|called it quits|"
    r"(?<=are\s)done|(?<='re\s)done)\b"
)
NOT_TOGETHER = _rx(
    r"\bwe(?:'re|\s+are)\s+(?:not|no longer)\s+together\b"
    r"|\b(?:our|my|the)\s+divorce(?:\s+(?:from|form|with)\s+[\w'-]+(?:\s+[\w'-]+)?)?\s+"
    r"(?:was|is|has been|got|just got)\s+(?:now\s+|finally\s+|officially\s+)?"
    r"(?:finali[sz]ed|final|official|through)\b"
)
# "Ines isn't my girlfriend any more"
NOT_MY_PARTNER = _rx(
    NAME + r"\s+(?:is|'s)(?:n't|\s+not|\s+no\s+longer)\s+my\s+(?P<who>wife|husband|boyfriend|"
    r"girlfriend|partner|fianc[ée]e?|bf|gf)\b"
)
# "no longer with Priya": a partner's or spouse's name (an employer's is read apart).
NO_LONGER_WITH = _rx(
    r"(?:^|"
    + S_PLAIN
    + r"(?:'m|am)?\s*)(?:no longer|not)\s+(?:with|together with|seeing|dating)\s+"
    + NAME
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


def _employer_endings(clause: str, lenient: bool) -> list[Statement]:
    left = _left_job(clause, lenient)
    if left:
        return left
    return _not_working_there(clause, lenient)


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


def _not_working_there(clause: str, lenient: bool) -> list[Statement]:
    """Not leaving but no longer there: "I'm not at Rappi anymore, I left last week"."""
    for pattern, needs_anymore in ((NOT_WITH, True), (DONT_WORK, True), (USED_TO_WORK, False)):
        match = pattern.search(clause)
        if not match:
            continue
        if needs_anymore and not _ANYMORE.search(clause):
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


def _state_endings(clause: str) -> list[Statement]:
    match = STOPPED_DIET.search(clause)
    if match:
        value = next(v for v in match.group("v", "v2", "v3", "v4", "v5", "v6") if v)
        return [ending("diet", value, match.group(0), 0.9)]
    for pattern, needs_anymore in ((NOT_A, True), (USED_TO_BE, False)):
        match = pattern.search(clause)
        if not match:
            continue
        value = match.group("v").strip()
        if needs_anymore and not _ANYMORE.search(clause):
            return []
        if value.lower() in DIETS:
            return [ending("diet", value, match.group(0).rstrip(" .!"), 0.9)]
        if value.split() and value.split()[-1].lower() in JOB_WORDS:
            return [ending("job_title", value, match.group(0).rstrip(" .!"), 0.85)]
    return []


def _place_endings(clause: str, lenient: bool) -> list[Statement]:
    match = LEFT_PLACE.search(clause)
    if not match or (match.group("negated") and not _ANYMORE.search(clause)):
        return []
    place = proper_name(match.group("v"), lenient=lenient)
    if not place or (not match.group("v").split()[0][:1].isupper() and not lenient):
        return []
    evidence = clause[match.start() : clause.find(place, match.start()) + len(place)]
    if place.lower() in COUNTRIES:
        return [ending("country", place, evidence, 0.85)]
    return [ending("city", place, evidence, 0.85)]


def _split_couple(clause: str) -> re.Match[str] | None:
    match = SPLIT_COUPLE.search(clause)
    name = match and (match.group("v") or match.group("v2"))
    if not match or not name or name.lower() in COMMON_WORDS | STOP_WORDS | {"i", "me", "we"}:
        return None
    return match


def _relationship_endings(clause: str) -> list[Statement]:
    apart = NOT_TOGETHER.search(clause)
    if apart and "divorce" in apart.group(0).lower():
        return [ending("spouse", None, apart.group(0), 0.9)]
    if apart and _ANYMORE.search(clause):
        evidence = apart.group(0)
        return [ending("spouse", None, evidence, 0.85), ending("partner", None, evidence, 0.85)]
    match = NOT_MY_PARTNER.search(clause)
    if match and (_ANYMORE.search(clause) or "no longer" in match.group(0).lower()):
        slot = "spouse" if match.group("who").lower() in {"wife", "husband"} else "partner"
        return [ending(slot, match.group("v"), match.group(0), 0.9)]
    match = NO_LONGER_WITH.search(clause)
    if match and _ANYMORE.search(clause):
        evidence = match.group(0)
        return [
            ending("partner", match.group("v"), evidence, 0.85),
            ending("spouse", match.group("v"), evidence, 0.85),
        ]
    match = SPLIT_NAMED.search(clause) or _split_couple(clause)
    if match:
        evidence = match.group(0).rstrip(" .!")
        name = match.groupdict().get("v") or match.groupdict().get("v2")
        if name and name == name.lower():
            name = name.capitalize()
        if match.group("verb").lower() == "divorced":
            return [ending("spouse", name, evidence, 0.9)]
        return [ending("spouse", name, evidence, 0.85), ending("partner", name, evidence, 0.85)]
    match = SPLIT.search(clause)
    if not match:
        return []
    words = match.group(0).lower()
    evidence = match.group(0).rstrip(" .!")
    name = match.groupdict().get("v") or match.groupdict().get("v2")
    who = (match.group("who") or match.group("who2") or "").lower()
    if not who:
        who = next((w for w in ("wife", "husband") if w in words), "")
    if match.group("verb2") == "left" and not (who or name):
        return []
    if "divorce" in words or who in {"wife", "husband"}:
        return [ending("spouse", name, evidence, 0.9)]
    if "broke up" in words or who:
        return [ending("partner", name, evidence, 0.9)]
    return [ending("spouse", name, evidence, 0.85), ending("partner", name, evidence, 0.85)]


def _preference_endings(clause: str) -> list[Statement]:
    found = []
    match = LIKE_NO_MORE.search(clause)
    if match and (
        _ANYMORE.search(clause)
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
        and (_ANYMORE.search(clause) or "no longer" in match.group(0).lower())
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
    return (
        _state_endings(clause)
        or _employer_endings(clause, lenient)
        or _relationship_endings(clause)
        or _place_endings(clause, lenient)
        or _preference_endings(clause)
        or contact_endings(clause)
        or _no_more(clause, lenient)
    )
