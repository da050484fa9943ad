"""A change announced for a later date, taken back or moved, as people type it: "the move
is off", "we're not moving after all", "the job offer fell through", "staying put", "my
start date got pushed to August 3rd", "we move on the 20th instead".

What the sentence names (the move, the new job, the wedding) says which slots it is about;
the check applies it only to a change the agent holds for later in one of them
(facts.services.scheduling), so "the move is off" with nothing planned changes nothing."""

import re
from datetime import datetime

from language.extraction import traps
from language.extraction.dates import future_start
from language.extraction.statements import EXPLICIT, Statement

_PLACE = ("city", "country")
_JOB = ("employer", "job_title")
_LEAVING = ("employer", "city", "country")

# The thing announced, by the slots it changes.
_NOUNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"(?:big\s+|whole\s+|house\s+|)(?:move|moving\s+(?:day|date)|relocation|emigration)", _PLACE),
    (
        r"(?:new\s+)?(?:job(?:\s+offer)?|offer|role|position|contract|start(?:\s+date)?|"
        r"first\s+day|new\s+gig)",
        _JOB,
    ),
    (r"transfer", (*_JOB, *_PLACE)),
    (r"wedding", ("spouse",)),
)
_VERBS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"mov(?:e|ing)|relocat(?:e|ing)|emigrat(?:e|ing)", _PLACE),
    (r"start(?:ing)?|join(?:ing)?|switch(?:ing)?", _JOB),
    (r"leav(?:e|ing)|quit(?:ting)?|resign(?:ing)?", _LEAVING),
    (r"go(?:ing)?", (*_JOB, *_PLACE)),
    (r"marry(?:ing)?|getting\s+married", ("spouse",)),
)
# "the move", "our big move", "the Canva offer" (the change's value named before it).
_OWNER = (
    r"(?:the|my|our|that|this)\s+(?:(?!(?:new|big|whole|job)\b)(?P<target>[\w&.'-]+)\s+"
    r"(?=(?:move|relocation|job|offer|role|position|contract|start|transfer|wedding)\b))?"
)
_IS = r"(?:'s|\s+is|\s+was|\s+has\s+been|\s+got|\s+is\s+now|\s+just\s+got|\s+officially)?\s+"
_OFF = (
    r"(?:officially\s+|now\s+|totally\s+|completely\s+)?(?:off|cancell?ed|called\s+off|"
    r"scrapped|dead|not\s+happening|(?:been\s+)?(?:pulled|withdrawn|rescinded)|on\s+hold|"
    r"fell\s+through|falling\s+through|falls\s+through)\b(?!\s+(?:to|until|till)\b)"
)
_MOVED = (
    r"(?:now\s+)?(?:been\s+)?(?:pushed|moved|postponed|delayed|brought|pulled|rescheduled|"
    r"bumped|shifted|changed|put\s+off|set\s+back)(?:\s+(?:back|forward|out|up))?"
    r"\s+(?:to|until|till|til|for)\b"
)
_NEW_DATE = r"(?:'s|\s+is)\s+now\b"
_NOT = r"\b(?:i|we)(?:'m|'re|\s{1,3}am|\s{1,3}are)?\s{1,3}(?:not|no\s{1,3}longer)\s{1,3}"
_AFTER_ALL = r"\b(?:after\s+all|anymore|any\s+more|any\s+longer)\b"
_TARGET = (
    r"(?:\s{1,3}(?:(?:to|at|for|from|in)\s{1,3})?(?!(?:the|a|an|my|our|this|that)\b)"
    r"(?P<target>[\w&.'-]+(?-i:(?:\s+[A-Z][\w&.'-]+){0,3})))?"
)


# A rule: its pattern, the slots of the change it reads, and what it says of that change
# ("cancelled" or "moved").
_Rule = tuple[re.Pattern[str], tuple[str, ...], str]


