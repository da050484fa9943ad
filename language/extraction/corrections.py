"""Changes of mind and corrections, read as operations on what was said before.

- A reversal of taste ("I've gone off coffee", "can't stand running anymore", "tiktok is
  rotting my brain, i hate it now", "I've come round on olives, I actually like them now")
  states the new preference; the check ends the opposite one the agent holds
  (facts/services/checking.py), so a like and a dislike of one thing never stand together.
- A correction replaces the value it corrects: inside one message ("I live in Graz. sorry,
  Linz", "data analyst, scratch that, data engineer") the corrected statement is dropped; of a
  value said earlier ("Slovak not Czech", "correction: it's Bergen, not Oslo") the new value is
  stated with the old one as ``ended``, so in a multi-valued slot the old item ends rather than
  a second one being added.
- An addition to a multi-valued slot ("add olives to the list of things I hate", "I know SQL
  too", "and Arabic, a bit") adds an item and ends nothing.
"""

import re
from collections.abc import Callable
from dataclasses import replace

from language.extraction.contacts import EMAIL
from language.extraction.dates import birthday_value
from language.extraction.statements import (
    LIKELY,
    MULTI_VALUED,
    NOT_A_VALUE,
    Statement,
    is_lowercase_text,
    phrase,
    proper_name,
    statement,
)
from language.extraction.vocabulary import (
    COUNTRIES,
    DIETS,
    JOB_WORDS,
    LANGUAGES,
    NOT_LIKES,
    STOP_WORDS,
)
from language.moments import MONTH_STEMS
from language.places import city
from language.values import normalised

Read = Callable[[str], list[Statement]]


# Where an item named after a verb of taste stops: "coffee completely", "biryani anymore
# after eid", "the karaoke anymore, before yes".
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ITEM_STOPS = STOP_WORDS | _words(
    """completely totally entirely honestly tbh genuinely really actually just even anymore
    any more these days now ever since because cos coz cuz after lately nowadays forever good
    again officially altogether myself either neither is are was were makes make made has have
    had does do doesn't don't dont doesnt can can't cant"""
)
_FILLERS = (
    r"(?:ok|okay|so|honestly|tbh|ugh|well|and|but|lol|yeah|omg|man|confession|update|"
    r"hmm|welp|oof|also|btw|ngl|wow|oh)"
)
# What a sentence is about when it opens on a thing: "tiktok is rotting my brain",
# "spicy food doesnt agree with me", "horror movies used to be my thing".
_TOPIC = re.compile(
    r"^(?:" + _FILLERS + r"[,!.]?\s{1,3}){0,4}(?:the\s{1,3})?"
    r"(?P<t>[a-z][\w'&+-]{0,30}(?:\s{1,3}[a-z][\w'&+-]{0,30}){0,2}?)\s{1,3}"
    r"(?:is|are|was|'s|just|really|honestly|genuinely|doesn't|doesnt|does\s+not|makes|bores|annoys|"
    r"irritates|disgusts|used\s+to|and\s+i|has|have|gives|tastes|smells)\b",
    re.I,
)
_NOT_TOPICS = (
    NOT_A_VALUE
    | NOT_LIKES
    | _words(
        """he she they there what which who everything nothing something life work today
        tonight everyone yesterday tomorrow this that these those my your our his her their"""
    )
)

# The speaker, said or left out: "I've gone off coffee", "went off gin", "cant stand X".
_ME = r"(?:\b(?:i|im|i'm|i've|ive|i\s+have|i\s+am)\s{1,3}|^|[,;]\s{0,3})"
_ADV = (
    r"(?:(?:just|really|actually|officially|totally|completely|kinda|kind\s+of|so|now|also|"
    r"even|genuinely|honestly|properly|right|fully)\s{1,3}){0,3}"
)
_OBJ = r"(?P<v>[^,.;!?]{1,80})"

