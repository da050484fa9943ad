"""Where the speaker works and as what: the employer ("I work at Shopify", "Bosch hired me",
"first week at Rivian done", "my manager at Acme ...") and the job title ("I'm a nurse", "got
promoted to senior accountant", "head chef now!!"), with the place named after either ("a
nurse in Cork", "at the Royal Infirmary in Edinburgh"), read by home.py."""

import re

from language.extraction.grammar import I_AM, REST, SPAN, S, evidence_of, rx
from language.extraction.patterns.home import home_after, known_place
from language.extraction.statements import (
    EXPLICIT,
    HOUSEHOLD,
    Statement,
    is_lowercase_text,
    proper_name,
)
from language.extraction.statements import statement as said
from language.extraction.vocabulary import COUNTRIES, DIETS, JOB_WORDS, JUDGEMENTS

EMPLOYER = rx(
    S + r"(?:work|working|'m working|am working|'ll be working|will be working|employed|"
    r"'m employed|am employed|'ll work|will work|teach|'m teaching|am teaching|'ll be teaching|"
    r"will be teaching|intern|'m interning|am interning|interning|freelance|'m freelancing|"
    r"freelancing|consult|'m consulting|contract|'m contracting)"
    r"(?:\s+(?:remotely|full-time|part-time|full time|part time|now|currently|nights|days|"
    r"weekends|shifts|nights|mornings|evenings))?"
    r"(?:\s+in\s+[a-z-]+(?:\s+[a-z-]+)?)?\s+(?:at|for|by)\s+" + REST,
    S + r"(?:joined|join|'m joining|am joining|'ll join|will join|'ll be joining|"
    r"will be joining|(?:started|start|'m starting|am starting|'ll start|will start|began)"
    r"(?:\s+(?:working|a new job|my new job|a job|a new role|my new role|a new gig|a new "
    r"position|my new position|work))?\s+(?:at|with|for)|signed\s+(?:on\s+)?with|"
    r"got (?:a|an|my|the) (?:new )?(?:job|position|role|offer) (?:at|with)|got hired (?:at|by)|"
    r"(?:got|was|'ve been|have been|just got) poached by|"
    r"was hired (?:at|by)|'ve been hired (?:at|by)|'ll be at|will be at|'m now at|am now at|"
    r"(?:took|'ve taken|have taken|accepted|'ve accepted|have accepted|landed|'ve landed)\s+"
    r"(?:a|an|the)\s+(?:new\s+)?(?:job|position|role|post|offer)\s+(?:at|with|from))\s+" + REST,
    # "I'm at Netflix now": only with the "now" that makes it a job rather than a visit.
    # After a comma, only what speaks of the job ("same role"): "I'm at Gatwick now, flight
    # delayed" is a visit.
    I_AM + r"(?:at|with)\s+(?!the\s)(?P<v>[^,;.!?]{1,120}?)\s++(?:now|these days|nowadays)"
    r"(?:\s*[.!]*$|,\s*+(?:same|new|different|better|doing|working|loving|started|joined|"
    r"since)\b)",
    # "I've been with Google since 2020": the present perfect with a span is still current.
    r"\bi(?:'ve|\s+have)(?:\s+now)?\s+(?:worked|been working|been)\s+(?:at|with|for)\s+"
    + SPAN
    + REST,
    r"^(?:starting|from|as of)\b[^,]*?(?:,\s*+|(?<!\s)\s*+)" + I_AM + r"(?:at|with)\s+" + REST,
    S + r"(?:moved|relocated|'m moving|am moving)\s+.*?\bfor\s+(?:a|the)\s+(?:new\s+)?"
    r"(?:job|position|role)\s+(?:at|with)\s+" + REST,
    r"\bnow\s+i(?:'m|\s+am)\s+(?:at|with)\s+" + REST,
    r"\bi(?:'m|\s+am)\s+(?:currently|now)\s+(?:at|with)\s+(?!the\s)" + REST,
    # "I'm part of the team at Klarna", "I accepted Bosch's offer", "Bosch hired me"
    I_AM + r"(?:part of|on)\s+the\s+(?:[\w-]+\s+){0,2}?team\s+(?:at|of)\s+" + REST,
    S + r"(?:accepted|'ve accepted|took)\s+(?P<v>[^,;.!?']{1,120}?)'s\s+(?:job\s+)?offer\b",
    # "accepted the Optus offer"
    S + r"(?:accepted|'ve accepted)\s+the\s+(?P<v>[^,;.!?']{1,120}?)\s+(?:job\s+)?offer\b",
    r"^(?:and\s+|so\s+)?(?-i:(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}))\s+(?:just\s+|finally\s+)?"
    r"(?:hired|has hired|employs)\s+me\b",
    r"^(?-i:(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}))\s+is\s+(?:now\s+)?my\s+(?:new\s+)?"
    r"(?:employer|company)\b",
    r"(?:\b(?:for|with|at)\s+)?\bmy\s+(?:new\s+)?(?:job|position|role|gig|employer)"
    r"(?:\s+is(?:\s+now)?)?\s+(?:at|with)\s+" + REST,
    r"\bmy\s+(?:new\s+)?(?:employer|company)\s+is(?:\s+now)?\s+" + REST,
    # "Monday is my first day at Klarna", "my first day at Klarna is Monday"
    r"\bmy\s+first\s+(?:day|week)\s+(?:at|with)\s+" + REST,
    # "first week at Rivian done", "day two at Danske Bank"
    r"^(?:my\s+)?(?:(?:first|second|third|1st|2nd|3rd)\s+(?:day|week|month)|"
    r"(?:day|week)\s+(?:one|two|three|four|five|\d))\s+(?:at|with)\s+" + REST,
    # "new job at Deliveroo!", "update: new role with Arup" (issue 22: a message that is
    # only the news).
    r"^(?:(?:so|ok|okay|update|news|yay|finally|guess what)[,:!]?\s++)?(?:a\s+|my\s+)?new\s+"
    r"(?:job|role|position|gig)\s+(?:at|with)\s+" + REST,
    # "I switched jobs, now at M-KOPA"
    r"\b(?:switched|changed|new)\s+jobs?\b.*?\bnow\s+(?:at|with)\s+" + REST,
    # "still teaching, but i switched schools, i'm at Moringa High now"
    r"\b(?:switched|changed)\s+(?:schools|companies|firms|hospitals|employers|agencies|"
    r"practices|clinics)\b.*?\bi(?:'m|\s+am)\s+(?:now\s+)?(?:at|with)\s+" + REST,
    # "i just ADORE working weekends at Grunwald Logistics 🙃": a workplace, whatever the
    # speaker feels about it.
    S + r"(?:love|adore|hate|enjoy|like|loving|hating|can't\s+stand|detest)\s+working\s+"
    r"(?:(?:weekends|nights|late|overtime|shifts|here|there|on\s+sundays|on\s+weekends)\s+)?"
    r"(?:at|for)\s+(?-i:(?=[A-Z]))" + REST,
    # "I am working now in Ikea", "I work in Samsung Heavy Industries": learners' "in" for
    # "at", before a capitalised name that is no place (checked in employer()).
    S + r"(?:work|'m working|am working|working)(?:\s+(?:now|currently))?\s+in\s+"
    r"(?-i:(?=[A-Z]))(?P<v>[^,;.!?]{1,120})",
    # "I work for a startup called Pled"
    S + r"(?:work|'m working|am working)\s+(?:at|for)\s+an?\s+(?:[\w-]+\s+){1,3}?"
    r"(?:called|named)\s+" + REST,
)
_WORK_IN = EMPLOYER[-2]  # "I work in Ikea" (the last but one, kept so)
EMPLOYER_WORDS = re.compile(r"^(?:my\s+)?(?:job|position|role|company|employer|work)\b", re.I)
TITLE_VERBS = (
    r"(?:became|'ve become|have become|work as|working as|'m working as|am working as|"
    r"got a (?:new )?job as|started as|'m starting as|got hired as|was hired as|"
    r"(?:got|was|'ve been|have been)?\s*promoted to|'ll be working as|become|'ll become|"
    r"(?:was|got|'ve been|have been|'ll be|will be)\s+made|"
    r"will become|'m becoming|am becoming|start as|'ll start as|will start as|"
    r"'ll be starting as|(?:joined|join|'m joining|am joining|'ll join|will join|'ll be joining)"
    r" \S+(?: \S+){0,6}? as)\s+"
)
_BARE_TITLE = r"^(?!(?:my|our|his|her|their|your|the|a|an|this|that)\s)"
JOB_TITLE = rx(
    I_AM + r"(?:an?|the)\s+" + REST,
    r"\bi(?:'ll|\s+will)\s+be\s+(?:an?\s+|the\s+|(?=(?:head|director|vp|chief|lead)\s+of\s))"
    + REST,
    I_AM + r"(?=(?:head|director|vp|chief|lead)\s+of\s)" + REST,
    # "I'm senior product manager now": a title without its article, said as a change.
    I_AM + r"(?!an?\s|the\s|\w+ing\b)(?=.{0,300}?\b(?:now|these days|officially)\b)" + REST,
    # "I'm shift lead from next monday": a title without its article, from a date on.
    I_AM + r"(?!an?\s|the\s|\w+ing\b)(?=[^,;.!?]{0,60}?\b(?:from|starting|as of)\s)" + REST,
    r"\bi(?:'ve|\s+have)\s+been\s+(?:an?|the)\s+" + SPAN + REST,
    S + TITLE_VERBS + r"(?:an?\s+|the\s+)?" + REST,
    r"\bmy\s+(?:new\s+)?(?:job\s+title|title|role|position|job)\s+is(?:\s+now)?\s+"
    r"(?:an?\s+|the\s+)?" + REST,
    # "Starting a new job next Friday: backend developer at Zepto"
    r"\b(?:new|my)\s+(?:job|role|position|gig)\b[^:]*:\s*(?:an?\s+|the\s+)?" + REST,
    r"\b(?:they|we|the company|my boss|my company|the board)\s+(?:just\s+|finally\s+)?"
    r"(?:promoted|made)\s+me\s+(?:to\s+)?(?:an?\s+|the\s+)?" + REST,
    # "I work for Mercado Libre as a product designer", "got hired by Figma as a ..."
    S + r"(?:work|working|'m working|am working|'ll be working|be working|employed|"
    r"start|starting|'m starting|started|'ll start|join|joining|'m joining|joined|'ll join|"
    r"be joining|be starting|got hired|was hired|'ve been hired|hired|'m|am)\b[^,;.!?]{0,120}?"
    r"\b(?:at|for|by|with|in|there|join|joining)\b[^,;.!?]{0,120}?\bas\s+(?:an?\s+|the\s+)?" + REST,
    # "next monday i switch to nights as charge nurse"
    S + r"(?:switch|'m switching|switched|'ll switch|will switch|'m moving|move|'ll move)\s+"
    r"to\s+(?:[\w-]+\s+){1,3}?as\s+(?:an?\s+|the\s+)?" + REST,
    # "first week as tech lead, so many meetings"
    r"^(?:my\s+)?(?:(?:first|second|third|1st|2nd|3rd)\s+(?:day|week|month|shift)|"
    r"(?:day|week)\s+(?:one|two|three|four|five|\d))\s+as\s+(?:an?\s+|the\s+)?" + REST,
    # "got promoted to senior accountant", "just got promoted to team lead!"
    r"^(?:(?:so|and|ok|omg|just|finally|officially)\s+)*(?:i\s+)?(?:just\s+)?(?:got|was|been|'ve\s+been)"
    r"\s+promoted\s+to\s+(?:an?\s+|the\s+)?" + REST,
    # "I am English teacher", "I am software tester in Abuja": a title without its article,
    # as many who learnt English later write it (the title's last word must be a trade's).
    I_AM + r"(?!an?\s|the\s|\w+ing\b|not\b|no\b)" + REST,
    # A message that is the title alone: "head chef now!!", "product manager at Kotaro Games";
    # not someone's ("my manager at Acme", "the manager now").
    _BARE_TITLE + r"(?P<v>(?:[\w-]+\s+){0,3}[\w-]+)\s+now\s*[.!]*$",
    _BARE_TITLE + r"(?P<v>(?:[\w-]+\s+){0,3}[\w-]+\s+at\s+(?-i:[A-Z])[\w&'-]*"
    r"(?:\s+(?-i:[A-Z])[\w&'-]*){0,3})\s*[.!]*$",
)
JOB_ENDINGS = re.compile(r"(?:ologist|ician|iatrist|otherapist|ographer|onomist)$")
TITLE_HEADS = re.compile(r"^(?:head|director|vp|chief|professor|manager|lead)\s+of\s+", re.I)


