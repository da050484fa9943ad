"""The context for one turn: working memory (L0), relevant episodic memories (L1) and the
semantic tier (L2): the current facts about the user, and the entities the turn names with
the current facts about them; within a size budget, ready to put into a prompt."""

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from dewee.errors import InvalidInput
from facts.models import Fact
from facts.queries import fact_to_dict
from facts.services import record_fact_access
from knowledge.context_entities import (
    NamedEntity,
    entities_of_turn,
    entity_line,
    named_entity_to_dict,
)
from language.entities import speaker_of
from memory.models import Memory, Session
from memory.queries import memory_to_dict
from memory.recall import RecallFilters, RecallRequest, audience_of, recall
from memory.services import record_session_activity
from tenancy.models import Agent

BUDGET_MAX_TOKENS = 32_000
WORKING_MAX_ITEMS = 50
FACTS_MAX_ITEMS = 100
# Shares of the budget each tier may take, in this order (user facts, working memory,
# entities); the episodic memories get the rest.
FACTS_SHARE, WORKING_SHARE, ENTITIES_SHARE = 0.25, 0.4, 0.2
HEADINGS = (
    "Known facts about the user:",
    "People and things named:",
    "Relevant memories:",
    "This conversation so far:",
)


def estimate_tokens(text: str) -> int:
    """About four characters a token for English text: a budget guide, not a tokenizer."""
    return max(1, math.ceil(len(text) / 4))


def line_cost(line: str) -> int:
    """What one line adds to the prompt, its line break included: the sum over a section's
    lines is never less than the estimate for the section's text."""
    return estimate_tokens(line + "\n")


HEADINGS_TOKENS = estimate_tokens("\n\n".join(HEADINGS) + "\n" * len(HEADINGS))


@dataclass(frozen=True)
class ContextRequest:
    query: str
    user: str = ""
    session: Session | None = None
    budget_tokens: int = 2000
    top_k: int = 10


def _fit(items: list[tuple[str, Any]], budget: int) -> tuple[list[Any], int]:
    """Take items in order while their lines fit in ``budget`` tokens."""
    taken, used = [], 0
    for line, item in items:
        cost = line_cost(line)
        if used + cost > budget:
            break
        taken.append(item)
        used += cost
    return taken, used


def _fact_line(fact: dict[str, Any]) -> str:
    slot = f"{fact['subject']}.{fact['predicate']}"
    if fact["qualifier"]:
        slot += f"[{fact['qualifier']}]"
    # The freshness label and score let the agent hedge on what may have changed.
    return (
        f"- {slot}: {fact['value']} ({fact['verification']}, {fact['freshness_label']} "
        f"{fact['freshness']:.2f})"
    )


def _served(facts: list[Fact], agent: Agent, now: Any) -> list[dict[str, Any]]:
    served = []
    for fact in facts:
        fact.agent = agent
        item = fact_to_dict(fact, now=now)
        item.pop("agent_id")
        served.append(item)
    return served


def _fit_entities(
    named: list[NamedEntity], agent: Agent, now: Any, budget: int
) -> tuple[list[dict[str, Any]], list[str], int]:
    """Entities in order, each with as many of its facts as fit, while their lines fit in
    ``budget`` tokens: the JSON items, the prompt lines, the tokens used."""
    items: list[dict[str, Any]] = []
    lines: list[str] = []
    used = 0
    for entity in named:
        head = entity_line(entity.entity)
        if used + line_cost(head) > budget:
            break
        facts, facts_used = _fit(
            [("  " + _fact_line(f), f) for f in _served(entity.facts, agent, now)],
            budget - used - line_cost(head),
        )
        used += line_cost(head) + facts_used
        items.append(named_entity_to_dict(entity, facts))
        lines += [head, *("  " + _fact_line(f) for f in facts)]
    return items, lines, used


def said(content: str, speaker: str | None) -> str:
    """A memory as a line of the conversation: who said it before what was said, unless
    the text opens with it already ("Caroline: ...")."""
    if not speaker or speaker_of(content) == speaker:
        return content
    return f"{speaker}: {content}"


def turn_user(request: ContextRequest) -> str:
    """The user of the turn: the one given, else the session's; one that contradicts the
    session's is refused (a conversation is with one user)."""
    session_user = request.session.user_ref if request.session is not None else ""
    return audience_of(user=request.user, session_user=session_user).user


