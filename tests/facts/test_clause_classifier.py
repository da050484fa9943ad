"""The learned clause classifier: its shipped weights, the script that trains them, and the
extractor's veto of statements in clauses that say nothing about the speaker."""

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from language.extraction import classifier
from language.extraction.extractor import extract

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2031, 3, 4, 12, tzinfo=UTC)


def _script():
    spec = importlib.util.spec_from_file_location(
        "train_clause_classifier", ROOT / "scripts" / "train_clause_classifier.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _best(clause: str) -> str:
    probabilities = classifier.classify(clause)
    assert probabilities is not None
    return max(probabilities, key=probabilities.__getitem__)


def test_the_shipped_weights_are_small_and_cover_every_predicate_and_none():
    assert classifier.DEFAULT_WEIGHTS.stat().st_size < 100_000
    with np.load(classifier.DEFAULT_WEIGHTS) as data:
        assert set(data["classes"]) == {*_script().PREDICATES, "none"}
        assert data["weights"].shape == (384, 17)


@pytest.mark.parametrize(
    ("clause", "predicate"),
    [
        ("you can email me at rui.tavares@fastmail.com", "email"),
        ("my mobile number is +31 6 1234 5678", "phone"),
        ("I speak fluent Norwegian and some Finnish", "language"),
        ("we adopted a tabby kitten and named her Clementine", "pet"),
        ("is the museum open on Sundays?", "none"),
    ],
)
def test_classifies_clear_clauses(clause, predicate):
    assert _best(clause) == predicate


def test_off_when_the_setting_says_so(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = False
    assert classifier.classify("you can email me at rui.tavares@fastmail.com") is None


def test_the_training_script_is_deterministic(tmp_path):
    script = _script()
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    tiny = ["--limit", "6", "--steps", "30", "--per-template", "2"]
    script.main([*tiny, "--out", str(first)])
    script.main([*tiny, "--out", str(second)])
    with np.load(first) as a, np.load(second) as b:
        assert list(a["classes"]) == list(b["classes"])
        assert np.array_equal(a["weights"], b["weights"])
        assert np.array_equal(a["bias"], b["bias"])


SARCASM = "yeah right, I adore cleaning the fridge on my day off"


def test_the_rules_alone_take_sarcasm_for_a_like(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = False
    assert [s.predicate for s in extract(SARCASM, now=NOW)] == ["likes"]


def test_the_classifier_vetoes_the_like_sarcasm_states(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = True
    assert extract(SARCASM, now=NOW) == []


def test_a_plain_like_survives_the_veto(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = True
    found = extract("I really love sourdough bread, I bake it every weekend", now=NOW)
    assert ("likes", "sourdough bread") in [(s.predicate, s.value) for s in found]