def trust(match: re.Match[str]) -> tuple[float, str]:
    """ "We work for Acme" may speak for a team the speaker is only presumably part of."""
    subject = match.groupdict().get("subj") or "i"
    return (HOUSEHOLD, "inferred") if subject.lower() == "we" else (EXPLICIT, "stated")


# Words before a job that are no part of its title: "a humble accountant".
_NOT_OF_THE_TITLE = frozenset(
    {"a", "an", "the", "new", "humble", "lowly", "mere", "simple", "proud", "now"}
)


def _title(raw: str) -> str | None:
    # Spaces read from a run's first one only ((?<!\s)): from each of a long run, quadratic.
    head = re.split(
        r"(?<!\s)\s+(?:at|for|with|in|and|since|from|on|who|but|so|now|these|nowadays|lately|not|"
        r"currently|today|this|next|tomorrow|starting|as of|by|until|too|over|living|based|"
        r"working|lol|haha|tbh|btw|still|here|there|@)\b"
        # "engineer of Google" names the employer; "Head of Data" is the title itself.
        + (r"|(?<!\s)\s+of\s+(?=[A-Z])" if not TITLE_HEADS.match(raw) else "")
        + r"|[,.;!?]",
        raw,
        maxsplit=1,
    )[0]
    words = head.split()
    # "a vegan accountant": the diet is no part of the job.
    while words and (words[0].lower() in _NOT_OF_THE_TITLE or words[0].lower() in DIETS):
        words = words[1:]
    if any(w.lower() in JUDGEMENTS for w in words):
        return None  # "a good cook", "a terrible driver": a judgement, not a job
    if not words or len(words) > 5:
        return None
    title = " ".join(words)
    last = words[-1].lower().strip(".")
    # "cardiologist", "statistician", "psychiatrist": the trades' own endings.
    if TITLE_HEADS.match(title) or last in JOB_WORDS or JOB_ENDINGS.search(last):
        return title.strip(".")
    return None