def build_context(*, agent: Agent, request: ContextRequest) -> dict[str, Any]:
    """Tiers in order of their share of the budget: the user's current facts (FACTS_SHARE),
    the session's latest turns (WORKING_SHARE), the entities the turn names and their
    current facts (ENTITIES_SHARE of the budget, at most what is left), then the recalled
    memories in what remains. Writes what a turn is: an access on each recalled memory
    (recall) and on each fact served, and the session's activity; nothing else.

    The user boundary: the turn's user (given, or the session's) gets their own memories,
    facts and entities and the agent's shared ones, never another user's; a turn of no user
    gets only the shared ones."""
    if isinstance(request.budget_tokens, bool) or not isinstance(request.budget_tokens, int):
        raise InvalidInput("budget_tokens", "must be an integer")
    if not 50 <= request.budget_tokens <= BUDGET_MAX_TOKENS:
        raise InvalidInput("budget_tokens", f"must be between 50 and {BUDGET_MAX_TOKENS}")
    user = turn_user(request)
    budget = request.budget_tokens - HEADINGS_TOKENS
    now = timezone.now()
    facts, facts_used = _user_facts(agent, user, now, int(budget * FACTS_SHARE))
    working, working_used = _working(agent, request, now, int(budget * WORKING_SHARE))
    remaining = budget - facts_used - working_used
    ranked: list[tuple[str, dict[str, Any]]] = []
    entities: list[dict[str, Any]] = []
    entity_lines: list[str] = []
    if request.query.strip() and remaining > 0:
        ranked = _recalled(agent, request, user, exclude={m.pk for m in working})
        named = entities_of_turn(agent=agent, query=request.query, user=user, now=now)
        room = min(int(budget * ENTITIES_SHARE), remaining)
        entities, entity_lines, entities_used = _fit_entities(named, agent, now, room)
        remaining -= entities_used
    episodic, _ = _fit(ranked, remaining)
    served = [f["id"] for f in facts] + [f["id"] for e in entities for f in e["facts"]]
    if served:
        # Served to the agent: one UPDATE for the facts the prompt holds.
        record_fact_access(served, now=now)
    if request.session is not None:
        # Building a turn's context is the conversation going on: activity, recorded once
        # every part of the request has passed validation (a refused one changes nothing).
        record_session_activity(session_ids=[request.session.pk], now=now)
    prompt = _prompt(facts, entity_lines, episodic, working)
    return {
        "working": [memory_to_dict(m) for m in working],
        "episodic": episodic,
        "facts": facts,
        "entities": entities,
        "prompt": prompt,
        "budget_tokens": request.budget_tokens,
        "used_tokens": estimate_tokens(prompt) if prompt else 0,
    }


def _user_facts(
    agent: Agent, user: str, now: datetime, room: int
) -> tuple[list[dict[str, Any]], int]:
    """The user's facts in force now that fit in ``room`` tokens, most recently confirmed
    first, and the tokens they take. In force now (Fact.objects.holding_at): a fact whose
    valid window has ended (or not begun) does not describe the user today; one handed over
    to a value from a later date still does until then."""
    facts: list[dict[str, Any]] = []
    if user:
        current = Fact.objects.filter(agent=agent, user_ref=user).holding_at(now)
        facts = _served(list(current.order_by("-last_confirmed_at")[:FACTS_MAX_ITEMS]), agent, now)
    return _fit([(_fact_line(f), f) for f in facts], room)


def _working(
    agent: Agent, request: ContextRequest, now: datetime, room: int
) -> tuple[list[Memory], int]:
    """The session's latest turns that fit in ``room`` tokens, oldest first, and the tokens
    they take; none without a session."""
    if request.session is None:
        return [], 0
    recent = list(
        Memory.objects.filter(agent=agent, session=request.session)
        .live(now)
        .prefetch_related("tag_rows")
        .order_by("-id")[:WORKING_MAX_ITEMS]
    )
    # Newest first while filling, so the latest turns survive a tight budget.
    working, used = _fit([(said(m.content, m.speaker), m) for m in recent], room)
    working.reverse()
    return working, used


def _recalled(
    agent: Agent, request: ContextRequest, user: str, *, exclude: set[int]
) -> list[tuple[str, dict[str, Any]]]:
    """The agent's own recall for the turn (its accesses recorded), as prompt lines with
    their memories, leaving out the turns already in working memory."""
    result = recall(
        agent=agent,
        request=RecallRequest(
            query=request.query,
            top_k=request.top_k,
            filters=RecallFilters(audience=audience_of(user=user)),
        ),
        record_access=True,
    )
    return [
        (
            "- " + said(hit.memory.content, hit.memory.speaker),
            {**memory_to_dict(hit.memory), "score": hit.score},
        )
        for hit in result.hits
        if hit.memory.pk not in exclude
    ]


def _prompt(
    facts: list[dict[str, Any]],
    entity_lines: list[str],
    episodic: list[dict[str, Any]],
    working: list[Memory],
) -> str:
    sections = []
    if facts:
        sections.append(f"{HEADINGS[0]}\n" + "\n".join(_fact_line(f) for f in facts))
    if entity_lines:
        sections.append(f"{HEADINGS[1]}\n" + "\n".join(entity_lines))
    if episodic:
        sections.append(
            f"{HEADINGS[2]}\n"
            + "\n".join(f"- {said(m['content'], m['speaker'])}" for m in episodic)
        )
    if working:
        sections.append(f"{HEADINGS[3]}\n" + "\n".join(said(m.content, m.speaker) for m in working))
    return "\n\n".join(sections)