# A dislike that is new: gone off X, can't stand X anymore, done with X, sick of X.
_DISLIKE = re.compile(
    _ME + _ADV + r"(?:"
    r"(?:'ve\s+|have\s+)?(?:gone|went|going)\s{1,3}" + _ADV + r"off"
    r"|(?:can't|cant|cannot|can\s+not|couldn't)\s{1,3}(?:stand|bear|stomach|handle|do)"
    r"|(?:hate|hates|dislike|detest|loathe|despise)"
    r"|(?:'m|am|im)?\s{0,3}(?:so\s+|really\s+|totally\s+|completely\s+)?"
    r"(?:done\s+with|over|sick\s+of|tired\s+of|fed\s+up\s+with)"
    r"|(?:don't|dont|do\s+not|not|no\s+longer)\s{1,3}(?:even\s+)?(?:like|enjoy|love)"
    r")\s{1,3}" + _OBJ,
    re.I,
)
# A taste said of the sentence's topic: "jazz just annoys me these days", "yoga is not for
# me anymore", "gin and I are no longer friends", "swimming is ruined for me".
_TOPIC_DISLIKE = re.compile(
    r"\b(?:annoys|bores|irritates|disgusts|repulses)\s+me"
    r"|\bmakes\s+me\s+(?:feel\s+)?(?:sick|ill|nauseous|gag)"
    r"|\b(?:is|are|'s)\s+(?:not|no\s+longer)\s+(?:for\s+me|my\s+thing)"
    r"|\band\s+i\s+are\s+(?:not|no\s+longer)\s+friends"
    r"|\b(?:is|are|'s)\s+ruined\s+for\s+me"
    r"|\b(?:doesn't|doesnt|does\s+not)\s+agree\s+with\s+me",
    re.I,
)
# A like that is new: "I've come round on olives", "X is growing on me".
_LIKE = re.compile(
    _ME + _ADV + r"(?:(?:'ve\s+|have\s+)?(?:come|came|coming)\s+(?:a)?round\s+(?:on|to)"
    r"|(?:love|like|enjoy|adore)|(?:'m|am|im)?\s{0,3}(?:really\s+)?(?:into|obsessed\s+with))"
    r"\s{1,3}" + _OBJ,
    re.I,
)
_TOPIC_LIKE = re.compile(r"\b(?:is|are|'s)\s+(?:really\s+)?growing\s+on\s+me\b", re.I)
# What makes a taste a change rather than a standing fact: "now", "anymore", "gone off".
_CHANGED = re.compile(
    r"\b(?:now|anymore|any\s+more|no\s+longer|these\s+days|nowadays|lately|used\s+to|"
    r"gone\s+off|went\s+(?:\w+\s+)?off|come\s+round|came\s+round|come\s+around|done\s+with|over|"
    r"officially|never\s+again|ruined|sick\s+of|fed\s+up|growing\s+on|actually|confession)\b",
    re.I,
)
# "can't stand the taste now": the taste of what the sentence is about.
_SENSE = re.compile(r"^the\s+(?:taste|smell|sight|sound|texture|thought|idea)\b", re.I)
_PEOPLE = (
    r"(?:mum|mom|mother|dad|father|brother|sister|friend|wife|husband|bf|gf|boyfriend|girlfriend|"
    r"partner|boss|son|daughter|kids?|cousin|aunt|uncle|neighbou?r|flatmate|roommate|colleague|"
    r"coworker|family|parents|grandma|grandpa|nan|nana|fianc[ée]e?|hubby|wifey|child|baby|team)"
)
_PRONOUN = frozenset({"it", "them", "that", "this", "those"})
# "I still hate olives, nothing's changed": a taste that stands, said again.
_STILL = re.compile(r"\bstill\b", re.I)


def _item(raw: str) -> str | None:
    value = phrase(raw, max_words=3, stops=_ITEM_STOPS)
    if value is None or value.lower() in NOT_LIKES or value.lower() in _NOT_TOPICS:
        return None
    return value


