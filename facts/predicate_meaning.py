"""The semantic level of the check: an agent that keeps its own predicates ("works_for",
"home_city") still has its facts checked. Each predicate name is embedded with the local
model and mapped onto a predicate of the vocabulary when its meaning is close to one of that
predicate's names and clearly closer than to any other predicate's."""

import numpy as np

from language.extraction.vocabulary import PREDICATE_NAMES
from memory.embeddings import get_embedder

# Precision first: "works_for" ~ "works for" scores near 1.0; related but different names
# ("home_town" ~ "home city", 0.85) and unrelated ones ("manager") stay under 0.9.
MIN_SIMILARITY = 0.9
MIN_MARGIN = 0.05


def _spoken(predicate: str) -> str:
    return " ".join(predicate.replace("_", " ").replace("-", " ").split()).lower()


def map_predicates(predicates: list[str]) -> dict[str, tuple[str, float]]:
    """For each of an agent's own predicates that means a predicate of the vocabulary:
    {own predicate: (vocabulary predicate, similarity)}. Names already in the vocabulary
    are left out; an empty input never loads the model."""
    own = sorted({p for p in predicates if p not in PREDICATE_NAMES})
    if not own:
        return {}
    targets = [(key, name) for key, names in PREDICATE_NAMES.items() for name in names]
    embedder = get_embedder()
    names = np.asarray(embedder.embed([name for _key, name in targets]))
    theirs = np.asarray(embedder.embed([_spoken(p) for p in own]))
    scores = theirs @ names.T
    mapped: dict[str, tuple[str, float]] = {}
    for row, predicate in enumerate(own):
        best: dict[str, float] = {}
        for column, (key, _name) in enumerate(targets):
            best[key] = max(best.get(key, -1.0), float(scores[row, column]))
        ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
        (first, score), (_second, runner_up) = ranked[0], ranked[1]
        if score >= MIN_SIMILARITY and score - runner_up >= MIN_MARGIN:
            mapped[predicate] = (first, score)
    return mapped
