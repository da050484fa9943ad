"""Where the speaker lives: the city or the country they live in, move to or stay in ("I live
in Lyon, France", "we moved to Seoul", "I'm in Nairobi these days", "I teach yoga in Ubud");
and the place the gazetteer knows after a job (home_after(): "a nurse in Cork")."""

import re

from language.extraction.grammar import I_AM, REST, SPAN, S, evidence_of, rx
from language.extraction.statements import EXPLICIT, Statement, is_lowercase_text, proper_name
from language.extraction.statements import statement as said
from language.extraction.vocabulary import COUNTRIES, STOP_WORDS
from language.places import city, country

PLACE = rx(
    S + r"(?:live|living|'m living|reside|residing|'m based|am based|'re based|are based|"
    r"'m settled|settled|'ll be living|will be living)\s+(?:in|out\s+of)\s+" + REST,
    r"^(?:currently\s+|now\s+)?based\s+(?:in|out\s+of)\s+" + REST,
    # "I live with my parents in Lyon", "I live in a small flat in Lyon"
    S + r"(?:live|living|'m living)\s+(?:with\s+[^,;.!?]{1,120}?|in\s+(?:a|an|my|our|the)\s+"
    r"[^,;.!?]{1,120}?)\s++in\s+(?-i:(?=[A-Z]))" + REST,
    # "I've lived in Lyon for five years": still there.
    r"\bi(?:'ve|\s+have)\s+(?:lived|been living|been based)\s+in\s+" + SPAN + REST,
    # "I'm in Lyon these days": a stay that has lasted.
    I_AM + r"in\s+(?!the\s)(?P<v>[^,;.!?]{1,120}?)\s++(?:these days|nowadays)\s*[.!]*$",
    S + r"(?:moved|move|'m moving|am moving|'re moving|are moving|'ll move|will move|"
    r"'ll be moving|will be moving|'ll be relocating|will be relocating|relocated|"
    r"'m relocating|am relocating|'re relocating|are relocating|'ll relocate|relocate|"
    r"'ll have moved|will have moved|"
    r"will relocate|'ve relocated|emigrated|immigrated|'ve emigrated)\s+"
    r"(?:back\s+home\s+|back\s+|home\s+|here\s+|over\s+|out\s+|"
    r"all the way\s+)?"
    r"(?:from\s+(?:the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+)?to\s+" + REST,
    I_AM + r"(?-i:(?P<v>[A-Z][\w]+(?:\s+[A-Z][\w]+)?))(?:-|\s)based\b",
    I_AM + r"(?P<v>[a-z]+(?:\s+[a-z]+)?)(?:-|\s)based\b(?=.{0,300}?\b$)",
    S + r"(?:call|now call)\s+(?P<v>[A-Z][\w' -]*?)\s+(?:my\s+)?home\b",
    # "moved into my new flat in Busan", "Ayesha and I moved in together in Utrecht"
    S + r"(?:moved|'ve moved|'re moving|'m moving|'ll move|move)\s+(?:in\s+together|into\s+"
    r"(?:my|our|a|the)\s+(?:new\s+|own\s+|first\s+|little\s+)*(?:flat|apartment|house|"
    r"place|home|condo|studio))\s+in\s+" + REST,
    r"^(?:and\s+|so\s+)?(?:my\s+)?home(?:\s+for\s+me)?\s+is\s+(?:now\s+)?(?-i:(?=[A-Z]))" + REST,
    # "we bought a flat in Maribor and moved there"
    S + r"(?:bought|rented|found|got|'ve bought|'ve found)\s+(?:a|an|our|my)\s+"
    r"(?:new\s+|own\s+|first\s+|little\s+)*(?:flat|apartment|house|place|home|condo)\s+in\s+"
    r"(?P<v>[^,;.!?]{1,120}?)\s++and\s+(?:have\s+|'ve\s+|just\s+)*moved\s+(?:in|there)\b",
    # "In three weeks I'll be in Berlin for good": a stay, not a visit.
    S
    + r"(?:'ll be|will be|be)\s+(?:living\s+)?in\s+(?=.{0,300}?\b(?:for good|permanently)\b)"
    + REST,
    # "back home in Osaka now and exhausted"
    r"(?:^|\bi'm\s+|\bim\s+|\bi\s+am\s+|\bfinally\s+)back\s+home\s+in\s+(?-i:(?=[A-Z]))"
    r"(?P<v>[^,;.!?]{1,60}?)\s+(?:now|again|at\s+last)\b",
)
# "i leave in Ljubljana now": "leave" for "live", as learners write it (a known place only:
# not "I leave in May").
LEAVE_IN = rx(S + r"leave\s+in\s+(?-i:(?=[A-Z]))" + REST)