# What a sentence of taste is about when it opens on what the speaker gave up or cannot take:
# "gave up energy drinks, can't stand the taste now", "my stomach can't do spicy food".
_GIVEN_UP = re.compile(
    r"\b(?:switched\s+to|moved\s+on\s+to|discovered|tried|gave\s+up|given\s+up|quit|"
    # "i was wrong about podcasts, i love them now", "before I hated rain but now I like it"
    r"(?:was|were)\s+wrong\s+about|changed\s+my\s+mind\s+(?:about|on)|hated|loved|"
    r"used\s+to\s+(?:hate|love|like)|"
    r"stopped\s+(?:eating|drinking|doing)|can't\s+(?:do|handle|"
    r"take|eat|drink)|cant\s+(?:do|handle|take|eat|drink))\s{1,3}" + r"(?P<v>[^,.;!?]{1,80})",
    re.I,
)


def _topic(sentence: str) -> str | None:
    match = _TOPIC.match(sentence)
    topic = match.group("t") if match else None
    if topic is None or topic.split()[0].lower() in _NOT_TOPICS or topic.lower() in LANGUAGES:
        # "ok i was wrong about podcasts": no topic opens it; what it gave up or was wrong
        # about is the topic.
        given = _GIVEN_UP.search(sentence)
        return _item(given.group("v")) if given else None
    return _item(topic)


def _object(match: re.Match[str], topic: str | None) -> str | None:
    raw = match.group("v").strip()
    first = raw.split()[0].lower() if raw.split() else ""
    if first in _PRONOUN or _SENSE.match(raw):
        return topic
    return _item(raw)


def tastes(sentence: str, *, earlier: str | None = None) -> list[Statement]:
    """A change of taste the sentence states about the speaker: the new like or dislike, with
    "it"/"them" read as what the sentence (or ``earlier``, the thing a previous sentence of the
    message was about) is about. Nothing when no change is said."""
    if not _CHANGED.search(sentence) or re.search(
        r"\b(?:my|his|her|their|our)\s+(?:\w+\s+)?" + _PEOPLE + r"\s+(?:\w+\s+)?"
        r"(?:loves?|likes?|hates?|can't|cant|is|has|went|goes|got)\b",
        sentence,
        re.I,
    ):
        return []
    topic = _topic(sentence) or earlier
    found: list[Statement] = []
    for predicate, verb, said_of_topic in (
        ("dislikes", _DISLIKE, _TOPIC_DISLIKE),
        ("likes", _LIKE, _TOPIC_LIKE),
    ):
        if said_of_topic.search(sentence) and topic:
            found.append(statement(predicate, topic, sentence, LIKELY))
            continue
        for match in verb.finditer(sentence):
            value = _object(match, topic)
            if value:
                found.append(statement(predicate, value, match.group(0), LIKELY))
                break
    if len(found) == 2 and found[0].qualifier == found[1].qualifier:
        # "done with wine, i used to love it but now i hate it": the dislike is the news.
        found = [found[0]] if "used to" in sentence.lower() else found[1:]
    return found


def subject_of(sentence: str) -> str | None:
    """The thing a sentence of taste is about, for "it" in the next one."""
    for verb in (_DISLIKE, _LIKE):
        match = verb.search(sentence)
        value = match and _item(match.group("v"))
        if value:
            return value
    return _topic(sentence)


# "add olives to the list of things I hate", "add crochet to my skills".
_ADD = re.compile(
    r"\b(?:add|put)\s+(?P<v>[^,.;!?]{1,60}?)\s+(?:to|on)\s+(?:the|my)\s+"
    r"(?:(?:list|column|pile)\s+(?:of\s+)?)?(?P<what>[^,.;!?]{1,60})",
    re.I,
)
_HATE_WORDS = re.compile(
    r"\b(?:hate|dislike|can't stand|cant stand|loathe|ick|nope|avoid)\w*", re.I
)
_LOVE_WORDS = re.compile(r"\b(?:love|like|enjoy|favou?rite|adore|into)\w*", re.I)
_SKILL_WORDS = re.compile(r"\b(?:skills?|can do|abilities|cv|resume)\b", re.I)
_LANGUAGE_WORDS = re.compile(r"\blanguages?\b", re.I)