# "my manager at Lumen Freight keeps ...", "should i ask my boss at Acme for a raise?": a
# workplace of the speaker's own, taken for granted even in a question or a plan.
WORKPLACE = rx(
    r"\bmy\s+(?:(?:new|current|line)\s+)?(?:manager|boss|supervisor|team\s+lead|"
    r"coworkers?|co-workers?|colleagues?|workmates?)\s+(?:at|in)\s+(?-i:(?=[A-Z]))" + REST
)


def workplace(clause: str) -> list[Statement]:
    match = WORKPLACE[0].search(clause)
    value = match and proper_name(match.group("v"))
    if not match or not value or known_place(value) or value.lower() in COUNTRIES:
        return []
    return [said("employer", value, evidence_of(clause, match, value), EXPLICIT, "inferred")]


def employer(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in EMPLOYER:
        for match in pattern.finditer(clause):
            raw = match.group("v")
            if EMPLOYER_WORDS.match(raw):
                continue
            value = proper_name(raw, lenient=lenient)
            # "I work in Ikea", not "I work in Lyon": a place is no employer.
            if pattern is _WORK_IN and value and known_place(value):
                continue
            if value and value.lower() not in COUNTRIES:
                found = [said("employer", value, evidence_of(clause, match, value), *trust(match))]
                # "at the Royal Infirmary in Edinburgh": where the speaker works, lives.
                rest = raw[raw.find(value) + len(value) :]
                return found + home_after(clause, match, rest, lenient=lenient)
    return []


def job_title(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in JOB_TITLE:
        match = pattern.search(clause)
        if not match or match.groupdict().get("subj", "i").lower() == "we":
            continue
        title = _title(match.group("v"))
        if title is None:
            continue
        found = [said("job_title", title, evidence_of(clause, match, title), EXPLICIT)]
        rest = match.group("v")[match.group("v").find(title) + len(title) :]
        org = re.match(r"\A\s+(?:over\s+)?(?:at|for|with|of)\s+(.+)", rest, re.I)
        company = org and proper_name(org.group(1), lenient=lenient)
        if company and company.lower() not in COUNTRIES:
            evidence = clause[match.start() : clause.find(company, match.start()) + len(company)]
            found.append(said("employer", company, evidence, EXPLICIT))
        found += home_after(clause, match, rest, lenient=lenient)
        return found
    return []
