"""A spouse or a partner named with a verb: "married to Declan", "Dara and I got married",
"kofi and i got engaged", "seeing a girl called Naomi", "I'm dating Felix"."""

import re

from language.extraction.fragments import about_someone_else
from language.extraction.grammar import NAME_AND_I, S
from language.extraction.people.names import is_name, name_at, name_statements
from language.extraction.statements import EXPLICIT, Statement, is_lowercase_text

_LOWER_NAME = r"(?P<v>[^\W\d_][\w'-]{1,30})"
SPOUSE = [
    re.compile(
        S + r"(?:married to|married|got married to|'m married to|am married to|"
        r"'re married to|wed|marrying|getting married to|marry|be marrying|"
        r"be getting married to)\s+"
        r"(?:my\s+(?:[\w-]+\s+){0,3}?(?:sweetheart|love|boyfriend|girlfriend|fianc[ée]e?|bf|gf|"
        r"partner|soul\s?mate|best\s+friend|other\s+half|better\s+half|crush)(?:\s*+,\s*+|\s++)"
        r"|my\s+[\w\s-]{3,40}?,?\s+)?"
        # "married to a wonderful guy named Oskar"
        r"(?:(?:an?|the\s+(?:most\s+)?)\s*(?:[\w-]+\s+){0,3}?(?:guy|man|woman|girl|lady|bloke|fella|"
        r"chap|person|gentleman|dude)\s+(?:named|called)\s+)?" + _LOWER_NAME,
        re.IGNORECASE,
    ),
    # "married to Lars, mum to ..." in an introduction
    _LISTED_MARRIED := re.compile(
        r"(?:^|[,:;]\s*+)(?:happily\s+|newly\s+)?married\s+(?:to|with)\s+" + _LOWER_NAME, re.I
    ),
    re.compile(
        NAME_AND_I + r"(?:got married|tied the knot|got hitched|married|got wed|are married|"
        r"'re married|getting married|be getting married|be married)\b",
        re.IGNORECASE,
    ),
]
PARTNER = [
    # "seeing a girl called Naomi atm", "i've been dating this guy named Felix"
    re.compile(
        r"(?:^|\b(?:i'm|im|i\s+am|i've\s+been|ive\s+been|been|i\s+started|started)\s+)"
        r"(?:seeing|dating)\s+(?:a|this|an?\s+amazing|a\s+lovely|someone)\s+(?:[\w-]+\s+)?"
        r"(?:guy|girl|man|woman|lady|bloke|person|fella|chap|dude|boy)?\s*(?:named|called)\s+"
        + _LOWER_NAME,
        re.IGNORECASE,
    ),
    re.compile(
        NAME_AND_I + r"(?:got engaged|engaged|dating|got together|moved in together|together)\b",
        re.IGNORECASE,
    ),
    re.compile(
        S + r"(?:dating|'m dating|am dating|'m seeing|am seeing|got engaged to|'m engaged to|"
        r"am engaged to|'m in a relationship with|moved in with)\s+"
        r"(?:(?:someone|a guy|a girl|a man|a woman)\s+(?:named|called)\s+)?" + _LOWER_NAME,
        re.IGNORECASE,
    ),
]
# "kofi and i got married", "me and jamal are engaged": the couple in lower case.
_COUPLE = re.compile(
    r"^(?:(?:so|and|also|btw|omg|guess what|update|news)[,:!]?\s+)*"
    r"(?:me\s+(?:and|n|&)\s+)?(?P<v>[^\W\d_][\w'-]{1,30})\s+(?:and|n|&)\s+(?:i|me)"
    r"(?:'re|'ve|\s+(?:are|have|just|finally|recently|officially|both|r))*\s+"
    r"(?P<verb>got married|tied the knot|got hitched|married|got wed|are married|'re married|"
    r"getting married|got engaged|engaged|got together|moved in together|moving in together|"
    r"are together|'re together|dating)\b"
    r"|^(?:me\s+(?:and|n|&)\s+)(?P<v2>[^\W\d_][\w'-]{1,30})\s+(?:are|'re|r|have|just)?\s*"
    r"(?P<verb2>got married|getting married|got engaged|engaged|together|dating|moving in)",
    re.IGNORECASE,
)


def _couple(clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    match = _COUPLE.search(clause)
    if not match:
        return []
    name = match.group("v") or match.group("v2")
    if not is_name(name, cased=cased) or (cased and not name[:1].isupper()):
        return []
    verb = (match.group("verb") or match.group("verb2")).lower()
    predicate = (
        "spouse"
        if "married" in verb or verb in {"tied the knot", "got hitched", "got wed"}
        else "partner"
    )
    return name_statements(predicate, [name], match.group(0), EXPLICIT)


def _verbs(predicate: str, patterns: list[re.Pattern[str]], clause: str) -> list[Statement]:
    cased = not is_lowercase_text(clause)
    for pattern in patterns:
        match = pattern.search(clause)
        if not match:
            continue
        if pattern is _LISTED_MARRIED and about_someone_else(clause):
            continue
        name = match.group("v")
        if not is_name(name, cased=cased) or (cased and not name[:1].isupper()):
            continue
        names, stop = name_at(clause, match.start("v"), cased=cased, many=False)
        if names:
            return name_statements(predicate, names, clause[match.start() : stop], EXPLICIT)
    return []


def spouse_or_partner(clause: str) -> list[Statement]:
    """The spouse the clause names with a verb of marrying, else the couple it names ("kofi
    and i got engaged"), else the partner it names with a verb of dating."""
    return _verbs("spouse", SPOUSE, clause) or _couple(clause) or _verbs("partner", PARTNER, clause)
