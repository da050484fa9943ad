"""Reads about freshness: the facts that need re-confirmation (the review queue's second
section, and the pass that ends expired facts), and the freshness report and stats.

A fact's score is computed when read (facts.rules.freshness), not stored, so no query can
filter on it. Every read here narrows in SQL on a condition the score implies: a score
below AGING needs a base below it, so the fact was last confirmed more than one half-life
ago (the use terms only raise the score); the exact score then decides in Python.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.db.models.functions import Upper
from django.utils import timezone

from facts.models import Category, Fact, FactQuerySet, Status
from facts.queries import fact_freshness, fact_to_dict
from facts.rules import AGING, half_life_days, policy_half_lives
from facts.triage import ReviewFilters
from tenancy.access import Access
from tenancy.models import Agent

# Candidates read per request, oldest confirmation first; those kept fresh by use drop out.
CANDIDATES_MAX = 1000
# A predicate prefix that names at most this many predicates is read one predicate at a
# time, each in confirmation order (see _by_predicate).
PREDICATES_BY_NAME = 10
NEEDS_RECONFIRMATION_LIMIT = 50
LABELS = ("fresh", "aging", "stale", "expired")


def _past_half_life(agents: list[Agent], now: datetime) -> Q:
    """Facts confirmed more than one half-life ago, for the shortest half-life any of
    ``agents`` gives each category (a necessary condition of being stale for all)."""
    condition = Q(pk__in=[])
    for category in Category.values:
        days = min(half_life_days(category, policy_half_lives(a.memory_policy)) for a in agents)
        condition |= Q(category=category, last_confirmed_at__lt=now - timedelta(days=days))
    return condition


def _candidates(agents: list[Agent], now: datetime) -> FactQuerySet:
    return (
        Fact.objects.current()
        .filter(agent__in=agents)
        .filter(_past_half_life(agents, now))
        .order_by("last_confirmed_at", "id")
    )


def _stale(facts: list[Fact], agents: list[Agent], now: datetime) -> list[Fact]:
    by_pk = {a.pk: a for a in agents}
    stale = []
    for fact in facts:
        fact.agent = by_pk[fact.agent_id]
        if fact_freshness(fact, now=now)["freshness"] < AGING:
            stale.append(fact)
    return stale


def reconfirmation_candidates(agent: Agent, *, now: datetime) -> list[Fact]:
    """The agent's current facts that are stale or expired at ``now``, oldest confirmation
    first (at most CANDIDATES_MAX looked at)."""
    return _stale(list(_candidates([agent], now)[:CANDIDATES_MAX]), [agent], now)


def _filtered_agents(access: Access, filters: ReviewFilters) -> list[Agent]:
    if filters.agent is not None:
        return [filters.agent]
    agents = access.agents()
    if filters.workspace is not None:
        agents = agents.filter(workspace=filters.workspace)
    return list(agents)


def needs_reconfirmation(
    access: Access,
    *,
    filters: ReviewFilters | None = None,
    limit: int = NEEDS_RECONFIRMATION_LIMIT,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Stale and expired current facts of every agent ``access`` sees, the longest
    unconfirmed first: what the review queue asks a person to confirm, end or delete.
    ``filters``: the queue's own (a workspace or an agent, predicates starting with a
    text, recorded before a time), so that what the queue shows below it is narrowed alike."""
    now = now or timezone.now()
    facts = stale_facts(access, filters=filters, limit=limit, now=now)
    return [
        {**fact_to_dict(fact, now=now), "workspace": fact.agent.workspace.slug} for fact in facts
    ]


def stale_facts(
    access: Access, *, filters: ReviewFilters | None = None, limit: int, now: datetime
) -> list[Fact]:
    """The facts of :func:`needs_reconfirmation`, as rows (the inbox only counts them)."""
    filters = filters or ReviewFilters()
    agents = _filtered_agents(access, filters)
    if not agents:
        return []
    candidates, read = _candidates(agents, now), 0
    if filters.recorded_before is not None:
        candidates = candidates.filter(recorded_at__lt=filters.recorded_before)
    if filters.predicate:
        candidates = candidates.filter(predicate__istartswith=filters.predicate)
        by_name = _by_predicate(candidates, agents, filters.predicate)
        if by_name is not None:
            return _stale_by_predicate(by_name, agents, limit=limit, now=now)
    # Read in batches, oldest confirmation first: the first batch nearly always holds a
    # page (only facts kept fresh by use drop out), and a large backlog then costs one
    # short index walk instead of CANDIDATES_MAX rows scored in Python.
    facts: list[Fact] = []
    batch = max(2 * limit, 100)
    while read < CANDIDATES_MAX and len(facts) < limit:
        rows = list(candidates[read : min(read + batch, CANDIDATES_MAX)])
        facts += _stale(rows, agents, now)
        read += len(rows)
        if len(rows) < batch:
            break
    return facts[:limit]


