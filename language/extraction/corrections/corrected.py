"""A correction: a value said in place of another, inside one message ("I live in Graz.
sorry, Linz", "I'm a data analyst, scratch that, data engineer", "+49 ... sorry +49 ...") or
of one said before ("Slovak not Czech", "correction: it's Bergen, not Oslo", "I said
Northgate Pharmacy earlier, it's Northfield Pharmacy")."""

import re
from collections.abc import Callable
from dataclasses import replace

from language.extraction.corrections.values import bare_value, candidates, retyped, said_as
from language.extraction.grammar import FILLERS
from language.extraction.statements import MULTI_VALUED, Statement, proper_name
from language.moments import MONTH_STEMS

# What reads a clause the way the extractor does (extractor.extract_clause).
Read = Callable[[str], list[Statement]]

# What opens a correction: "sorry, Linz", "no wait, ...", "scratch that, ...", "I meant ...".
MARKER = re.compile(
    r"(?:^|[,;:\u2014\u2013]\s{0,3}|\.{1,3}\s{0,3}|\s)(?:(?:oh|oops|ugh|haha|lol)[,!]?\s{1,3})?"
    # Not an apology for something: "sorry for the wall of text", "sorry to bother you".
    r"(?:sorry(?!\s{1,3}(?:for|about|abt|to|if|that|again)\b)|no\s+wait|wait\s+no|scratch\s+that(?:\s+number)?|i\s+mean|i\s+meant|"
    r"correction|actually\s+no|oops|my\s+bad|typo|(?<![^\s])no(?=[,!])|"
    # "wait the last two digits are wrong, it's ..."
    r"(?:digits?|numbers?|one|date|day|year|spelling|name|address|email|letters?)\s+"
    r"(?:is|are|was|were)\s+wrong|"
    # "i'm vegan—well, vegetarian technically": a value taken back by the next, hedged.
    r"well(?=,?\s{1,3}[\w-]+(?:\s+[\w-]+)?\s+(?:technically|actually|really|strictly|i\s+guess)\b)|"
    # "*Porto", "actually it's Rotterdam": a correction that opens the message.
    r"^\*(?=\w)|^(?:ok\s+|oh\s+|hmm\s+)?actually(?=,?\s{1,3}(?:it's|its|it\s+is)\b))\b"
    r"(?:[,:]?\s{1,3}(?:i\s+meant?|it's|its|it\s+is|the\s+right\s+one\s+is|"
    r"the\s+correct\s+one\s+is)\b)?\s{0,3}[,:!*-]*\s{0,3}",
    re.I,
)
# "Bergen, not Oslo", "Slovak not Czech", "midwife actually, not a nurse", "not Austria,
# Australia", "3 June, not July".
# Read from the first "not" only, and backwards from it: a search for "A, not B" from every
# position of a long text without one was quadratic.
_NOT_B = re.compile(r"\bnot\s{1,3}(?:an?\s+|the\s+)?(?P<b>[^,;.!?]{1,60})", re.I)
_BEFORE_NOT = re.compile(r"(?:\s|,|\*|\bactually\b){1,12}$", re.I)


def _a_not_b(clause: str) -> tuple[str, str, int] | None:
    """ "Bergen, not Oslo": (the words before "not" back to the last comma, B, where they
    start)."""
    match = _NOT_B.search(clause)
    if not match:
        return None
    prefix = clause[max(0, match.start() - 120) : match.start()]
    offset = max(0, match.start() - 120)
    trimmed = prefix[: len(prefix) - len(_tail_of(prefix))]
    cut = max(trimmed.rfind(c) for c in ",;!?") + 1
    a = trimmed[cut:][-80:]
    if not a.strip():
        return None
    return a, match.group("b"), offset + len(trimmed) - len(a)


def _tail_of(prefix: str) -> str:
    tail = _BEFORE_NOT.search(prefix[-40:])
    return tail.group(0) if tail else ""


