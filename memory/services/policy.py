"""An agent's memory policy: how its memories age (decay strategy per type), how long they
live by default (TTL per type), and how much each recall extends a TTL'd memory's life
(spaced repetition); whether facts are learned from what its memories say; whether entities
are derived from them, and of which types; and the keys the apps above memory own
(memory.policy_extensions: for facts, the freshness half-life per category and whether
expired facts are ended automatically).

``Agent.memory_policy`` holds only what was set; everything else follows the server's
settings, so changing a server default changes it for every agent that did not choose.
"""

import math
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction

from memory.exceptions import InvalidMemoryPolicy
from memory.maintenance.decay_curves import STRATEGIES
from memory.models import EntityType, MemoryType
from memory.policy_extensions import policy_extensions
from tenancy.audit import record_event
from tenancy.models import Agent, AuditAction
from tenancy.validation import TTL_MAX_SECONDS

SPACED_REPETITION_FACTOR = 1.0
SPACED_REPETITION_FACTOR_MAX = 100.0
BASE_INTERVAL_SECONDS = 24 * 3600
BASE_INTERVAL_MAX_SECONDS = 365 * 24 * 3600
# Memory's own keys; the apps above add theirs (memory.policy_extensions).
MEMORY_POLICY_KEYS = (
    "strategy",
    "default_ttl_seconds",
    "spaced_repetition_factor",
    "base_interval_seconds",
    "extract_facts",
    "extract_entities",
    "entity_types",
)


def policy_keys() -> tuple[str, ...]:
    return MEMORY_POLICY_KEYS + tuple(k for e in policy_extensions() for k in e.keys)


@dataclass(frozen=True)
class MemoryPolicy:
    """The effective policy: every key present, server defaults filled in."""

    strategy: dict[str, str]
    default_ttl_seconds: dict[str, int | None]
    spaced_repetition_factor: float
    base_interval_seconds: int
    # Learn facts from each new memory about a user (by the worker, after the store).
    extract_facts: bool = True
    # Derive entities (tags, entity rows and their mentions) from new memories' texts and
    # speakers; ``entity_types``: only these types (None: all).
    extract_entities: bool = True
    entity_types: frozenset[str] | None = None
    # The keys other apps own (memory.policy_extensions), with their effective values: the
    # facts app's freshness half-life in days per category, and whether expired facts end.
    extended: dict[str, Any] = field(default_factory=dict)

    @property
    def repetition_step_seconds(self) -> float:
        """How much one access (times the access count) extends a TTL'd memory; 0: off."""
        return self.spaced_repetition_factor * self.base_interval_seconds

    def as_dict(self) -> dict[str, Any]:
        return {
            "strategy": dict(self.strategy),
            "default_ttl_seconds": dict(self.default_ttl_seconds),
            "spaced_repetition_factor": self.spaced_repetition_factor,
            "base_interval_seconds": self.base_interval_seconds,
            "extract_facts": self.extract_facts,
            "extract_entities": self.extract_entities,
            "entity_types": sorted(self.entity_types)
            if self.entity_types is not None
            else list(EntityType.values),
            **self.extended,
        }


def effective_policy(stored: dict[str, Any]) -> MemoryPolicy:
    """The policy an agent with ``stored`` (its memory_policy, validated when written) has."""
    strategies = stored.get("strategy", {})
    ttls = stored.get("default_ttl_seconds", {})
    return MemoryPolicy(
        strategy={t: strategies.get(t, settings.DEWEE_DECAY_STRATEGY) for t in MemoryType.values},
        default_ttl_seconds={t: ttls.get(t) for t in MemoryType.values},
        spaced_repetition_factor=float(
            stored.get("spaced_repetition_factor", SPACED_REPETITION_FACTOR)
        ),
        base_interval_seconds=int(stored.get("base_interval_seconds", BASE_INTERVAL_SECONDS)),
        extract_facts=bool(stored.get("extract_facts", True)),
        extract_entities=bool(stored.get("extract_entities", True)),
        entity_types=frozenset(stored["entity_types"]) if "entity_types" in stored else None,
        extended={
            key: value
            for extension in policy_extensions()
            for key, value in extension.effective(stored).items()
        },
    )


def get_memory_policy(agent: Agent) -> MemoryPolicy:
    return effective_policy(agent.memory_policy or {})


