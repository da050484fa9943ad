"""The pure rules of facts: trust order, value equality, categories and freshness."""

import math
import unicodedata
from datetime import datetime, timedelta

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


def normalise_value(value: str) -> str:
    """The form two values are compared in: Unicode NFKC, case-folded, inner spaces collapsed.
    "Acme  Corp" and "acme corp" are the same value; "Acme" and "Acme Inc" are not."""
    return " ".join(unicodedata.normalize("NFKC", value).casefold().split())


def category_for(predicate: str) -> Category:
    return PREDICATE_CATEGORY.get(predicate.strip().lower(), Category.GENERAL)


def freshness(category: str, last_confirmed_at: datetime, now: datetime) -> float:
    """Exponential decay with the category's half-life: 1.0 when just confirmed."""
    age = max(now - last_confirmed_at, timedelta(0))
    half_life = timedelta(days=HALF_LIFE_DAYS[Category(category)])
    return math.pow(0.5, age / half_life)


def freshness_label(score: float) -> str:
    if score >= 0.8:
        return "fresh"
    if score >= 0.5:
        return "aging"
    if score >= 0.3:
        return "stale"
    return "expired"
