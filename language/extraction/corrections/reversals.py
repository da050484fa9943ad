"""A reversal of taste: "I've gone off coffee", "can't stand running anymore", "tiktok is
rotting my brain, i hate it now", "I've come round on olives, I actually like them now". The
new like or dislike, with "it" read as what the sentence, or one before it, is about; the
check ends the opposite one the agent holds."""

import re

from language.extraction.grammar import FILLERS
from language.extraction.statements import LIKELY, NOT_A_VALUE, Statement, phrase, statement
from language.extraction.vocabulary import LANGUAGES, NOT_LIKES, STOP_WORDS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Where an item named after a verb of taste stops: "coffee completely", "biryani anymore
# after eid", "the karaoke anymore, before yes".
_ITEM_STOPS = STOP_WORDS | _words(
    """completely totally entirely honestly tbh genuinely really actually just even anymore
    any more these days now ever since because cos coz cuz after lately nowadays forever good
    again officially altogether myself either neither is are was were makes make made has have
    had does do doesn't don't dont doesnt can can't cant"""
)
# What a sentence is about when it opens on a thing: "tiktok is rotting my brain",
# "spicy food doesnt agree with me", "horror movies used to be my thing".
_TOPIC = re.compile(
    r"^(?:" + FILLERS + r"[,!.]?\s{1,3}){0,4}(?:the\s{1,3})?"
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


def named_item(raw: str) -> str | None:
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
        return named_item(given.group("v")) if given else None
    return named_item(topic)


def _object(match: re.Match[str], topic: str | None) -> str | None:
    raw = match.group("v").strip()
    first = raw.split()[0].lower() if raw.split() else ""
    if first in _PRONOUN or _SENSE.match(raw):
        return topic
    return named_item(raw)


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
        value = match and named_item(match.group("v"))
        if value:
            return value
    return _topic(sentence)