_NOT_B_BEFORE = re.compile(
    r"^(?:" + FILLERS + r"[,!.]?\s{1,3}){0,3}not\s{1,3}(?:an?\s+|the\s+)?(?P<b>[^,;.!?]{1,60}?)"
    r"\s{0,3}[,;:]\s{0,3}(?:it's\s+|its\s+|it\s+is\s+)?(?P<a>[^,;.!?]{1,80})",
    re.I,
)
_MONTHS = re.compile(rf"^(?:{MONTH_STEMS})[a-z]*$", re.I)


def _held_like(item: Statement, old: str) -> Statement:
    """The new value in place of ``old``: in a multi-valued slot the old item is the one that
    ends; in a single-valued one the new value replaces whatever the slot holds."""
    if item.predicate in MULTI_VALUED:
        return replace(item, ended=old)
    return item


# "I said Northgate Pharmacy earlier, it's Northfield Pharmacy": the old value, then the new.
_SAID_BEFORE = re.compile(
    r"\bi\s+(?:said|wrote|typed|put|told\s+you)\s+(?P<b>[^,;.!?]{1,60}?)\s+(?:earlier|before|"
    r"last\s+time|by\s+mistake)\b[^,;.!?]{0,30}[,;.]\s{0,3}(?:but\s+)?(?:it's|its|it\s+is|"
    r"it\s+should\s+be|actually)\s+(?P<a>[^,;.!?]{1,60})",
    re.I,
)


def said_before(clause: str) -> list[Statement] | None:
    match = _SAID_BEFORE.search(clause)
    if not match:
        return None
    a, b = match.group("a").strip(), match.group("b").strip()
    was = bare_value(b)
    if was:
        return bare_value(a, hint=was[0].predicate) or None
    return candidates(a, b) or None


def _describes(clause: str, said_not: str) -> bool:
    """ "not a rooster": a description denied, no value of a slot."""
    words = " ".join(clause.lower().split())
    return any(f"not {article} {said_not.lower()}" in words for article in ("a", "an"))


def contrast(clause: str, read: Read) -> list[Statement] | None:
    """ "Slovak not Czech", "it's Bergen, not Oslo", "not Austria, Australia": the value that
    corrects ``B``. None when the clause is no such contrast."""
    before_b = _NOT_B_BEFORE.match(clause)
    after_b = None if before_b else _a_not_b(clause)
    if before_b:
        a, b = before_b.group("a").strip(" *,"), before_b.group("b").strip()
    elif after_b:
        a, b = after_b[0].strip(" *,"), after_b[1].strip()
    else:
        return None
    old = _item_or_name(b)
    if old is None or old.lower() in {"really", "sure", "yet", "just", "only", "that", "much"}:
        return None
    if re.match(r"^(?:she's|he's|shes|she\s+is|he\s+is|(?:her|his)\s+name\s+is)\s", a, re.I):
        # "she's Estela, not Estrella": a person or a pet renamed, whichever is held.
        named = candidates(re.sub(r"^\S+\s+(?:is\s+|name\s+is\s+)?", "", a), old)
        return [s for s in named if s.predicate in ("spouse", "partner", "pet", "child")] or None
    # "Gort not Galway": the corrected value's kind is the new one's.
    was = bare_value(b)
    kind = was[0].predicate if was else None
    if kind is None and _describes(clause, b):
        return None  # "i'm a operations analyst not a rooster lol": no value is corrected
    if after_b:
        before = clause[: after_b[2]] + a
        found = read(before)
        if not found:
            found = bare_value(a, hint=kind) or _after_marker_value(a) or said_as(a)
    else:
        found = read(a) or bare_value(a, hint=kind)
    if kind is not None:
        found = [s for s in found if s.predicate == kind]
    elif not found:
        return candidates(a, old) or None
    if not found:
        return None
    if _MONTHS.match(old.split()[0]) and not any(s.predicate == "birthday" for s in found):
        return None
    return [_held_like(s, old) for s in found if s.value is not None]