def _per_type(policy: dict[str, Any], key: str) -> dict[str, Any]:
    value = policy[key]
    if not isinstance(value, dict):
        raise InvalidMemoryPolicy(key, "must be an object keyed by memory type")
    unknown = [t for t in value if t not in MemoryType.values]
    if unknown:
        raise InvalidMemoryPolicy(
            f"{key}.{unknown[0]}",
            f"is not a memory type; use {', '.join(MemoryType.values)}",
        )
    return value


def _whole_number(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidMemoryPolicy(field, f"must be a whole number from {low} to {high}")
    return value


def _entity_types(types: object) -> list[str]:
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise InvalidMemoryPolicy("entity_types", "must be a list of entity types")
    unknown = [t for t in types if t not in EntityType.values]
    if unknown:
        raise InvalidMemoryPolicy(
            "entity_types",
            f"{unknown[0]!r} is not an entity type; use {', '.join(EntityType.values)}",
        )
    return sorted(set(types))


def _clean_spaced_repetition(policy: dict[str, Any], clean: dict[str, Any]) -> None:
    if "spaced_repetition_factor" in policy:
        factor = policy["spaced_repetition_factor"]
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not math.isfinite(factor)
            or not 0 <= factor <= SPACED_REPETITION_FACTOR_MAX
        ):
            raise InvalidMemoryPolicy(
                "spaced_repetition_factor",
                f"must be a number from 0 (off) to {SPACED_REPETITION_FACTOR_MAX:g}",
            )
        clean["spaced_repetition_factor"] = float(factor)
    if "base_interval_seconds" in policy:
        clean["base_interval_seconds"] = _whole_number(
            policy["base_interval_seconds"], "base_interval_seconds", 1, BASE_INTERVAL_MAX_SECONDS
        )


def _clean_per_type(policy: dict[str, Any], clean: dict[str, Any]) -> None:
    if "strategy" in policy:
        strategies = _per_type(policy, "strategy")
        for memory_type, strategy in strategies.items():
            if strategy not in STRATEGIES:
                raise InvalidMemoryPolicy(
                    f"strategy.{memory_type}", f"must be one of {', '.join(STRATEGIES)}"
                )
        clean["strategy"] = dict(strategies)
    if "default_ttl_seconds" in policy:
        ttls = _per_type(policy, "default_ttl_seconds")
        clean["default_ttl_seconds"] = {
            memory_type: None
            if ttl is None
            else _whole_number(ttl, f"default_ttl_seconds.{memory_type}", 1, TTL_MAX_SECONDS)
            for memory_type, ttl in ttls.items()
        }


def _clean_derivation(policy: dict[str, Any], clean: dict[str, Any]) -> None:
    for switch in ("extract_facts", "extract_entities"):
        if switch in policy:
            if not isinstance(policy[switch], bool):
                raise InvalidMemoryPolicy(switch, "must be true or false")
            clean[switch] = policy[switch]
    if "entity_types" in policy:
        clean["entity_types"] = _entity_types(policy["entity_types"])


def clean_policy(policy: object) -> dict[str, Any]:
    """``policy`` checked key by key: only known keys, per-type maps of known types; the
    keys other apps own are checked by them (memory.policy_extensions)."""
    if not isinstance(policy, dict):
        raise InvalidMemoryPolicy("policy", "must be a JSON object")
    known = policy_keys()
    unknown = [key for key in policy if key not in known]
    if unknown:
        raise InvalidMemoryPolicy(
            str(unknown[0]), f"is not a policy setting; known: {', '.join(known)}"
        )
    clean: dict[str, Any] = {}
    _clean_per_type(policy, clean)
    _clean_spaced_repetition(policy, clean)
    _clean_derivation(policy, clean)
    for extension in policy_extensions():
        clean |= extension.clean(policy)
    return clean


@transaction.atomic
def set_memory_policy(*, agent: Agent, policy: object, actor: str) -> MemoryPolicy:
    """Replace the agent's policy with ``policy`` (what it leaves out follows the server
    defaults). Validated whole before anything is written; audited with before and after.
    New memories get the new default TTLs; the next decay pass recomputes each memory from
    its own base and start under the new strategies (switching a type to flat gives its
    memories their base importance back). Facts' freshness follows new half-lives at once
    (it is computed when read); ``end_expired_facts`` takes effect at the next freshness
    pass."""
    clean = clean_policy(policy)
    before = agent.memory_policy or {}
    agent.memory_policy = clean
    agent.save(update_fields=["memory_policy"])
    record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor=actor,
        action=AuditAction.POLICY_CHANGE,
        target_type="agent",
        target_id=str(agent.pk),
        details={"before": before, "after": clean},
    )
    return effective_policy(clean)
