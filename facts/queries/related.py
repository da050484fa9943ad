"""Facts found from outside the facts list: those naming an entity (what an agent knows
about it, what holds now for a turn's context) and those learned from a memory."""

from collections.abc import Collection
from datetime import datetime

from django.db.models import Case, Q, Value, When

from dewee.pagination import clean_limit
from facts.models import Fact, Status
from memory.models import Memory
from tenancy.models import Agent


def current_facts_naming(
    *, agent: Agent, names: Collection[str], user: str, now: datetime, limit: int
) -> list[Fact]:
    """The agent's facts believed now and valid now whose subject or value is one of
    ``names`` (compared as written), the latest confirmed first, at most ``limit``. With a
    ``user``, that user's facts and those about no user; without one, only those about no
    user: another user's facts never answer for someone else."""
    if not names:
        return []
    users = [user, ""] if user else [""]
    facts = (
        Fact.objects.filter(agent=agent, user_ref__in=users)
        .holding_at(now)
        .filter(Q(subject__in=names) | Q(value__in=names))
        .order_by("-last_confirmed_at", "-id")[:limit]
    )
    found = list(facts)
    for fact in found:
        fact.agent = agent
    return found


def facts_learned_from(memory: Memory) -> list[Fact]:
    """Every fact with ``memory`` among its sources, newest first (of the memory's agent)."""
    facts = list(Fact.objects.filter(sources__memory=memory).distinct().order_by("-id"))
    for fact in facts:
        fact.agent = memory.agent
    return facts


FACTS_NAMING_MAX = 50


def facts_naming(*, agent: Agent, names: list[str], limit: int = FACTS_NAMING_MAX) -> list[Fact]:
    """The agent's facts whose subject or value is one of ``names`` (case-insensitive): what
    the agent knows about an entity. Current facts first, then the newest; at most
    ``limit``."""
    wanted = {name.strip() for name in names if name and name.strip()}
    if not wanted:
        return []
    condition = Q()
    for name in sorted(wanted):
        condition |= Q(subject__iexact=name) | Q(value__iexact=name)
    current_first = Case(When(status=Status.CURRENT, then=Value(0)), default=Value(1))
    facts = list(
        Fact.objects.filter(agent=agent)
        .filter(condition)
        .order_by(current_first, "-id")[: clean_limit(limit)]
    )
    for fact in facts:
        fact.agent = agent
    return facts
