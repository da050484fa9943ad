"""The pure rules of facts: trust order, value equality, categories and freshness."""

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from facts.models import Category, Verification

VERIFICATION_RANK = {
    Verification.INFERRED: 1,
    Verification.STATED: 2,
    Verification.CONFIRMED: 3,
}

HALF_LIFE_DAYS = {
    Category.EMPLOYMENT: 180,
    Category.LOCATION: 365,
    Category.CONTACT: 730,
    Category.PREFERENCE: 365,
    Category.RELATIONSHIP: 730,
    Category.SKILL: 1095,
    Category.BELIEF: 365,
    Category.FACT: 3650,
    Category.GENERAL: 365,
}

# Predicates whose category is obvious; anything else is "general" unless the caller says.
PREDICATE_CATEGORY = {
    **dict.fromkeys(
        ["employer", "job_title", "title", "role", "occupation", "works_at", "company"],
        Category.EMPLOYMENT,
    ),
    **dict.fromkeys(
        ["city", "country", "address", "location", "lives_in", "home", "timezone"],
        Category.LOCATION,
    ),
    **dict.fromkeys(["email", "phone", "handle", "website", "contact"], Category.CONTACT),
    **dict.fromkeys(
        ["likes", "dislikes", "prefers", "preference", "favorite", "favourite", "diet"],
        Category.PREFERENCE,
    ),
    **dict.fromkeys(
        ["spouse", "partner", "parent", "child", "sibling", "friend", "manager", "pet"],
        Category.RELATIONSHIP,
    ),
    **dict.fromkeys(["skill", "language", "speaks", "expertise"], Category.SKILL),
    **dict.fromkeys(["believes", "opinion", "belief", "religion"], Category.BELIEF),
    **dict.fromkeys(["birthday", "birth_date", "name", "gender"], Category.FACT),
}


def trust_key(verification: str, confidence: float) -> tuple[int, float]:
    """Confirmed > stated > inferred, then confidence: compare these tuples."""
    return (VERIFICATION_RANK[Verification(verification)], confidence)


def stronger_verification(a: str, b: str) -> str:
    return a if VERIFICATION_RANK[Verification(a)] >= VERIFICATION_RANK[Verification(b)] else b


def category_for(predicate: str) -> Category:
    return PREDICATE_CATEGORY.get(predicate.strip().lower(), Category.GENERAL)


# The score's terms besides the base: how much being used keeps a fact fresh.
ACCESS_COUNT_WEIGHT = 0.05
RECENT_ACCESS_WEIGHT = 0.1
FRESH, AGING, STALE = 0.8, 0.5, 0.3
HALF_LIFE_MAX_DAYS = 36_500


# The keys of an agent's memory policy (memory/services/policy.py validates and audits
# them) that the facts app reads.
HALF_LIFE_POLICY_KEY = "fact_half_life_days"
END_EXPIRED_POLICY_KEY = "end_expired_facts"


def policy_half_lives(policy: Mapping[str, Any] | None) -> dict[str, int]:
    """The half-life overrides in an agent's stored memory policy, by category."""
    return dict((policy or {}).get(HALF_LIFE_POLICY_KEY, {}))


def half_life_days(category: str, overrides: Mapping[str, int] | None = None) -> int:
    """The category's half-life: the agent's override (its policy's
    ``fact_half_life_days``, validated when set), else the default of HALF_LIFE_DAYS."""
    if overrides and category in overrides:
        return int(overrides[category])
    return HALF_LIFE_DAYS[Category(category)]


def decay_per_day(half_life: float) -> float:
    return math.pow(0.5, 1 / half_life)


def _days(since: datetime, now: datetime) -> float:
    return max(now - since, timedelta(0)) / timedelta(days=1)


def freshness(
    category: str,
    last_confirmed_at: datetime,
    now: datetime,
    *,
    access_count: int = 0,
    last_accessed_at: datetime | None = None,
    half_lives: Mapping[str, int] | None = None,
) -> float:
    """decay_per_day ^ days since last confirmed, plus log(1 + access_count) x 0.05, plus
    0.1 x decay_per_day ^ days since last access (none without an access), capped at 1.0;
    decay_per_day = 0.5 ^ (1 / the category's half-life in days)."""
    decay = decay_per_day(half_life_days(category, half_lives))
    score = math.pow(decay, _days(last_confirmed_at, now))
    score += math.log1p(access_count) * ACCESS_COUNT_WEIGHT
    if last_accessed_at is not None:
        score += RECENT_ACCESS_WEIGHT * math.pow(decay, _days(last_accessed_at, now))
    return min(score, 1.0)


def days_until_stale(
    category: str,
    last_confirmed_at: datetime,
    now: datetime,
    *,
    access_count: int = 0,
    last_accessed_at: datetime | None = None,
    half_lives: Mapping[str, int] | None = None,
) -> float | None:
    """Days until the score falls below AGING (the label turns stale) if nothing happens:
    0 when it already has, None when the access count alone keeps it above. Both decaying
    terms shrink by the same factor a day, so the moment is solved for, not searched."""
    decay = decay_per_day(half_life_days(category, half_lives))
    floor = math.log1p(access_count) * ACCESS_COUNT_WEIGHT
    if floor >= AGING:
        return None
    decaying = math.pow(decay, _days(last_confirmed_at, now))
    if last_accessed_at is not None:
        decaying += RECENT_ACCESS_WEIGHT * math.pow(decay, _days(last_accessed_at, now))
    ratio = (AGING - floor) / decaying
    if ratio >= 1:
        return 0.0
    return round(math.log(ratio) / math.log(decay), 1)


def freshness_label(score: float) -> str:
    if score >= FRESH:
        return "fresh"
    if score >= AGING:
        return "aging"
    if score >= STALE:
        return "stale"
    return "expired"
