"""The recall score: a memory's relevance, importance and recency, weighted, and demoted when
feedback flagged it irrelevant; and the order it ranks memories in."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tenancy.validation import clean_unit_interval

RECENCY_HALF_LIFE_DAYS = 30.0
# A memory flagged irrelevant by feedback keeps this share of its score: it ranks below an
# otherwise equal memory, yet is still found when nothing better matches.
FLAGGED_FACTOR = 0.5

# A memory as scoring sees it: (score, id, importance, recency).
ScoredRow = tuple[float, int, float, float]


@dataclass(frozen=True)
class Weights:
    relevance: float = 0.8
    importance: float = 0.1
    recency: float = 0.1

    def __post_init__(self) -> None:
        for name in ("relevance", "importance", "recency"):
            clean_unit_interval(getattr(self, name), field=f"weights.{name}")

    def score(
        self, *, relevance: float, importance: float, recency: float, flag_factor: float
    ) -> float:
        """The recall score of a memory: the weighted sum of its three signals, times its
        ``flag_factor``. Importance and recency are in 0..1; relevance is 0..1 from search,
        plus what the entity and neighbour passes add (so up to 1 + ENTITY_WEIGHT +
        NEIGHBOUR_WEIGHT: capping it would make a memory both matched and next to a match
        tie with the best match)."""
        total = self.relevance * relevance + self.importance * importance + self.recency * recency
        return total * flag_factor


def flag_factor(flagged_at: datetime | None) -> float:
    """The share of its score a memory keeps: FLAGGED_FACTOR once flagged, else all of it."""
    return FLAGGED_FACTOR if flagged_at else 1.0


def recency(anchor: datetime, now: datetime) -> float:
    """1.0 for a memory made just now, halving every RECENCY_HALF_LIFE_DAYS. Use is not
    counted here (that is decay's job, through importance): a recall must not make the
    memories it returned rank higher in the next one."""
    return recency_of_age((now - anchor).total_seconds())


def recency_of_age(seconds: float) -> float:
    """``recency`` of a memory made ``seconds`` ago (none in the future)."""
    return math.pow(0.5, max(seconds, 0.0) / 86400 / RECENCY_HALF_LIFE_DAYS)


def best_first(
    scored: list[ScoredRow], parts: Mapping[int, Mapping[str, Any]] | None = None
) -> list[ScoredRow]:
    """Highest score first. Of equal scores, the more relevant memory first (relevance, then
    the fused search score, from the memories' ``parts`` when given), then the more recent
    one, then the newer (higher id): memories that tie on score do not fall into the order
    of their ids."""

    def key(row: ScoredRow) -> tuple[float, ...]:
        signals = parts.get(row[1], {}) if parts is not None else {}
        relevance = float(signals.get("relevance") or 0.0)
        fused = float(signals.get("fused") or 0.0)
        return (-row[0], -relevance, -fused, -row[3], -row[1])

    return sorted(scored, key=key)