def home_trust(match: re.Match[str]) -> tuple[float, str]:
    """ "We moved to Seoul": the speaker's household, the speaker in it; as good as "I"."""
    return EXPLICIT, "stated"


# Where a job is done, after the job: "a nurse in Cork", "a dentist living in Porto", "lab
# tech at X in Kumasi".
_WHERE_AFTER = re.compile(
    r"\A\s{0,3}(?:(?:at|for|with|@)\s[^,;.!?]{1,60}?\s)?(?:(?:here|now|currently)\s)?"
    r"(?:in|living in|based in|based out of|out of)\s+(?P<v>[^,;.!?]{1,80})",
    re.I,
)


def known_place(name: str, *, own_name: bool = False) -> bool:
    """A city or a country the gazetteer knows; ``own_name``: by the city's own name, not
    one of its other names (GeoNames knows Topeka as "Google" too)."""
    found = city(name)
    if found is not None and own_name:
        return found.name.casefold() == name.casefold() or country(name) is not None
    return found is not None or country(name) is not None


def _place_name(raw: str, *, lenient: bool) -> str | None:
    """The gazetteer's place ``raw`` starts with ("Cork, Ireland" -> "Cork", "san francisco
    till further notice" -> "san francisco"): the longest run of its first words that is
    one."""
    head = re.split(r"[,;.!?()]", raw, maxsplit=1)[0]
    words = re.split(r"\s+", head.strip(), maxsplit=4)[:4]
    for size in range(len(words), 0, -1):
        name = " ".join(words[:size]).strip(" '\"")
        capitalised = lenient or name[:1].isupper()
        if capitalised and name.lower() not in STOP_WORDS and known_place(name):
            return name
    return None


def _places(clause: str, value: str, raw_after: str, evidence: str) -> list[Statement]:
    """City ``value``, and its country when the text names it next ("Cork, Ireland")."""
    if value.lower() in COUNTRIES or (city(value) is None and country(value) is not None):
        return [said("country", value, evidence, EXPLICIT)]
    found = [said("city", value, evidence, EXPLICIT)]
    named = re.match(r"\A(?:,|\s+in)\s*(?:the\s+)?([^,.;!?]+)", raw_after)
    name = named and _place_name(named.group(1), lenient=True)
    if name and country(name) is not None and city(value) is not None:
        found.append(
            said(
                "country", name, evidence + raw_after[: raw_after.find(name) + len(name)], EXPLICIT
            )
        )
    return found


# A city typed in lower case in a text with capitals ("at the Royal Infirmary in edinburgh")
# is read only when it is a large one by its own name ("in march" is no town's).
_LOWERCASE_CITY_MIN_POPULATION = 100_000


def _large_city(raw: str) -> str | None:
    name = _place_name(raw, lenient=True)
    found = city(name) if name else None
    if name is None or found is None or found.name.casefold() != name.casefold():
        return None
    return name if found.population >= _LOWERCASE_CITY_MIN_POPULATION else None


def home_after(clause: str, match: re.Match[str], rest: str, *, lenient: bool) -> list[Statement]:
    where = _WHERE_AFTER.match(rest)
    name = where and (
        _place_name(where.group("v"), lenient=lenient) or _large_city(where.group("v"))
    )
    if not where or not name:
        return []
    start = clause.find(name, match.start())
    evidence = clause[match.start() : start + len(name)] if start >= 0 else match.group(0)
    after = clause[start + len(name) :] if start >= 0 else ""
    return _places(clause, name, after, evidence)