# "add Italian too", "oh and add Czech as well": the list named by the item's kind alone.
_ADD_TOO = re.compile(
    r"^(?:(?:oh|and|also|ok|pls|please)[,]?\s{1,3}){0,3}add\s{1,3}(?P<v>[^,.;!?]{1,40}?)"
    r"\s{1,3}(?:too|as\s+well|also)\s{0,3}[.!]{0,3}$",
    re.I,
)


def additions(clause: str) -> list[Statement]:
    """An item added to a list the speaker keeps: "add humidity to the list of things i hate"."""
    match = _ADD.search(clause)
    if not match:
        too = _ADD_TOO.match(clause.strip())
        if too and too.group("v").strip().lower() in LANGUAGES:
            value = too.group("v").strip().capitalize()
            return [statement("language", value, too.group(0).strip(), LIKELY)]
        return []
    what = match.group("what")
    value = phrase(match.group("v"), max_words=4)
    if not value or value.lower() in NOT_A_VALUE:
        return []
    if _LANGUAGE_WORDS.search(what) and value.lower() in LANGUAGES:
        predicate = "language"
    elif _SKILL_WORDS.search(what):
        predicate = "skill"
    elif _HATE_WORDS.search(what):
        predicate = "dislikes"
    elif _LOVE_WORDS.search(what):
        predicate = "likes"
    else:
        return []
    return [statement(predicate, value, match.group(0), LIKELY)]


# "I know SQL too", "i can do video editing too", "my japanese is pretty good now too",
# "been getting into birdwatching too", "loving afrobeats lately too".
_ALSO = re.compile(
    r"(?:^|\bi\s{1,3}|\bi've\s{1,3}|\bive\s{1,3})(?:also\s+)?(?:"
    r"(?P<skill>(?:know|can\s+do|can\s+use|learned|learnt|picked\s+up)\s+(?P<s>[^,.;!?]{1,60}?))"
    r"|(?P<like>(?:been\s+)?(?:getting|got)\s+(?:really\s+)?into\s+(?P<l>[^,.;!?]{1,60}?))"
    r"|(?P<loving>loving\s+(?P<l2>[^,.;!?]{1,60}?))"
    r")\s+(?:\w+\s+){0,2}?(?:too|as\s+well|also)\b"
    r"|^(?:and\s+|oh\s+and\s+)?my\s+(?P<lang>[a-z]+)\s+is\s+(?:\w+\s+){0,3}?"
    r"(?:good|decent|fluent|ok|okay|solid|not\s+bad)\b",
    re.I,
)
# "and Arabic, a bit", "oh and Farsi too": a language named alone, added to the list.
_ALSO_LANGUAGE = re.compile(
    r"^(?:(?:oh|ah|plus)\s+)?(?:and|also|plus)\s+(?:some\s+|a\s+bit\s+of\s+|a\s+little\s+)?"
    r"(?P<v>[a-z]+)(?:\s+(?:too|as\s+well|also))?\s*(?:[,.!]|$)",
    re.I,
)


def also(clause: str) -> list[Statement]:
    match = _ALSO.search(clause)
    if match:
        if match.group("lang"):
            lang = match.group("lang")
            if lang.lower() not in LANGUAGES:
                return []
            return [statement("language", lang.capitalize(), match.group(0), LIKELY)]
        raw = match.group("s") or match.group("l") or match.group("l2")
        value = _item(raw)
        if not value:
            return []
        if match.group("skill"):
            predicate = "language" if value.lower() in LANGUAGES else "skill"
            if predicate == "language":
                value = value.capitalize()
        else:
            predicate = "likes"
        return [statement(predicate, value, match.group(0), LIKELY)]
    match = _ALSO_LANGUAGE.match(clause.strip())
    if match and match.group("v").lower() in LANGUAGES:
        return [statement("language", match.group("v").capitalize(), match.group(0), LIKELY)]
    return []


