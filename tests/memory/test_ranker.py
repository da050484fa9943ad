"""Recall's second stage (memory.recall.ranker): the features it reads, a model file that
orders recall by them, the setting that turns it off or points at another model, and the
trainer's fit."""

import json
import math

import numpy as np
import pytest

from memory.recall import RecallRequest, recall
from memory.recall.ranker import (
    FEATURES,
    RANKER_FILE,
    Candidate,
    check_ranker_setting,
    load_ranker,
    ranker_features,
)
from memory.recall.ranker_fit import fit
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db


def _parts(fused: float, **extra: float) -> dict:
    return {
        "fused": fused,
        "entity": 0.0,
        "speaker": 0.0,
        "neighbour": 0.0,
        "superseded": False,
        "vector_norm": extra.get("vector"),
        "keyword_norm": extra.get("keyword"),
    }


def test_the_features_read_ranks_conversation_time_and_text():
    parts = {1: _parts(1.0, vector=1.0, keyword=0.5), 2: _parts(0.6, vector=0.2), 3: _parts(0.1)}
    candidates = [
        Candidate(1, session_id=7, created=1000.0, content="Ana adopted a kitten named Miso"),
        Candidate(2, session_id=7, created=1060.0, content="what did you name the kitten?"),
        Candidate(3, session_id=None, created=1000.0 + 86400, content="ok"),
    ]
    features = ranker_features(
        parts, candidates, {1: 0, 2: 3}, {1: 1}, ["named", "kitten", "adopted"]
    )
    first, second, third = features[1], features[2], features[3]
    assert (first["vector_rank"], first["keyword_rank"], first["both"]) == (1.0, 0.5, 1.0)
    assert (second["vector_rank"], second["keyword_rank"], second["both"]) == (0.25, 0.0, 0.0)
    assert first["first_rank"] == 1.0
    assert third["first_rank"] == pytest.approx(1 / 3)
    # Of the other seeds, the share in the same session; a sessionless memory has none.
    assert first["same_session"] == 0.5
    assert second["same_session"] == 0.5
    assert third["same_session"] == 0.0
    # A minute from the nearest seed is near; a day is not.
    assert second["time_near"] == pytest.approx(math.exp(-60 / 3600))
    assert third["time_near"] < 1e-9
    assert (first["question"], second["question"]) == (0.0, 1.0)
    assert first["words"] > third["words"]
    # "named", "kitten", "adopted" all held by the first (by stem), two by the second.
    assert first["overlap"] == 1.0
    assert second["overlap"] == pytest.approx(2 / 3)
    assert all(set(values) == set(FEATURES) for values in features.values())


def _model(tmp_path, **weights: float):
    path = tmp_path / "ranker.json"
    path.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "means": [0.0] * len(FEATURES),
                "scales": [1.0] * len(FEATURES),
                "weights": [weights.get(name, 0.0) for name in FEATURES],
                "bias": 0.0,
            }
        )
    )
    load_ranker.cache_clear()
    return path


@pytest.fixture
def turns(agent):
    return store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Ana: did you ever fix the printer on the third floor?"),
            MemoryInput(content="Ben: yes, the printer on the third floor had a paper jam"),
            MemoryInput(content="Ana: the printer"),
        ],
    )


def _ask(agent, **fields):
    request = RecallRequest(query="printer third floor", top_k=3, explain=True, **fields)
    return recall(agent=agent, request=request).hits


def test_a_model_file_orders_recall_and_explains_each_features_part(
    agent, turns, settings, tmp_path
):
    question, answer, short = turns
    settings.DEWEE_RECALL_RANKER = str(_model(tmp_path, question=4.0))
    hits = _ask(agent)
    assert hits[0].memory.pk == question.pk
    settings.DEWEE_RECALL_RANKER = str(_model(tmp_path, question=-10.0, words=1.0))
    hits = _ask(agent)
    assert [hit.memory.pk for hit in hits] == [answer.pk, short.pk, question.pk]
    for hit in hits:
        parts = hit.explanation["ranker"]
        logit = sum(parts.values())
        assert hit.explanation["relevance"] == pytest.approx(1 / (1 + math.exp(-logit)), abs=1e-3)
        assert parts["question"] == -10.0 * hit.explanation["features"]["question"]


def test_off_keeps_the_first_stages_order(agent, turns, settings, tmp_path):
    settings.DEWEE_RECALL_RANKER = "off"
    first = _ask(agent)
    assert all("ranker" not in hit.explanation for hit in first)
    assert all(set(hit.explanation["features"]) == set(FEATURES) for hit in first)
    # The request's own switch turns it off too.
    settings.DEWEE_RECALL_RANKER = str(_model(tmp_path, question=4.0))
    assert [h.memory.pk for h in _ask(agent, rerank=False)] == [h.memory.pk for h in first]


def test_a_missing_or_foreign_model_file_stops_the_start(settings, tmp_path):
    settings.DEWEE_RECALL_RANKER = str(tmp_path / "nowhere.json")
    [error] = check_ranker_setting()
    assert error.id == "dewee.E112"
    assert "nowhere.json" in error.msg
    path = tmp_path / "other.json"
    path.write_text(
        json.dumps({"features": ["fused"], "means": [0], "scales": [1], "weights": [1], "bias": 0})
    )
    settings.DEWEE_RECALL_RANKER = str(path)
    load_ranker.cache_clear()
    [error] = check_ranker_setting()
    assert "recall computes" in error.msg
    settings.DEWEE_RECALL_RANKER = "off"
    assert check_ranker_setting() == []


def test_the_shipped_model_reads_todays_features_and_names_its_training_set():
    if not RANKER_FILE.exists():
        pytest.skip("no model ships")
    model = json.loads(RANKER_FILE.read_text())
    assert model["features"] == list(FEATURES)
    train = RANKER_FILE.parents[2] / "bench" / "dialogues" / "train"
    assert sorted(model["trained_on"]) == sorted(p.name for p in train.glob("*.json"))


def test_the_fit_learns_which_feature_marks_the_evidence():
    generator = np.random.default_rng(7)
    x = generator.normal(size=(2000, 3))
    y = (x[:, 1] + 0.3 * generator.normal(size=2000) > 1.5).astype(float)
    _means, _scales, weights, _bias = fit(x, y)
    assert weights[1] > 3 * max(abs(weights[0]), abs(weights[2]))