# "I'm in Nairobi", "im in Da Nang now", "I'm in San Francisco till further notice": a stay
# in a place the gazetteer knows ("I'm in a meeting" is none), not a visit ("for a
# conference", "this week", "on holiday").
STAY = re.compile(
    I_AM + r"(?:now\s+|currently\s+|still\s+)?(?:back\s+)?(?:living\s+|staying\s+)?"
    r"in\s+(?!the\s|a\s|an\s)"
    r"(?P<v>[^,;.!?]{1,80})",
    re.IGNORECASE,
)
_VISIT = re.compile(
    r"\b(?:for\s+(?:the\s+|a\s+|an\s+|my\s+|work|business|\w+\s+(?:days|weeks|nights))|this\s+(?:week|weekend|month)|"
    r"today|tonight|tomorrow|on\s+(?:holiday|vacation|a\s+trip|business)|visiting|next\s+\w+|"
    r"until\s+(?!further)|till\s+(?!further)|at\s+the\s+moment|right now|over\s+the)\b",
    re.IGNORECASE,
)


# "I teach yoga in Ubud", "I work in Lyon": where the speaker works, in a place the
# gazetteer knows, at the clause's end.
WORK_PLACE = re.compile(
    S + r"(?:teach|work|'m teaching|'m working|am working|am teaching)\b[^,;.!?]{0,60}?\s"
    r"in\s+(?P<v>[^,;.!?]{1,60})",
    re.IGNORECASE,
)


_ONLY_NOW = re.compile(r"\s{0,3}(?:(?:now|these days|nowadays|full[- ]time|lol|haha)\s{0,3})?[.!]*")


# "we're in Hamburg now": a household's stay, only with the "now" that makes it a home.
_WE_STAY = re.compile(
    r"\bwe(?:'re|\s++are)\s++(?:now\s++|all\s++)?(?:living\s++|based\s++|settled\s++)?"
    r"in\s++(?!the\s|a\s|an\s)(?P<v>[^,;.!?]{1,80}?)\s++(?:now|these\s+days|nowadays|for\s+good)\b"
    r"(?![ \t]{0,3}(?:for|until|till|on|this|over|visiting)\b)",
    re.IGNORECASE,
)


def stay(clause: str) -> list[Statement]:
    match = STAY.search(clause) or _WE_STAY.search(clause)
    at_work = match is None
    match = match or WORK_PLACE.search(clause)
    if not match:
        return []
    lenient = is_lowercase_text(clause)
    name = _place_name(match.group("v"), lenient=lenient)
    if not name:
        return []
    end = match.start("v") + match.group("v").find(name) + len(name)
    after = match.group("v")[end - match.start("v") :]
    if _VISIT.search(after) or (at_work and not _ONLY_NOW.fullmatch(after)):
        return []
    after = clause[end:]
    return _places(clause, name, after, clause[match.start() : match.start("v") + len(name)])


def place(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in PLACE + LEAVE_IN:
        match = pattern.search(clause)
        if not match:
            continue
        raw = match.group("v")
        # "based in mexico" in a text with capitals elsewhere: a place the gazetteer knows.
        value = proper_name(raw, lenient=lenient) or _place_name(raw, lenient=True)
        if not value or (pattern in LEAVE_IN and not known_place(value)):
            continue
        trust = home_trust(match)
        evidence = evidence_of(clause, match, value)
        if value.lower() in COUNTRIES:
            return [said("country", value, evidence, *trust)]
        found = [said("city", value, evidence, *trust)]
        after = raw[raw.find(value) + len(value) :]
        country = re.match(r"\A(?:,|\s+in)\s*(?:the\s+)?([^,.;!?]+)", after)
        name = country and proper_name(country.group(1), lenient=lenient)
        if name and name.lower() in COUNTRIES:
            found.append(
                said("country", name, evidence + after[: after.find(name) + len(name)], *trust)
            )
        return found
    return []
