"""The sentence encoder language/ reads with is the one memory hands over at start-up: the
clause classifier uses it, and with none to give (no model can be loaded) the rules read
alone instead of failing."""

from datetime import UTC, datetime

import pytest

from language import encoder
from language.extraction import classifier
from language.extraction.extractor import extract
from memory.embeddings import get_embedder

NOW = datetime(2031, 3, 4, 12, tzinfo=UTC)
# The rules alone read a like here; the classifier knows it states nothing about the speaker.
SARCASM = "yeah right, I adore cleaning the fridge on my day off"


@pytest.fixture
def no_encoder():
    previous = encoder._provider
    encoder.provide(lambda: None)
    yield
    assert previous is not None
    encoder.provide(previous)


def test_the_app_hands_over_the_local_embedding_model(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = True
    assert encoder.current() is get_embedder()
    assert classifier.classify("my sister just adopted a cat") is not None


def test_without_an_encoder_the_classifier_is_off_and_the_rules_read_alone(settings, no_encoder):
    settings.DEWEE_CLAUSE_CLASSIFIER = True
    assert encoder.current() is None
    assert classifier.classify("my sister just adopted a cat") is None
    assert [s.predicate for s in extract(SARCASM, now=NOW)] == ["likes"]


def test_with_the_encoder_the_classifier_vetoes_what_the_rules_took(settings):
    settings.DEWEE_CLAUSE_CLASSIFIER = True
    assert extract(SARCASM, now=NOW) == []
