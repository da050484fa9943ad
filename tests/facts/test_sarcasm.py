"""Sarcasm states the opposite of what it says (issue 22): praise of what nobody enjoys and
an emphatic claim under an eye-roll teach nothing, while plain tastes, exasperation that
claims nothing, and contact details in the same message still do."""

import pytest

from tests.facts.test_extraction import said
from tests.facts.test_natural_changes import actions, check, held, state

pytestmark = pytest.mark.django_db  # the phone normaliser reads the settings


@pytest.mark.parametrize(
    "text",
    [
        "oh great, I just love sitting in traffic for two hours",
        "i totally adore doing my tax return every april",
        "love it when my flight gets cancelled at midnight",
        "nothing beats being left on read by the landlord",
        "my favourite hobby? waiting for the plumber all day",
        "yep, I'm definitely moving to the moon 🙄",
        "sure I'm a morning person /s",
        "yes I totally live in Paris now 🙄",
        "best job ever, I work at the complaints desk 🙄",
    ],
)
def test_sarcasm_teaches_nothing(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love cooking for friends", {("likes", "cooking", "cooking")}),
        ("i love early morning runs", {("likes", "early morning runs", "early morning runs")}),
        ("I love meeting new people", {("likes", "meeting new people", "meeting new people")}),
        (
            "started at Hydro last week, three meetings already today 🙄",
            {("employer", "", "Hydro")},
        ),
        (
            "I love hiking and hate the commute",
            {("likes", "hiking", "hiking"), ("dislikes", "commute", "commute")},
        ),
    ],
)
def test_plain_tastes_and_exasperation_still_teach(text, expected):
    assert said(text) == expected


def test_an_ironic_sentence_keeps_the_contact_details_said_after_it():
    found = said("I just LOVE being on hold for an hour 🙄 anyway my new number is +44 7700 900123")
    assert found == {("phone", "", "+44 7700 900123")}


def test_a_sarcastic_message_changes_nothing_the_agent_holds(agent):
    state(agent, "Leeds", predicate="city")
    result = check(
        agent, "oh yes I absolutely moved to Antarctica, that's why I never reply 🙄", apply=True
    )
    assert actions(result) == set()
    assert held(agent) == {("city", ""): "Leeds"}
