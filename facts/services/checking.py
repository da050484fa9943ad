"""Checking new text against what an agent holds about a user: which facts it contradicts,
confirms or adds, and, when asked, applying that through the fact services.

The cascade: "pattern" (the extractor's explicit statements and change phrasings), then
"semantic" (an extracted predicate the agent keeps under its own name, by meaning), then
"value" (a plain statement compared with the current value of its slot). Only facts that are
current and whose valid window holds at ``now`` count as what the agent holds.
"""

import re
from dataclasses import dataclass, replace
from datetime import datetime
from difflib import SequenceMatcher
from enum import StrEnum
from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.metrics import count_facts_learned
from facts.models import (
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    USER_SUBJECT,
    Fact,
    SourceKind,
    Status,
)
from facts.predicate_meaning import map_predicates
from facts.queries import fact_detail
from facts.rules import category_for, trust_key
from facts.services.asserting import assert_fact
from facts.services.claims import Claim, SourceInput, check_source
from facts.services.ending import end_fact
from facts.services.scheduling import cancel_change, move_change
from language.extraction import Statement
from language.extraction.llm import get_extractor
from language.text import normalise_value
from language.values import normalised
from tenancy.models import Agent
from tenancy.validation import REASON_MAX_CHARS, clean_text, nfc_user

# Statements are about the speaker: the user the text comes from.
SUBJECT = USER_SUBJECT
TEXT_MAX_CHARS = 20_000
# What a checked text is learned from when the caller does not say: most text an agent
# checks is a turn of a conversation it is summarising.
DEFAULT_SOURCE_KIND = SourceKind.CONVERSATION_SUMMARY
# A phrasing that says the value changed ("moved to", "joined", "my new job"): the pattern
# level found the contradiction; a plain "I work at X" is found by comparing values.
CHANGE = re.compile(
    r"\b(?:mov\w*|relocat\w*|join\w*|start\w*|began|new|got|hired|became|become|promoted|"
    r"went|gone|turned|married|now|switch\w*|'ll|will)\b",
    re.IGNORECASE,
)