def _noun_rules(noun: str, slots: tuple[str, ...]) -> list[_Rule]:
    """The change named by its noun: "the move is off", "my start date got pushed to August
    3rd", "the wedding is now in May", "we called off the move", "I turned down the offer"."""
    return [
        (re.compile(rf"\b{_OWNER}{noun}{_IS}{_OFF}", re.I), slots, "cancelled"),
        (re.compile(rf"\b{_OWNER}{noun}{_IS}{_MOVED}", re.I), slots, "moved"),
        (re.compile(rf"\b{_OWNER}{noun}{_NEW_DATE}", re.I), slots, "moved"),
        (
            re.compile(
                rf"\b(?:called|calling|call)\s+off\s+{_OWNER}{noun}\b"
                rf"|\b(?:cancell?ed|scrapped|turned\s+down|declined|pulled\s+out\s+of)\s+"
                rf"{_OWNER.replace('<target>', '<named>')}{noun}\b",
                re.I,
            ),
            slots,
            "cancelled",
        ),
    ]


def _verb_rules(verb: str, slots: tuple[str, ...]) -> list[_Rule]:
    """The change named by its verb."""
    return [
        # "we're not moving after all", "not leaving Acme anymore"
        (
            re.compile(
                rf"(?:{_NOT}|^(?:not|no\s+longer)\s+)(?:{verb})\b{_TARGET}\s{{0,3}},?\s{{0,3}}{_AFTER_ALL}",
                re.I,
            ),
            slots,
            "cancelled",
        ),
        # "we move on the 20th instead", "I'm starting in September instead"
        (
            re.compile(
                rf"\b(?:{verb})\s+(?:on|in|from|at\s+the|next|this|the|early|late|mid)\b"
                rf"[^.!?]{{0,40}}?\binstead\b",
                re.I,
            ),
            slots,
            "moved",
        ),
    ]


# "staying put", "decided to stay at Petrobras after all", "we're staying in Zurich"
_STAYING: list[_Rule] = [
    (re.compile(r"\bstay(?:ing)?\s+put\b", re.I), _PLACE, "cancelled"),
    (
        re.compile(
            r"\b(?:decided\s+to\s+stay|staying|stay(?:ing)?\s+on)\s+(?:at|with)\b.{0,60}?\bafter\s+all\b",
            re.I,
        ),
        _JOB,
        "cancelled",
    ),
    (
        re.compile(r"\b(?:decided\s+to\s+stay|staying)\s+in\b.{0,60}?\bafter\s+all\b", re.I),
        _PLACE,
        "cancelled",
    ),
]


def _rules() -> list[_Rule]:
    """Every rule, in the order they are tried: the nouns', then the verbs', then staying."""
    rules: list[_Rule] = []
    for noun, slots in _NOUNS:
        rules += _noun_rules(noun, slots)
    for verb, slots in _VERBS:
        rules += _verb_rules(verb, slots)
    return rules + _STAYING


_RULES = _rules()
_SENTENCE_MAX_CHARS = 300
_NAMED = re.compile(r"(?-i:[A-Z][\w&.'-]+(?:\s+[A-Z][\w&.'-]+){0,3})")


def rescheduled(sentence: str, *, now: datetime) -> list[Statement]:
    """What ``sentence`` takes back or moves of a change announced for later: one statement
    per slot it may be about, "cancelled", or "moved" with the new date (none found: not a
    move). Questions, hypotheticals and reported speech say nothing."""
    if len(sentence) > _SENTENCE_MAX_CHARS:
        return []  # said in a short sentence; a long run is no such message
    for pattern, slots, kind in _RULES:
        match = pattern.search(sentence)
        if match is None:
            continue
        if (
            traps.is_question(sentence)
            or traps.is_hypothetical(sentence)
            or traps.is_reported(sentence)
        ):
            return []
        evidence = sentence[match.start() :].strip()[:200]
        starts = None
        if kind == "moved":
            starts = future_start(sentence[match.start() :], now, future_tense=True)
            if starts is None:
                continue  # "the move got pushed" with no date: nothing to move it to
        target = match.groupdict().get("target") or match.groupdict().get("named")
        named = target if target and _NAMED.fullmatch(target) else None
        return [
            Statement(
                predicate=predicate,
                value=None,
                evidence=evidence,
                confidence=EXPLICIT,
                # A job title is changed with the employer it names: "not joining Stripe".
                ended=named if predicate != "job_title" else None,
                valid_from=starts,
                schedule=kind,
            )
            for predicate in slots
        ]
    return []
