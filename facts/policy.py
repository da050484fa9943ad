"""The facts app's part of an agent's memory policy (memory.policy_extensions): freshness
half-lives per category (``fact_half_life_days``) and whether expired facts are ended by
the freshness pass (``end_expired_facts``). Registered in facts.apps; the policy service
validates, stores and audits them with the rest of the policy."""

from collections.abc import Mapping
from typing import Any

from facts.models import Category
from facts.rules import (
    END_EXPIRED_POLICY_KEY,
    HALF_LIFE_MAX_DAYS,
    HALF_LIFE_POLICY_KEY,
    half_life_days,
)
from memory.exceptions import InvalidMemoryPolicy
from memory.policy_extensions import PolicyExtension


def effective_fact_policy(stored: Mapping[str, Any]) -> dict[str, Any]:
    return {
        HALF_LIFE_POLICY_KEY: {
            c: half_life_days(c, stored.get(HALF_LIFE_POLICY_KEY)) for c in Category.values
        },
        END_EXPIRED_POLICY_KEY: bool(stored.get(END_EXPIRED_POLICY_KEY, False)),
    }


def _days(days: object, field: str) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= HALF_LIFE_MAX_DAYS:
        raise InvalidMemoryPolicy(field, f"must be a whole number from 1 to {HALF_LIFE_MAX_DAYS}")
    return days


def clean_fact_policy(policy: Mapping[str, Any]) -> dict[str, Any]:
    clean: dict[str, Any] = {}
    if HALF_LIFE_POLICY_KEY in policy:
        half_lives = policy[HALF_LIFE_POLICY_KEY]
        if not isinstance(half_lives, dict):
            raise InvalidMemoryPolicy(HALF_LIFE_POLICY_KEY, "must be an object keyed by category")
        unknown = [c for c in half_lives if c not in Category.values]
        if unknown:
            raise InvalidMemoryPolicy(
                f"{HALF_LIFE_POLICY_KEY}.{unknown[0]}",
                f"is not a fact category; use {', '.join(Category.values)}",
            )
        clean[HALF_LIFE_POLICY_KEY] = {
            category: _days(days, f"{HALF_LIFE_POLICY_KEY}.{category}")
            for category, days in half_lives.items()
        }
    if END_EXPIRED_POLICY_KEY in policy:
        if not isinstance(policy[END_EXPIRED_POLICY_KEY], bool):
            raise InvalidMemoryPolicy(END_EXPIRED_POLICY_KEY, "must be true or false")
        clean[END_EXPIRED_POLICY_KEY] = policy[END_EXPIRED_POLICY_KEY]
    return clean


FACT_POLICY = PolicyExtension(
    keys=(HALF_LIFE_POLICY_KEY, END_EXPIRED_POLICY_KEY),
    effective=effective_fact_policy,
    clean=clean_fact_policy,
)
