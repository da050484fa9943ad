"""Checking new text against what an agent holds about a user: which facts it contradicts,
confirms or adds (facts.findings judges each statement), and, when asked, applying that
through the fact services. Only facts that are current and whose valid window holds at
``now`` count as what the agent holds.
"""

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.metrics import count_facts_learned
from facts.findings import Action, Finding, find
from facts.models import (
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    USER_SUBJECT,
    Fact,
    SourceKind,
    Status,
)
from facts.queries import fact_detail
from facts.rules import category_for
from facts.services.asserting import assert_fact
from facts.services.claims import Claim, SourceInput, check_source
from facts.services.ending import end_fact
from facts.services.scheduling import cancel_change, move_change
from language.extraction import Statement
from language.extraction.llm import get_extractor
from language.values import normalised
from tenancy.models import Agent
from tenancy.validation import REASON_MAX_CHARS, clean_text, nfc_user

# Statements are about the speaker: the user the text comes from.
SUBJECT = USER_SUBJECT
TEXT_MAX_CHARS = 20_000
# What a checked text is learned from when the caller does not say: most text an agent
# checks is a turn of a conversation it is summarising.
DEFAULT_SOURCE_KIND = SourceKind.CONVERSATION_SUMMARY


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


def pending_changes(*, agent: Agent, user: str, now: datetime) -> dict[tuple[str, str], Fact]:
    """The changes the agent holds for later, by slot: current facts that only hold from
    after ``now`` ("from August I'll be at Stripe")."""
    facts = Fact.objects.filter(
        agent=agent, user_ref=user, subject=SUBJECT, status=Status.CURRENT, valid_from__gt=now
    ).select_related("agent")
    return {(f.predicate, f.qualifier): f for f in facts}


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
        if finding.contradicts and finding.fact is not None:
            contradicted.append(
                _contradiction(finding, fact=finding.fact, shown=detail(finding.fact))
            )
        elif finding.action == Action.CONFIRM and finding.fact is not None:
            confirmed.append(_confirmation(finding, shown=detail(finding.fact)))
        elif finding.action == Action.ADD:
            new.append(_addition(finding))
    return {
        "contradicted": contradicted,
        "confirmed": confirmed,
        "new": new,
        "suggested_actions": [
            _suggested_action(f)
            for f in result.findings
            # An ending of a slot the agent holds nothing in says nothing.
            if f.action != Action.NONE or f.fact is not None
        ],
        "applied": [
            {"action": a.action, "outcome": a.outcome, "fact": detail(a.fact)}
            for a in result.applied
        ],
    }


def _contradiction(finding: Finding, *, fact: Fact, shown: dict[str, Any]) -> dict[str, Any]:
    """A finding that contradicts ``fact`` (shown as the API shows it)."""
    item = finding.statement
    return {
        "fact": shown,
        "predicate": item.predicate,
        "qualifier": item.qualifier,
        "old_value": fact.value,
        "new_value": item.value,
        # When the change takes effect, if later than now ("next month").
        "valid_from": item.valid_from,
        "evidence": item.evidence,
        "confidence": item.confidence,
        "level": finding.level,
    }


def _confirmation(finding: Finding, *, shown: dict[str, Any]) -> dict[str, Any]:
    item = finding.statement
    return {
        "fact": shown,
        "evidence": item.evidence,
        "confidence": item.confidence,
        "level": finding.level,
    }


def _addition(finding: Finding) -> dict[str, Any]:
    item = finding.statement
    return {
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


def _suggested_action(finding: Finding) -> dict[str, Any]:
    return {
        "action": finding.action,
        "fact_id": finding.fact.pk if finding.fact is not None else None,
        "predicate": finding.statement.predicate,
        "qualifier": finding.statement.qualifier,
        "value": finding.statement.value,
        "valid_from": finding.statement.valid_from,
    }