class Action(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    END = "END"
    CONFIRM = "CONFIRM"
    DISPUTE = "DISPUTE"
    # A change held for a later date, called off or moved to another date.
    CANCEL = "CANCEL"
    RESCHEDULE = "RESCHEDULE"
    NONE = "NONE"


class Level(StrEnum):
    PATTERN = "pattern"
    SEMANTIC = "semantic"
    VALUE = "value"


@dataclass(frozen=True)
class Finding:
    """One statement of the text against its slot. ``statement`` carries the slot's
    predicate and qualifier as the agent stores them; ``fact`` is the slot's current fact."""

    statement: Statement
    action: Action
    fact: Fact | None
    level: Level

    @property
    def contradicts(self) -> bool:
        return self.action in {
            Action.UPDATE,
            Action.DISPUTE,
            Action.END,
            Action.CANCEL,
            Action.RESCHEDULE,
        }


@dataclass(frozen=True)
class Applied:
    action: Action
    outcome: str
    fact: Fact


@dataclass(frozen=True)
class CheckResult:
    user: str
    findings: list[Finding]
    applied: list[Applied]

    @property
    def contradicted(self) -> list[Finding]:
        return [f for f in self.findings if f.contradicts]

    @property
    def confirmed(self) -> list[Finding]:
        return [f for f in self.findings if f.action == Action.CONFIRM]

    @property
    def new(self) -> list[Finding]:
        return [f for f in self.findings if f.action == Action.ADD]


def _normalised(statements: list[Statement]) -> list[Statement]:
    """Each value in its stored form (facts.values: a phone number as E.164, an email
    lower-cased), so it compares with the facts held and is stored as the API stores it; a
    statement whose value is no value of its predicate (a number no phone can have) says
    nothing. Whatever extractor read the text (rules or a model)."""
    kept = []
    for statement in statements:
        if statement.value is not None:
            value = normalised(statement.predicate, statement.value)
            if value is None:
                continue
            statement = replace(statement, value=value)
        if statement.ended is not None:
            ended = normalised(statement.predicate, statement.ended) or statement.ended
            statement = replace(statement, ended=ended)
        kept.append(statement)
    return kept


def held_facts(*, agent: Agent, user: str, now: datetime) -> dict[tuple[str, str], Fact]:
    """The user's facts the agent holds at ``now``, by (predicate, qualifier): those that hold
    in the world then (Fact.objects.holding_at: a fact that stopped holding in 2021 is not
    the user's employer; one replaced from next month still is)."""
    facts = (
        Fact.objects.filter(agent=agent, user_ref=user, subject=SUBJECT)
        .holding_at(now)
        .select_related("agent")
        .order_by("id")
    )
    return {(f.predicate, f.qualifier): f for f in facts}


def _semantic(statements: list[Statement], held: dict[tuple[str, str], Fact]) -> dict[str, str]:
    """{vocabulary predicate: the agent's own predicate of the same meaning}, for the
    single-valued predicates the text speaks of and the agent keeps under another name."""
    spoken = {s.predicate for s in statements if not s.qualifier}
    used = {predicate for predicate, _qualifier in held}
    unmatched = spoken - used
    own = [p for (p, qualifier) in held if not qualifier and p not in spoken]
    if not unmatched or not own:
        return {}
    mapped = map_predicates(own)
    return {ours: theirs for theirs, (ours, _score) in mapped.items() if ours in unmatched}


def _judge(statement: Statement, fact: Fact | None, level: Level) -> tuple[Action, Level]:
    if statement.is_ending:
        ended = statement.ended
        if fact is not None and (ended is None or _names(ended, fact.value)):
            return Action.END, level if level == Level.SEMANTIC else Level.PATTERN
        return Action.NONE, Level.PATTERN
    assert statement.value is not None
    if statement.ended is not None and (fact is None or not _names(statement.ended, fact.value)):
        return Action.NONE, Level.PATTERN  # a swap for the slot that holds the other value
    changed = bool(CHANGE.search(statement.evidence))
    if level != Level.SEMANTIC:
        level = Level.PATTERN if changed else Level.VALUE
    if fact is None:
        return Action.ADD, Level.PATTERN
    if normalise_value(statement.value) == normalise_value(fact.value):
        return Action.CONFIRM, level
    if trust_key(statement.verification, statement.confidence) >= trust_key(
        fact.verification, fact.confidence
    ):
        return Action.UPDATE, level
    return Action.DISPUTE, level


def pending_changes(*, agent: Agent, user: str, now: datetime) -> dict[tuple[str, str], Fact]:
    """The changes the agent holds for later, by slot: current facts that only hold from
    after ``now`` ("from August I'll be at Stripe")."""
    facts = Fact.objects.filter(
        agent=agent, user_ref=user, subject=SUBJECT, status=Status.CURRENT, valid_from__gt=now
    ).select_related("agent")
    return {(f.predicate, f.qualifier): f for f in facts}


def _rescheduled(
    items: list[Statement],
    others: list[Statement],
    held: dict[tuple[str, str], Fact],
    pending: dict[tuple[str, str], Fact],
) -> list[Finding]:
    """ "the move is off", "my start got pushed to August 3": a change held for later in a
    slot the text names (and of the value it names, if any) is called off or moved. A slot
    the text gives a new value of is left to that value ("the move is off, we're going to
    Lyon instead"); one it only says the held value of ("... we're staying in Zurich") is not."""
    found = []
    for item in items:
        key = (item.predicate, item.qualifier)
        fact = pending.get(key)
        if fact is None or (item.ended is not None and not _names(item.ended, fact.value)):
            continue
        before = held.get(key)
        if any(
            (o.predicate, o.qualifier) == key
            and not (
                o.value and before and normalise_value(o.value) == normalise_value(before.value)
            )
            for o in others
        ):
            continue
        if item.schedule == "moved":
            if item.valid_from is None or item.valid_from == fact.valid_from:
                continue
            said = replace(item, value=fact.value, ended=None)
            found.append(
                Finding(statement=said, action=Action.RESCHEDULE, fact=fact, level=Level.PATTERN)
            )
        else:
            said = replace(item, ended=fact.value, valid_from=None)
            found.append(
                Finding(statement=said, action=Action.CANCEL, fact=fact, level=Level.PATTERN)
            )
    return found


def _retyping(said: str, held: str) -> float:
    """How much ``said`` reads as ``held`` typed again ("Porto" for "Proto"): 0 when not."""
    said, held = normalise_value(said), normalise_value(held)
    if said == held or min(len(said), len(held)) < 3:
        return 0.0
    ratio = SequenceMatcher(None, said, held).ratio()
    return ratio if ratio >= _RETYPED_RATIO else 0.0


_RETYPED_RATIO = 0.7


def _corrections_of_held(
    statements: list[Statement], held: dict[tuple[str, str], Fact]
) -> list[Statement]:
    """A value said alone as a correction, naming no slot (corrections.py): of a known kind
    ("actually it's Rotterdam", a city) it corrects that slot only if the agent holds one;
    of no known kind ("typo - Siemens") only the held value it retypes best, if any."""
    kept = [s for s in statements if s.ended is not None or s.level not in ("held", "candidate")]
    for item in statements:
        if item.ended is None and item.level == "held" and (item.predicate, "") in held:
            kept.append(replace(item, level=Level.PATTERN))
    scored = [
        (_retyping(item.value, held[(item.predicate, "")].value), item)
        for item in statements
        if item.ended is None
        and item.level == "candidate"
        and item.value is not None
        and (item.predicate, "") in held
    ]
    best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
    if best[1] is not None and best[0] > 0:
        kept.append(replace(best[1], level=Level.PATTERN))
    return kept


def find(
    statements: list[Statement],
    held: dict[tuple[str, str], Fact],
    pending: dict[tuple[str, str], Fact] | None = None,
) -> list[Finding]:
    """Each statement against its slot; for a single-valued slot the text's last word on it
    counts, except that an ending before a later dated value keeps both ("I left Paystack.
    Starting at Moniepoint on March 1": no employer until then). ``pending``: the changes
    held for later (pending_changes), which the text may call off or move."""
    schedules = [s for s in statements if s.schedule]
    statements = _corrections_of_held([s for s in statements if not s.schedule], held)
    rescheduled = _rescheduled(schedules, statements, held, pending or {})
    renamed = _semantic(statements, held)
    last: dict[tuple[str, str], Statement] = {}
    ended: dict[tuple[str, str], Statement] = {}
    for item in statements:
        key = (item.predicate, item.qualifier)
        if item.qualifier or not item.is_ending:
            last[key] = item
        else:
            last.setdefault(key, item)
            ended.setdefault(key, item)
    findings = []
    for key, item in list(last.items()):
        if item.qualifier and item.value is not None and item.ended is not None:
            # A correction of one item of a list ("Slovak not Czech"): the item it names ends.
            del last[key]
            findings += _corrected_item(item, held)
    for key, item in last.items():
        ending = ended.get(key)
        if ending is not None and _ends_before(ending, item):
            first = _finding(ending, held, renamed)
            if first.action == Action.END:
                findings += [first, _finding(item, held, renamed, slot_ended=True)]
                continue
        findings.append(_finding(item, held, renamed))
    findings += _married_partners(findings, held)
    return findings + _opposites(findings, held) + rescheduled


def _names(said: str, held: str) -> bool:
    """Whether a value the text names as the old one ("Northgate", "gmail") is the one held
    ("Northgate Pharmacy", "anna.berg@gmail.com"): the same, or its words among the held's."""
    said, held = normalise_value(said), normalise_value(held)
    if said == held:
        return True
    words = set(re.findall(r"\w+", said))
    return bool(words) and words <= set(re.findall(r"\w+", held))


def _corrected_item(item: Statement, held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """ "Slovak not Czech" said of language[czech]: that item ends and language[slovak] is
    added; a correction naming no item held is a plain statement, and a name whose kind the
    text left unsaid ("Estela, not Estrella") counts only where the old name is held."""
    assert item.ended is not None
    old = next(
        (
            fact
            for (predicate, qualifier), fact in held.items()
            if predicate == item.predicate and qualifier and _names(item.ended, fact.value)
        ),
        None,
    )
    plain = replace(item, ended=None)
    if old is None:
        if item.level == "candidate":
            return []
        return [_finding(plain, held, {})]
    found = []
    if normalise_value(old.value) != normalise_value(item.value or ""):
        ending = replace(item, value=None, qualifier=old.qualifier, level=Level.PATTERN)
        found.append(Finding(statement=ending, action=Action.END, fact=old, level=Level.PATTERN))
    return [*found, _finding(replace(plain, level=Level.PATTERN), held, {})]


# A like and a dislike of one thing never both stand: the newer one ends the other.
_OPPOSITE = {"likes": "dislikes", "dislikes": "likes"}


def _opposites(findings: list[Finding], held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """ "I've gone off coffee" (a new dislike of coffee) ends likes[coffee]; "I love olives
    now" ends dislikes[olives]."""
    spoken = {(f.statement.predicate, f.statement.qualifier) for f in findings}
    ended = []
    for finding in findings:
        item = finding.statement
        if item.predicate not in _OPPOSITE or finding.action != Action.ADD:
            continue
        key = (_OPPOSITE[item.predicate], item.qualifier)
        fact = held.get(key)
        if fact is None or key in spoken:
            continue
        spoken.add(key)
        ending = replace(item, predicate=key[0], value=None, ended=fact.value)
        ended.append(Finding(statement=ending, action=Action.END, fact=fact, level=finding.level))
    return ended


def _ends_before(ending: Statement, item: Statement) -> bool:
    return (
        item is not ending
        and item.valid_from is not None
        and (ending.valid_from is None or ending.valid_from < item.valid_from)
    )


def _finding(
    item: Statement,
    held: dict[tuple[str, str], Fact],
    renamed: dict[str, str],
    *,
    slot_ended: bool = False,
) -> Finding:
    """One statement judged against the slot's fact (none once the text has ended it)."""
    level = Level.PATTERN
    if item.predicate in renamed:
        item = replace(item, predicate=renamed[item.predicate], level=Level.SEMANTIC)
        level = Level.SEMANTIC
    fact = None if slot_ended else held.get((item.predicate, item.qualifier))
    action, level = _judge(item, fact, level)
    return Finding(statement=replace(item, level=level), action=action, fact=fact, level=level)


def _married_partners(findings: list[Finding], held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """Marrying one's partner makes them a spouse and no longer a partner: "Dara and I got
    married" ends partner = Dara (a partner of another name is left for the text to settle)."""
    partner = held.get(("partner", ""))
    if partner is None or any(f.statement.predicate == "partner" for f in findings):
        return []
    for finding in findings:
        item = finding.statement
        if (
            item.predicate == "spouse"
            and item.value is not None
            and finding.action in (Action.ADD, Action.UPDATE)
            and normalise_value(item.value) == normalise_value(partner.value)
        ):
            ended = replace(item, predicate="partner", value=None, ended=partner.value)
            return [Finding(statement=ended, action=Action.END, fact=partner, level=finding.level)]
    return []


def _apply(
    finding: Finding, *, agent: Agent, user: str, source: SourceInput, actor: str, now: datetime
) -> Applied | None:
    item = finding.statement
    if finding.action == Action.NONE:
        return None
    held_only = finding.fact is not None and finding.fact.status != Status.CURRENT
    if held_only and finding.action in (Action.CONFIRM, Action.END):
        # A value that still holds until a later one takes over ("I join Canva next month"):
        # confirming it changes nothing, and the change already says when it ends.
        return None
    if finding.action in (Action.CANCEL, Action.RESCHEDULE):
        assert finding.fact is not None
        reason = f"{item.schedule}: {item.evidence}"[:REASON_MAX_CHARS]
        if finding.action == Action.CANCEL:
            restored = cancel_change(fact=finding.fact, actor=actor, reason=reason, at=now)
            return Applied(
                action=finding.action, outcome="cancelled", fact=restored or finding.fact
            )
        assert item.valid_from is not None
        moved = move_change(
            fact=finding.fact, starts=item.valid_from, actor=actor, reason=reason, at=now
        )
        return Applied(action=finding.action, outcome="moved", fact=moved)
    if finding.action == Action.END:
        assert finding.fact is not None
        fact = end_fact(
            fact=finding.fact,
            actor=actor,
            at=item.valid_from or now,
            reason=f"ended: {item.evidence}"[:REASON_MAX_CHARS],
        )
        return Applied(action=finding.action, outcome="ended", fact=fact)
    assert item.value is not None
    claim = Claim(
        user=user,
        subject=SUBJECT,
        predicate=item.predicate,
        qualifier=item.qualifier,
        value=item.value,
        verification=item.verification,
        confidence=item.confidence,
        valid_from=item.valid_from,
    )
    result = assert_fact(
        agent=agent,
        claim=claim,
        source=replace(source, excerpt=item.evidence[:EXCERPT_MAX_CHARS]),
        actor=actor,
    )
    return Applied(action=finding.action, outcome=str(result.outcome), fact=result.fact)


# The years a text can be said in (its "now"); the dates it names are read from that.
NOW_YEARS = (1000, 9000)


def check_text(
    *,
    agent: Agent,
    user: str,
    text: str,
    actor: str,
    apply: bool = False,
    source: SourceInput | None = None,
    now: datetime | None = None,
) -> CheckResult:
    """What ``text`` (the user's own words) contradicts, confirms and adds among the facts
    ``agent`` holds about ``user``, with a suggested action for each. Without ``apply``
    nothing is written. With ``apply`` every action goes through the fact services (the
    trust rules decide supersede or dispute; an ending ends the fact) and each fact learned
    cites ``source`` with the words it came from as excerpt; all of it or nothing."""
    user = nfc_user(clean_text(user, field="user", max_chars=KEY_MAX_CHARS))
    text = clean_text(text, field="text", max_chars=TEXT_MAX_CHARS)
    source, _memory = check_source(
        agent=agent, source=source or SourceInput(kind=DEFAULT_SOURCE_KIND)
    )
    now = now or timezone.now()
    if timezone.is_naive(now):
        raise InvalidInput("now", "must carry a time zone")
    if not NOW_YEARS[0] <= now.year <= NOW_YEARS[1]:
        # "tomorrow", "next month", "in two years" are read from it: near the ends of the
        # calendar they would fall off it.
        raise InvalidInput(
            "now",
            f"must fall in the years {NOW_YEARS[0]} to {NOW_YEARS[1]}: relative dates in "
            "the text are read from it",
            code="invalid_time",
        )
    statements = _normalised(get_extractor()(text, now=now))
    findings = find(
        statements,
        held_facts(agent=agent, user=user, now=now),
        pending_changes(agent=agent, user=user, now=now),
    )
    applied: list[Applied] = []
    if apply:
        with transaction.atomic():
            for finding in findings:
                done = _apply(finding, agent=agent, user=user, source=source, actor=actor, now=now)
                if done is not None:
                    applied.append(done)
    count_facts_learned(len(applied))
    return CheckResult(user=user, findings=findings, applied=applied)


def check_result_to_dict(result: CheckResult) -> dict[str, Any]:
    """The answer of ``POST /v1/facts/check`` (and of the CLI's ``--json``). Facts are shown
    as ``GET /v1/facts/{id}`` shows them, as they stand after any apply."""
    details: dict[int, dict[str, Any]] = {}

    def detail(fact: Fact) -> dict[str, Any]:
        if fact.pk not in details:
            details[fact.pk] = fact_detail(fact)
        return details[fact.pk]

    contradicted = []
    confirmed = []
    new = []
    for finding in result.findings:
        item = finding.statement
        if finding.contradicts and finding.fact is not None:
            contradicted.append(
                {
                    "fact": detail(finding.fact),
                    "predicate": item.predicate,
                    "qualifier": item.qualifier,
                    "old_value": finding.fact.value,
                    "new_value": item.value,
                    # When the change takes effect, if later than now ("next month").
                    "valid_from": item.valid_from,
                    "evidence": item.evidence,
                    "confidence": item.confidence,
                    "level": finding.level,
                }
            )
        elif finding.action == Action.CONFIRM and finding.fact is not None:
            confirmed.append(
                {
                    "fact": detail(finding.fact),
                    "evidence": item.evidence,
                    "confidence": item.confidence,
                    "level": finding.level,
                }
            )
        elif finding.action == Action.ADD:
            new.append(
                {
                    "subject": SUBJECT,
                    "predicate": item.predicate,
                    "qualifier": item.qualifier,
                    "value": item.value,
                    "category": category_for(item.predicate),
                    "verification": item.verification,
                    "confidence": item.confidence,
                    "evidence": item.evidence,
                    "valid_from": item.valid_from,
                    "level": finding.level,
                }
            )
    return {
        "contradicted": contradicted,
        "confirmed": confirmed,
        "new": new,
        "suggested_actions": [
            {
                "action": f.action,
                "fact_id": f.fact.pk if f.fact is not None else None,
                "predicate": f.statement.predicate,
                "qualifier": f.statement.qualifier,
                "value": f.statement.value,
                "valid_from": f.statement.valid_from,
            }
            for f in result.findings
            # An ending of a slot the agent holds nothing in says nothing.
            if f.action != Action.NONE or f.fact is not None
        ],
        "applied": [
            {"action": a.action, "outcome": a.outcome, "fact": detail(a.fact)}
            for a in result.applied
        ],
    }