# "left Grab and joined Gojek": the ending and the new value, both said.
_LEFT_AND = re.compile(
    r"^(?P<first>[^,;.!?]{0,60}?\b(?:left|quit)\s[^,;.!?]{1,60}?)\s+and\s+(?:then\s+|now\s+|just\s+)?"
    r"(?P<second>(?:joined|started|moved|signed|relocated)\b[^.!?]{1,200})",
    re.I,
)


def left_and_joined(sentence: str, read: Read) -> list[Statement]:
    match = _LEFT_AND.match(sentence)
    if not match:
        return []
    first, second = read(match.group("first")), read(match.group("second"))
    return first + second if first and second else []


# ---- corrections ------------------------------------------------------------------------

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
    r"^(?:" + _FILLERS + r"[,!.]?\s{1,3}){0,3}not\s{1,3}(?:an?\s+|the\s+)?(?P<b>[^,;.!?]{1,60}?)"
    r"\s{0,3}[,;:]\s{0,3}(?:it's\s+|its\s+|it\s+is\s+)?(?P<a>[^,;.!?]{1,80})",
    re.I,
)
_LEAD = re.compile(
    r"^(?:(?:it's|its|it\s+is|that's|thats|i'm|im|i\s+am|i\s+meant?|the\s+right\s+one\s+is|"
    r"the\s+new\s+one\s+is|actually|just|mine's|mine\s+is|she's|he's|oh|and|so|ok|okay|"
    r"ugh|well|wait|in|at)[,!]?\s{1,3})+",
    re.I,
)
_TAIL = re.compile(r"(?:\s{1,3}(?:actually|then|lol|haha|tho|though|btw|really)){1,4}$", re.I)
_DENIED = re.compile(r"\b(?:not|never|isn't|isnt|aren't|wasn't|no\s+longer)\b|n't\b", re.I)
_NAMED_SINGLE = ("employer", "city", "country", "job_title", "spouse", "partner")
_MONTHS = re.compile(rf"^(?:{MONTH_STEMS})[a-z]*$", re.I)


