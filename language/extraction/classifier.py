"""A learned layer where the rules run out: does a clause state a fact of predicate P about
the speaker, or nothing about them ("none": other people, jokes, hypotheticals, questions,
plans, negations, reported speech, small talk)?

A softmax regression over the local embedding model's sentence vector, trained by
scripts/train_clause_classifier.py on clauses it generates and labels itself; the weights
ship in ``data/clause_classifier.npz`` (17 x 384). They only mean something for the model
they were trained with: the file keeps that model's vectors of a few probe sentences, and
an embedder that does not reproduce them (an operator's own model) leaves the classifier
off. ``DEWEE_CLAUSE_CLASSIFIER`` false turns it off.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from language import encoder
from language.extraction.statements import Statement

logger = logging.getLogger(__name__)

DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "data" / "clause_classifier.npz"
# Embedded by the training script and again at load: the embedder must be the one trained on.
PROBES = (
    "I work at a bakery in Lisbon.",
    "my sister just adopted a cat",
    "do you like sushi?",
)
_SAME_MODEL = 0.98

_lock = threading.Lock()
_models: dict[int, _Model | None] = {}


@dataclass(frozen=True, eq=False)
class _Model:
    embedder: encoder.Encoder
    classes: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray

    def probabilities(self, text: str) -> dict[str, float]:
        vector = np.asarray(self.embedder.embed([text])[0], np.float32)
        logits = vector @ self.weights + self.bias
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return dict(zip(self.classes, (float(v) for v in p), strict=True))


def enabled() -> bool:
    from django.conf import settings

    return settings.configured and bool(getattr(settings, "DEWEE_CLAUSE_CLASSIFIER", True))


def _load(embedder: encoder.Encoder, path: Path = DEFAULT_WEIGHTS) -> _Model | None:
    with np.load(path) as data:
        classes = tuple(str(c) for c in data["classes"])
        weights = data["weights"].astype(np.float32)
        bias = data["bias"].astype(np.float32)
        probes = data["probes"].astype(np.float32)
    ours = np.asarray(embedder.embed(list(PROBES)), np.float32)
    if ours.shape != probes.shape or float(np.min(np.sum(ours * probes, axis=1))) < _SAME_MODEL:
        logger.info("Clause classifier off: the embedding model is not the one it was trained on.")
        return None
    return _Model(embedder, classes, weights, bias)


def _model() -> _Model | None:
    embedder = encoder.current()
    if embedder is None:
        return None
    key = id(embedder)
    if key not in _models:
        with _lock:
            if key not in _models:
                _models[key] = _load(embedder)
    return _models[key]


def classify(clause: str) -> dict[str, float] | None:
    """{class: probability} for ``clause`` (the 16 predicates and "none"); None when the
    classifier is off or cannot run with this embedding model."""
    if not enabled():
        return None
    model = _model()
    if model is None:
        return None
    return dict(_probabilities(model, clause))


@lru_cache(maxsize=2048)
def _probabilities(model: _Model, clause: str) -> tuple[tuple[str, float], ...]:
    # A text is extracted more than once (checked, then stored): one embedding per clause.
    return tuple(model.probabilities(clause).items())


# The veto: a clause the classifier is this sure states nothing about the speaker, or a
# message it is this sure of as a whole (the emoji and the "sure, ..." that make sarcasm are
# in the message, not always in the clause), loses the statements the rules were less than
# sure of. Set on generated clauses held out by template and checked on the natural dev set.
# 0.8: on the natural dev set, the sarcasm it catches and not one value learned lost (0.6
# catches more and loses some).
VETO_NONE = 0.8
VETO_BELOW = 1.0
MESSAGE_CHARS = 200


def vetted(found: list[Statement], clause: str, message: str = "") -> list[Statement]:
    """``found`` without the statements of a clause that states nothing about the speaker,
    per the classifier ("sure, I just adore queuing 🙄"), unless a rule was sure."""
    if all(s.confidence >= VETO_BELOW for s in found):
        return found
    # A long message is many statements, read clause by clause: its whole would cost the
    # most to embed and is rarely sure of nothing.
    for text in (clause, message if len(message) <= MESSAGE_CHARS else ""):
        probabilities = classify(text) if text else None
        if probabilities is None:
            continue
        if probabilities["none"] >= VETO_NONE:
            return [s for s in found if s.confidence >= VETO_BELOW]
    return found
