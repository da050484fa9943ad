"""The second stage of recall: a learned ranker that orders the first stage's best
candidates from the signals recall already has.

The first stage (search, fusion, the entity and neighbour passes) finds the pool and ranks
it with hand-set weights; the ranker takes its best RANKER_CANDIDATES and scores each with a
logistic model over FEATURES (each search's score and rank, the entity, speaker and
neighbour evidence, supersession, and how much of the pool's best sits in the same
conversation and how near in time). The model is a small JSON file (RANKER_FILE) written by
``bench/train_ranker.py`` from Dewee's own training dialogues (bench/dialogues/train), never
from an evaluation set. Its probability becomes the memory's relevance; importance, recency
and the caller's weights apply as before. ``DEWEE_RECALL_RANKER`` is "off" (the default), "learned"
(the shipped model), or the path of a model an operator trained on their own dialogues. It is
off by default because on LoCoMo it gained nothing over the first stage (R@20 85.8 either way
with sessions, 82.3 against 83.6 for a plain client; docs/BENCHMARKS.md, issue 26).
"""

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import checks

RANKER_FILE = Path(__file__).with_name("ranker.json")
# How many of the first stage's best the ranker orders; the rest keep their order below.
RANKER_CANDIDATES = 100
# The pool's best, by the first stage's fused score, that the conversation features read.
SUPPORT_SEEDS = 10
# Time nearness: exp(-|dt| / TIME_SCALE_SECS) to the nearest of the seeds.
TIME_SCALE_SECS = 3600.0

SIGNALS = (
    "fused",
    "vector",
    "keyword",
    "vector_rank",
    "keyword_rank",
    "both",
    "entity",
    "speaker",
    "neighbour",
    "superseded",
    "first_rank",
    "same_session",
    "time_near",
    "question",
    "words",
    "overlap",
)
# Each signal, and its distance below the best of the candidates (the same value means
# something else when everything matches well than when nothing does).
FEATURES = SIGNALS + tuple(f"{name}_gap" for name in SIGNALS)


@dataclass(frozen=True)
class Candidate:
    """What the ranker reads of one candidate besides its relevance parts."""

    memory_id: int
    session_id: int | None
    created: float  # seconds since the epoch
    content: str = ""


_WORD = re.compile(r"\w+", re.UNICODE)
STEM = 4


def _stem(word: str) -> str:
    """A crude stem: the first STEM letters ("named" and "name", "hiking" and "hikes" meet)."""
    return word[:STEM]


def _overlap(query_stems: set[str], content: str) -> float:
    """The share of the query's words (stems) the memory's text holds."""
    if not query_stems:
        return 0.0
    held = {_stem(word) for word in _WORD.findall(content.lower())}
    return len(query_stems & held) / len(query_stems)


@dataclass(frozen=True)
class Ranker:
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    def contributions(self, features: Mapping[str, float]) -> dict[str, float]:
        """Each feature's part of the model's logit (its standardised value times its
        weight); the bias is the part named ``bias``."""
        parts = {
            name: weight * (features[name] - mean) / scale
            for name, mean, scale, weight in zip(
                FEATURES, self.means, self.scales, self.weights, strict=True
            )
        }
        parts["bias"] = self.bias
        return parts

    def probability(self, features: Mapping[str, float]) -> float:
        logit = sum(self.contributions(features).values())
        return 1.0 / (1.0 + math.exp(-max(min(logit, 60.0), -60.0)))


def ranker_from(data: Mapping[str, Any]) -> Ranker:
    """A ranker from its JSON form (the trainer's output); its features must be FEATURES."""
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"the ranker file names {data['features']}, recall computes {FEATURES}")
    return Ranker(
        means=tuple(float(v) for v in data["means"]),
        scales=tuple(float(v) or 1.0 for v in data["scales"]),
        weights=tuple(float(v) for v in data["weights"]),
        bias=float(data["bias"]),
    )