def bare_value(raw: str, *, hint: str | None = None) -> list[Statement]:
    """What a value said alone is, by its form or its word list: an email, a phone number, a
    date, a language, a diet, a country, a city, a job. ``hint``: the predicate the value
    stands in for, when the text said it before."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    if not raw or _DENIED.search(raw):
        return []  # "No, my email isn't sam@example.com": what it is not
    evidence = raw
    email = EMAIL.search(raw)
    if email:
        return [statement("email", email.group(0), evidence, 1.0)]
    if re.match(r"^\+?[\d][\d ()./-]{6,24}\d$", raw):
        phone = normalised("phone", raw)
        return [statement("phone", phone, evidence, 1.0)] if phone else []
    if hint in (None, "birthday"):
        born = birthday_value(raw)
        if born and re.search(r"\d", raw):
            return [statement("birthday", born, evidence, 1.0)]
    if hint is not None:
        # Said in place of a value of a known slot: the value runs to the first stop word
        # ("data engineer since the reorg").
        words = []
        for word in raw.split():
            if word.lower() in STOP_WORDS:
                break
            words.append(word)
        raw = evidence = " ".join(words)
    if re.match(r"^(?:not|no|never)\b", raw, re.I):
        return []
    words = raw.split()
    if not words or len(words) > 4:
        return []
    lowered = raw.lower()
    head = words[-1].lower()
    if lowered in LANGUAGES and hint in (None, "language"):
        return [statement("language", raw.capitalize(), evidence, LIKELY)]
    if lowered in DIETS and hint in (None, "diet"):
        return [statement("diet", lowered, evidence, 1.0)]
    if hint in ("diet", "language", "email", "phone", "birthday"):
        return []
    if hint == "job_title" or (hint is None and head in JOB_WORDS):
        value = " ".join(w for w in words if w.lower() not in {"a", "an", "the"})
        return [statement("job_title", value, evidence, 1.0)] if head in JOB_WORDS else []
    name = proper_name(raw, lenient=is_lowercase_text(raw))
    if not name:
        return []
    if hint is not None and hint not in ("city", "country"):
        if hint in MULTI_VALUED and hint not in ("pet", "child"):
            return []
        return [statement(hint, name, evidence, 1.0)]
    if name.lower() in COUNTRIES:
        return [statement("country", name, evidence, 1.0)]
    if hint == "city" or (hint is None and name[:1].isupper() and city(name)):
        return [statement("city", name, evidence, 1.0)]
    return []


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
    return _candidates(a, b) or None


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
        named = _candidates(re.sub(r"^\S+\s+(?:is\s+|name\s+is\s+)?", "", a), old)
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
            found = bare_value(a, hint=kind) or _after_marker_value(a) or _said_as(a)
    else:
        found = read(a) or bare_value(a, hint=kind)
    if kind is not None:
        found = [s for s in found if s.predicate == kind]
    elif not found:
        return _candidates(a, old) or None
    if not found:
        return None
    if _MONTHS.match(old.split()[0]) and not any(s.predicate == "birthday" for s in found):
        return None
    return [_held_like(s, old) for s in found if s.value is not None]


# "the bank I work for is Starling": the slot a value is said to fill, by the words before it.
_SLOT_WORDS = (
    ("job_title", re.compile(r"\b(?:job\s+title|title|role|position)\b", re.I)),
    (
        "employer",
        re.compile(
            r"\b(?:work|works|working|company|employer|bank|firm|shop|store|office)\b", re.I
        ),
    ),
    ("email", re.compile(r"\b(?:e-?mail)\b", re.I)),
    ("phone", re.compile(r"\b(?:number|phone|mobile|cell)\b", re.I)),
    ("birthday", re.compile(r"\b(?:birthday|bday|b-day|born)\b", re.I)),
    ("partner", re.compile(r"\b(?:bf|gf|boyfriend|girlfriend|partner|fianc[ée]e?)\b", re.I)),
    ("spouse", re.compile(r"\b(?:husband|wife|hubby|wifey|spouse)\b", re.I)),
    ("city", re.compile(r"\b(?:live|living|city|town|based)\b", re.I)),
    ("country", re.compile(r"\bcountry\b", re.I)),
)
_IS = re.compile(r"^(?P<what>.{1,80}?)\s(?:is|'s|are)\s{1,3}(?P<v>[^,;]{1,60})$", re.I)


def _said_as(raw: str) -> list[Statement]:
    match = _IS.match(raw.strip())
    if not match or not re.search(r"\b(?:i|my|i'm|im)\b", match.group("what"), re.I):
        return []
    for predicate, words in _SLOT_WORDS:
        if words.search(match.group("what")):
            return bare_value(match.group("v"), hint=predicate)
    return []


def _candidates(raw: str, old: str) -> list[Statement]:
    """A name said in place of another ("Estela, not Estrella"), its kind unsaid: one
    statement for each slot a name may fill, each holding only where ``old`` is held."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    name = proper_name(raw)
    if not name or len(raw.split()) > 4 or not old[:1].isupper():
        return []
    return [
        replace(statement(predicate, name, raw, 1.0), ended=old, level="candidate")
        for predicate in (*_NAMED_SINGLE, "pet", "child")
    ]


def retyped(raw: str) -> list[Statement]:
    """A name said alone as a correction ("typo - Siemens"), its kind unsaid: one statement
    for each single-valued slot a name may fill, each holding only where the agent holds a
    value it is a retyping of."""
    raw = _TAIL.sub("", _LEAD.sub("", raw.strip(" *.!-")).strip(" *.!"))
    name = proper_name(raw, lenient=is_lowercase_text(raw))
    if not name or len(raw.split()) > 4:
        return []
    return [
        replace(statement(predicate, name, raw, 1.0), level="candidate")
        for predicate in _NAMED_SINGLE
    ]


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
