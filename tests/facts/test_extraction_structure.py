"""language.extraction.structure: what the optional parse adds to the rules (names of the
speaker's relatives and pets, verbs sharing the speaker as subject) and what it never adds
(other people's, negated, supposed or past ones). With DEWEE_PARSER=off the rules read alone
and these sentences still extract without error."""

import time
from datetime import UTC, datetime

import pytest

from facts.models import Fact
from language.extraction import extract
from language.parse import installed_model

NOW = datetime(2031, 3, 4, 12, tzinfo=UTC)
parser = pytest.mark.skipif(
    installed_model() is None, reason="the optional parser is not installed"
)


def said(text):
    return {(s.predicate, s.value) for s in extract(text, now=NOW)}


@pytest.fixture
def parse_on(monkeypatch):
    monkeypatch.setenv("DEWEE_PARSER", "auto")


@pytest.fixture
def parse_off(monkeypatch):
    monkeypatch.setenv("DEWEE_PARSER", "off")


NAMED = [
    # a lowercase name right after the relative's word, the subject of its clause
    ("my daughter zoe lost her first tooth today", {("child", "Zoe")}),
    ("our hamster pip bit me again", {("pet", "Pip")}),
    # names coordinated after the noun
    ("my kids ana and teo are at their grans", {("child", "Ana"), ("child", "Teo")}),
    ("2 kids: Anouk, Bram and little Fenna.", {("child", c) for c in ("Anouk", "Bram", "Fenna")}),
    # "my X's name is N", "my Xs name is N"
    ("my ferrets name is Waffle and she steals socks", {("pet", "Waffle")}),
    # the name beside the owned noun: "N, my X", "N (my X)"
    ("Meet Juno, my corgi. she herds the kids", {("pet", "Juno")}),
    ("Pippin (my cockatiel) wakes us at dawn", {("pet", "Pippin")}),
    # in a list without a verb, an owned "a dog called N"
    ("hi! dentist in Porto, 3 kids, a cat called Trufa", {("pet", "Trufa")}),
    # a hyphenated lowercase name, a bare "hubby (N)"
    ("my wifey ji-woo thinks im hilarious", {("spouse", "Ji-woo")}),
    ("hubby (Tane) is making dinner", {("spouse", "Tane")}),
]


@parser
@pytest.mark.parametrize(("text", "expected"), NAMED)
def test_the_parse_names_the_speakers_relatives_and_pets(parse_on, text, expected):
    assert expected <= said(text)


NOT_THEIRS = [
    "my neighbour has a dog called Bo",
    "I don't have a cat named Tom",
    "if I had a son I'd call him Leo",
    "we had a rabbit called Floss when I was a kid",
    "my dog food costs a fortune",
    "our old dog Rufus chased cars",
    "a dog called Rex bit me yesterday",
    "Tomasz says his wife Ola is pregnant",
    "my cat tbh",
    "baby Ari arrived last night, Kemal is over the moon",
    "my college girlfriend was called Priya",
    "our childhood rabbit was named Clover",
    "my wife and her sister love sushi",
    "my baby girl turns one tomorrow",
    "my son football practice is at 5",
]


@parser
@pytest.mark.parametrize("text", NOT_THEIRS)
def test_no_relative_or_pet_that_is_not_the_speakers(parse_on, text):
    assert not {p for p, _ in said(text)} & {"child", "pet", "spouse", "partner"}


@parser
def test_a_verb_sharing_the_speaker_as_subject_is_read(parse_on):
    text = "I've been vegetarian since March and speak Portuguese"
    assert said(text) == {("diet", "vegetarian"), ("language", "Portuguese")}


@parser
def test_a_named_pet_replaces_the_one_known_by_its_species(parse_on):
    assert said("we adopted another dog, a beagle called Moose") == {("pet", "Moose")}


@pytest.mark.parametrize(
    "text",
    [
        "he is vegan and lives in Bergen",
        "my sister works as a nurse in Leeds",
        "I'd be a teacher if I lived in Oslo",
        "I would love to work at Spotify",
    ],
)
def test_other_subjects_and_suppositions_say_nothing_either_way(monkeypatch, text):
    for mode in ("auto", "off"):
        monkeypatch.setenv("DEWEE_PARSER", mode)
        assert said(text) == set()


def test_rules_alone_still_read_when_the_parser_is_off(parse_off):
    assert said("I've been vegetarian since March and speak Portuguese") == {("diet", "vegetarian")}
    assert said("we rescued a greyhound called Dash") == {("pet", "Dash")}
    assert said("my daughter zoe lost her first tooth today") == {("child", "Zoe")}


@parser
@pytest.mark.django_db
def test_check_applies_a_name_only_the_parse_reads(api, agent, parse_on):
    response = api.post(
        "/v1/facts/check",
        {
            "agent_id": agent.agent_id,
            "user": "u1",
            "text": "our hamster pip bit me again",
            "apply": True,
        },
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert [(a["fact"]["predicate"], a["fact"]["value"]) for a in data["applied"]] == [
        ("pet", "Pip")
    ]
    (fact,) = Fact.objects.filter(agent=agent).current()
    assert (fact.predicate, fact.qualifier, fact.value) == ("pet", "pip", "Pip")


@parser
def test_a_long_paste_is_parsed_only_in_its_first_part(parse_on):
    text = "my daughter zoe lost her first tooth today. " * 400
    started = time.perf_counter()
    assert said(text) == {("child", "Zoe")}
    assert time.perf_counter() - started < 2
