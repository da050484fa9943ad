from datetime import UTC, datetime, timedelta

import pytest

from facts.models import Category
from facts.rules import (
    HALF_LIFE_DAYS,
    category_for,
    freshness,
    freshness_label,
    trust_key,
)
from language.text import normalise_value

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_trust_orders_verification_before_confidence():
    assert trust_key("confirmed", 0.1) > trust_key("stated", 1.0)
    assert trust_key("stated", 0.1) > trust_key("inferred", 1.0)
    assert trust_key("stated", 0.9) > trust_key("stated", 0.8)
    assert trust_key("stated", 0.8) == trust_key("stated", 0.8)


def test_values_compare_case_and_space_insensitively_but_not_loosely():
    assert normalise_value("  Acme   Corp ") == normalise_value("acme corp")
    assert normalise_value("Ｓｔｒａßｅ") == normalise_value("strasse")
    assert normalise_value("Acme") != normalise_value("Acme Inc")


@pytest.mark.parametrize(
    ("category", "days"),
    [
        ("employment", 180),
        ("location", 365),
        ("contact", 730),
        ("preference", 365),
        ("relationship", 730),
        ("skill", 1095),
        ("belief", 365),
        ("fact", 3650),
        ("general", 365),
    ],
)
def test_freshness_halves_after_the_category_half_life(category, days):
    assert HALF_LIFE_DAYS[Category(category)] == days
    assert freshness(category, NOW, NOW) == pytest.approx(1.0)
    assert freshness(category, NOW - timedelta(days=days), NOW) == pytest.approx(0.5)
    assert freshness(category, NOW - timedelta(days=2 * days), NOW) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("score", "label"),
    [
        (1.0, "fresh"),
        (0.8, "fresh"),
        (0.79, "aging"),
        (0.5, "aging"),
        (0.49, "stale"),
        (0.3, "stale"),
        (0.29, "expired"),
        (0.0, "expired"),
    ],
)
def test_freshness_labels_follow_the_thresholds(score, label):
    assert freshness_label(score) == label


def test_employment_fact_is_stale_after_a_year():
    score = freshness("employment", NOW - timedelta(days=300), NOW)
    assert freshness_label(score) == "stale"


def test_category_is_inferred_from_common_predicates():
    assert category_for("employer") == Category.EMPLOYMENT
    assert category_for("City") == Category.LOCATION
    assert category_for("favourite_colour") == Category.GENERAL
