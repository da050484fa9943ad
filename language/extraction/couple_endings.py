"""Phrasings that end a couple: "we split up", "Kenji and I got divorced", "me and jamal
broke up", "my girlfriend dumped me", "Ines isn't my girlfriend any more", "our divorce was
finalised". A name said ends the spouse or the partner only if it is theirs."""

import re

from language.extraction.grammar import NAME, NAME_AND_I, S_PLAIN
from language.extraction.statements import Statement, ending
from language.extraction.vocabulary import COMMON_WORDS, STOP_WORDS

SPLIT = re.compile(
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
    r"separated|seperated|split|got divorced|divorced)))\b",
    re.IGNORECASE,
)
# "Kenji and I got divorced": ends the spouse only if Kenji is the one.
SPLIT_NAMED = re.compile(
    NAME_AND_I + r"(?:got\s+)?(?P<verb>divorced|split up|broke up|separated|seperated|"
    r"called it quits|(?<=are\s)done|(?<='re\s)done)\b",
    re.IGNORECASE,
)
# "me and jamal broke up", "aiko n i split up": the couple typed in lower case.
SPLIT_COUPLE = re.compile(
    r"^(?:(?:so|and|ugh|well|update|btw)[,:!]?\s+)*"
    r"(?:me\s+(?:and|n|&)\s+(?P<v>[^\W\d_][\w'-]{1,30})|(?P<v2>[^\W\d_][\w'-]{1,30})\s+"
    r"(?:and|n|&)\s+(?:i|me))(?:'re|'ve|\s+(?:are|have|just|finally|officially|r))*\s+"
    r"(?:got\s+)?(?P<verb>divorced|split up|broke up|separated|seperated|called it quits|"
    r"(?<=are\s)done|(?<='re\s)done)\b",
    re.IGNORECASE,
)
NOT_TOGETHER = re.compile(
    r"\bwe(?:'re|\s+are)\s+(?:not|no longer)\s+together\b"
    r"|\b(?:our|my|the)\s+divorce(?:\s+(?:from|form|with)\s+[\w'-]+(?:\s+[\w'-]+)?)?\s+"
    r"(?:was|is|has been|got|just got)\s+(?:now\s+|finally\s+|officially\s+)?"
    r"(?:finali[sz]ed|final|official|through)\b",
    re.IGNORECASE,
)
# "Ines isn't my girlfriend any more"
NOT_MY_PARTNER = re.compile(
    NAME + r"\s+(?:is|'s)(?:n't|\s+not|\s+no\s+longer)\s+my\s+(?P<who>wife|husband|boyfriend|"
    r"girlfriend|partner|fianc[ée]e?|bf|gf)\b",
    re.IGNORECASE,
)
# "no longer with Priya": a partner's or spouse's name (an employer's is read apart).
NO_LONGER_WITH = re.compile(
    r"(?:^|"
    + S_PLAIN
    + r"(?:'m|am)?\s*)(?:no longer|not)\s+(?:with|together with|seeing|dating)\s+"
    + NAME,
    re.IGNORECASE,
)


def _split_couple(clause: str) -> re.Match[str] | None:
    match = SPLIT_COUPLE.search(clause)
    name = match and (match.group("v") or match.group("v2"))
    if not match or not name or name.lower() in COMMON_WORDS | STOP_WORDS | {"i", "me", "we"}:
        return None
    return match


def couple_endings(clause: str, *, anymore: bool) -> list[Statement]:
    apart = NOT_TOGETHER.search(clause)
    if apart and "divorce" in apart.group(0).lower():
        return [ending("spouse", None, apart.group(0), 0.9)]
    if apart and anymore:
        evidence = apart.group(0)
        return [ending("spouse", None, evidence, 0.85), ending("partner", None, evidence, 0.85)]
    match = NOT_MY_PARTNER.search(clause)
    if match and (anymore or "no longer" in match.group(0).lower()):
        slot = "spouse" if match.group("who").lower() in {"wife", "husband"} else "partner"
        return [ending(slot, match.group("v"), match.group(0), 0.9)]
    match = NO_LONGER_WITH.search(clause)
    if match and anymore:
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