def _after_marker_value(raw: str) -> list[Statement]:
    marker = MARKER.search(raw)
    return bare_value(raw[marker.end() :]) if marker else []


def _item_or_name(raw: str) -> str | None:
    words = raw.split()
    if not words:
        return None
    name = proper_name(raw, lenient=True, max_words=4)
    return name


_HEDGE_AFTER = re.compile(
    r"(?<!\s)\s++(?:i\s+mean|i\s+meant|technically|actually|really|strictly|i\s+guess)\s*$", re.I
)


def correction(
    sentence: str, found: list[Statement], read: Read
) -> tuple[list[Statement], list[Statement]] | None:
    """A correction inside the message: "I live in Graz. sorry, Linz", "I'm a data analyst,
    scratch that, data engineer", "+49 ... sorry +49 ...". Returns the statements of the
    message so far without the corrected one, and the correcting statements; None when the
    sentence corrects nothing."""
    marker = MARKER.search(sentence)
    if not marker:
        return None
    before, after = sentence[: marker.start()], sentence[marker.end() :]
    # "sorry, Slovak not Czech": the contrast says what is corrected.
    contrasted = contrast(after, read)
    if contrasted:
        earlier = read(before) if before.strip(" ,.") else []
        return _without(found + earlier, contrasted), contrasted
    parts = re.split(r"\s{0,3}[,;]\s{0,3}|\.(?:\s|$)", after, maxsplit=2)[:2]
    # "Swedish i mean", "vegetarian technically": the value without its hedge.
    replacement = _HEDGE_AFTER.sub("", parts[0])
    if re.match(r"^(?:that's|thats|that\s+is|it's|its)\s+my\s+\w+'s?\b", replacement, re.I):
        # "no wait that's my brother's, mine's the 2nd": what follows is the speaker's.
        replacement = parts[1] if len(parts) > 1 else ""
    earlier = read(before) if before.strip(" ,.") else []
    said = read(replacement) if replacement else []
    if not said and len(parts) > 1 and replacement is parts[0]:
        # "ugh no, Lukas is my ex, my boyfriend is Jan": the correction in the next part.
        said = read(parts[1])
        if said:
            replacement = parts[1]
    pool = found + earlier
    if not said and pool:
        last = pool[-1]
        said = bare_value(replacement, hint=last.predicate)
        if not said and last.predicate in ("city", "country"):
            said = bare_value(replacement, hint=None)
    elif not said:
        said = bare_value(replacement)
        # A bare value correcting what the agent holds: only a phone or an email tells what
        # it is by its form alone; a value of another kind (a city by the gazetteer)
        # corrects only a slot of its kind the agent holds ("held"), and a name of no known
        # kind only a held value it is a retyping of ("*Porto" for Proto; facts.services).
        if said and not re.search(
            r"\b(?:number|email|mail|phone|mobile|address)\b", sentence, re.I
        ):
            said = [
                s if s.predicate in ("phone", "email") else replace(s, level="held") for s in said
            ]
        elif not said and not before.strip(" ,.!") and len(parts) == 1:
            said = retyped(replacement)  # the whole message: "typo - Siemens"
    if not said:
        return None
    return _without(pool, said), said


def _without(found: list[Statement], corrected: list[Statement]) -> list[Statement]:
    """``found`` without the statements ``corrected`` replaces: of a single-valued predicate
    all of them, of a multi-valued one the last."""
    kept = list(found)
    for item in corrected:
        if item.predicate in MULTI_VALUED:
            for index in range(len(kept) - 1, -1, -1):
                if kept[index].predicate == item.predicate and kept[index].value is not None:
                    kept.pop(index)
                    break
        else:
            kept = [s for s in kept if s.predicate != item.predicate]
    return kept