@cache
def load_ranker(path: Path) -> Ranker:
    """The model in the JSON file at ``path`` (read once per process)."""
    return ranker_from(json.loads(path.read_text()))


def _configured() -> Path | None:
    """DEWEE_RECALL_RANKER: "off" (the default) is none, "learned" the shipped model, and
    anything else the path of a model file (bench/train_ranker.py --out) to use instead."""
    value = str(getattr(settings, "DEWEE_RECALL_RANKER", "off") or "off")
    if value.lower() == "off":
        return None
    if value.lower() == "learned":
        return RANKER_FILE if RANKER_FILE.exists() else None
    return Path(value)


def get_ranker() -> Ranker | None:
    """The configured ranker; None when it is off."""
    path = _configured()
    return None if path is None else load_ranker(path)


def check_ranker_setting(**kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse to start with a ranker file that is missing or not one this recall can use."""
    path = _configured()
    if path is None:
        return []
    try:
        load_ranker(path)
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [
            checks.Error(
                f"DEWEE_RECALL_RANKER: the ranker model {path} cannot be used: {error}",
                hint='Give the path of a file bench/train_ranker.py wrote, "learned" for '
                'the shipped model, or "off".',
                id="dewee.E112",
            )
        ]
    return []


def ranker_features(
    parts: Mapping[int, Mapping[str, Any]],
    candidates: list[Candidate],
    vector_ranks: Mapping[int, int],
    keyword_ranks: Mapping[int, int],
    query_words: list[str],
) -> dict[int, dict[str, float]]:
    """FEATURES for each of ``candidates`` (first-stage order, best first). ``parts``: the
    relevance parts (fused, entity, speaker, neighbour, superseded, and each search's
    normalised score when it found the memory); the ranks are 0-based positions in each
    search's list; ``query_words`` the query's words that can match (keyword_terms)."""
    query_stems = {_stem(word) for word in query_words}
    seeds = sorted(candidates, key=lambda c: -float(parts[c.memory_id]["fused"]))[:SUPPORT_SEEDS]
    features = {}
    for position, candidate in enumerate(candidates):
        entry = parts[candidate.memory_id]
        vector_rank = vector_ranks.get(candidate.memory_id)
        keyword_rank = keyword_ranks.get(candidate.memory_id)
        others = [s for s in seeds if s.memory_id != candidate.memory_id]
        same = (
            sum(1 for s in others if s.session_id == candidate.session_id) / len(others)
            if others and candidate.session_id is not None
            else 0.0
        )
        nearest = min((abs(s.created - candidate.created) for s in others), default=math.inf)
        features[candidate.memory_id] = {
            "fused": float(entry["fused"]),
            "vector": float(entry.get("vector_norm") or 0.0),
            "keyword": float(entry.get("keyword_norm") or 0.0),
            "vector_rank": 0.0 if vector_rank is None else 1.0 / (1.0 + vector_rank),
            "keyword_rank": 0.0 if keyword_rank is None else 1.0 / (1.0 + keyword_rank),
            "both": 1.0 if vector_rank is not None and keyword_rank is not None else 0.0,
            "entity": float(entry["entity"]),
            "speaker": float(entry["speaker"]),
            "neighbour": float(entry["neighbour"]),
            "superseded": 1.0 if entry["superseded"] else 0.0,
            "first_rank": 1.0 / (1.0 + position),
            "same_session": same,
            "time_near": math.exp(-nearest / TIME_SCALE_SECS) if others else 0.0,
            # A question rarely holds its own answer; a few words rarely hold any.
            "question": 1.0 if "?" in candidate.content else 0.0,
            "words": math.log1p(len(_WORD.findall(candidate.content))),
            "overlap": _overlap(query_stems, candidate.content),
        }
    best = {name: max((v[name] for v in features.values()), default=0.0) for name in SIGNALS}
    for values in features.values():
        values.update({f"{name}_gap": values[name] - best[name] for name in SIGNALS})
    return features