# The predicates (upper-cased) of current facts of some agents that start with a pattern, in
# the index's order: one probe of the index per name (a loose index scan), however many
# facts each has.
_NAMES_SQL = """
WITH RECURSIVE names(name) AS (
    (SELECT UPPER(predicate::text) FROM facts_fact
     WHERE status = 'current' AND agent_id = ANY(%s) AND UPPER(predicate::text) LIKE %s
     ORDER BY 1 USING ~<~ LIMIT 1)
    UNION ALL
    SELECT (SELECT UPPER(f.predicate::text) FROM facts_fact f
            WHERE f.status = 'current' AND f.agent_id = ANY(%s)
              AND UPPER(f.predicate::text) LIKE %s AND UPPER(f.predicate::text) ~>~ names.name
            ORDER BY 1 USING ~<~ LIMIT 1)
    FROM names WHERE names.name IS NOT NULL
)
SELECT name FROM names WHERE name IS NOT NULL LIMIT %s
"""


def _by_predicate(
    candidates: FactQuerySet, agents: list[Agent], prefix: str
) -> list[FactQuerySet] | None:
    """``candidates`` of each predicate ``prefix`` names, each oldest confirmation first,
    when it names at most PREDICATES_BY_NAME (None otherwise, or on SQLite). On PostgreSQL
    the index of current facts by predicate and confirmation (facts 0017) gives the names,
    one probe each, and each predicate's facts in order: walking every current fact by age
    until enough of a rare predicate turn up read 240,000 rows at a million facts."""
    if connection.vendor != "postgresql":
        return None
    pattern = connection.ops.prep_for_like_query(prefix).upper() + "%"
    ids = [agent.pk for agent in agents]
    with connection.cursor() as cursor:
        cursor.execute(_NAMES_SQL, [ids, pattern, ids, pattern, PREDICATES_BY_NAME + 1])
        found = [name for (name,) in cursor.fetchall()]
    if len(found) > PREDICATES_BY_NAME:
        return None
    named = candidates.annotate(name=Upper("predicate"))
    return [named.filter(name=name).order_by("last_confirmed_at", "id") for name in found]


def _stale_by_predicate(
    by_name: list[FactQuerySet], agents: list[Agent], *, limit: int, now: datetime
) -> list[Fact]:
    """The stale facts of each predicate's candidates merged, oldest confirmation first
    (each read up to CANDIDATES_MAX rows, in batches, as stale_facts reads one list)."""
    batch = max(2 * limit, 100)
    merged: list[Fact] = []
    for facts in by_name:
        found: list[Fact] = []
        read = 0
        while read < CANDIDATES_MAX and len(found) < limit:
            rows = list(facts[read : min(read + batch, CANDIDATES_MAX)])
            found += _stale(rows, agents, now)
            read += len(rows)
            if len(rows) < batch:
                break
        merged += found[:limit]
    return sorted(merged, key=lambda f: (f.last_confirmed_at, f.pk))[:limit]


@dataclass(frozen=True)
class FreshnessReport:
    agent: Agent
    user: str | None
    counts: dict[str, int]
    average_freshness: float | None
    facts: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent.agent_id,
            "user": self.user,
            "counts": dict(self.counts),
            "average_freshness": self.average_freshness,
            "facts": self.facts,
        }


def freshness_report(
    *, agent: Agent, user: str | None = None, now: datetime | None = None
) -> FreshnessReport:
    """The agent's current facts (about ``user`` if given), each with its freshness: counts
    of active (current), fresh, aging, stale and expired among them, and contradicted
    (disputed values waiting for review); the average score; stalest first."""
    now = now or timezone.now()
    facts = Fact.objects.filter(agent=agent)
    if user is not None:
        facts = facts.filter(user_ref=user)
    current = list(facts.current().order_by("last_confirmed_at", "id"))
    rows = []
    for fact in current:
        fact.agent = agent
        rows.append(fact_to_dict(fact, now=now))
    counts = {"active": len(rows), **dict.fromkeys(LABELS, 0)}
    for row in rows:
        counts[row["freshness_label"]] += 1
    counts["contradicted"] = facts.disputed().count()
    average = round(sum(r["freshness"] for r in rows) / len(rows), 4) if rows else None
    return FreshnessReport(
        agent=agent, user=user, counts=counts, average_freshness=average, facts=rows
    )


def freshness_stats(access: Access) -> list[dict[str, Any]]:
    """Per agent ``access`` sees: facts by status (one grouped query), and how many of the
    current ones need re-confirmation."""
    agents = list(access.agents().order_by("workspace__slug", "agent_id"))
    totals: dict[int, dict[str, Any]] = {
        row["agent_id"]: dict(row)
        for row in Fact.objects.filter(agent__in=agents)
        .values("agent_id")
        .annotate(
            total=Count("id"),
            **{s: Count("id", filter=Q(status=s)) for s in Status.values},
        )
    }
    now = timezone.now()
    stats = []
    for agent in agents:
        row = totals.get(agent.pk, {})
        stats.append(
            {
                "agent_id": agent.agent_id,
                "workspace": agent.workspace.slug,
                "total": row.get("total", 0),
                **{s: row.get(s, 0) for s in Status.values},
                "needs_reconfirmation": len(reconfirmation_candidates(agent, now=now)),
            }
        )
    return stats
