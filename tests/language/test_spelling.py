"""Text as people type it, typos and all (issue 22): a typo of a word the fact rules key on
("my girlfreind", "i wrok at", "moevd to") is read as that word, so the fact is still
learned; a real word, a name, a place, an address is never "corrected", so no typo reading
makes a fact the text did not state."""

import random
from datetime import UTC, datetime

import pytest

from bench import facts_quality as fq
from facts.models import Fact
from facts.services import check_text
from language.extraction import extract
from language.extraction.keywords import key_words, typos_read
from language.spelling import Speller, distance
from tests.factories import state

NOW = datetime(2030, 6, 12, 12, tzinfo=UTC)


def values(text):
    return {(s.predicate, s.value) for s in extract(text, now=NOW)}


# ---- the spelling layer itself (language.spelling) ----------------------------------------

KEYS = ["wife", "moved", "daughter", "daughters", "work", "works", "worked", "named", "name"]
ENGLISH = frozenset({"wide", "the", "road", "is", "my", "mover", "at", "to", "lisbon", "sun"})


@pytest.fixture(scope="module")
def speller():
    return Speller(KEYS, english=ENGLISH)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("wfie", "wife"),  # two letters swapped
        ("wif", "wife"),  # one dropped
        ("wiife", "wife"),  # one doubled
        ("wofe", "wife"),  # the key next to it
        ("moevd", "moved"),
        ("dauhgter", "daughter"),  # nearer "daughter" than "daughters"
        ("dauhgtr", "daughter"),  # two typos in a long word
        ("namde", "named"),  # swapped, not "name" with a letter added
        ("workd", "worked"),  # keeps the "d" it ends with: not "work" or "works"
    ],
)
def test_a_typo_of_a_key_word_is_read_as_it(speller, typed, meant):
    assert speller.meant(typed) == meant


@pytest.mark.parametrize("typed", ["wide", "mover", "sun", "qwerty", "wkro", "mvd"])
def test_a_real_word_or_a_word_far_from_every_key_word_stays(speller, typed):
    assert speller.meant(typed) is None


@pytest.mark.parametrize(("typed", "meant"), [("cta", "cat"), ("dgo", "dog"), ("sno", "son")])
def test_a_short_key_word_is_read_back_from_two_letters_swapped_only(typed, meant):
    speller = Speller(KEYS, english=ENGLISH, short_words=["cat", "dog", "son"])
    assert speller.meant(typed) == meant
    assert speller.meant(meant[0] + meant[2]) is None  # dropped: too near too many others
    assert speller.meant("ca") is None


def test_a_word_as_near_two_key_words_stays():
    assert Speller(["cart", "card"], english=frozenset()).meant("carq") is None


def test_two_words_written_as_one_are_no_typo():
    english = frozenset({"back", "end", "mess", "age", "sage"})
    speller = Speller(["backed", "message"], english=english)
    assert speller.meant("backend") is None
    assert speller.meant("messsage") == "message"  # a key struck three times is a typo


def test_names_addresses_and_case_are_kept(speller):
    text = "Moevd to Lisbon. my wfie's Wfie Nwoe, wfie@mail.com, @wfie, WFIE, wfie.io"
    assert speller.corrected(text) == (
        "Moved to Lisbon. my wife's Wfie Nwoe, wfie@mail.com, @wfie, WFIE, wfie.io"
    )


def test_the_distance_counts_a_swap_as_one_edit():
    assert distance("wfie", "wife") == 1
    assert distance("dauhgtr", "daughter") == 2
    assert distance("abc", "abc") == 0


# ---- the extractor's key words (language.extraction.keywords) --------------------------------


def test_the_key_words_come_from_the_rules_and_their_word_lists():
    words = key_words()
    # The rules' verbs and nouns, their inflections, the traps' cue words, the closed lists.
    for word in ("moved", "relocated", "girlfriend", "husband", "married", "maybe", "vegan"):
        assert word in words
    for word in ("pescatarian", "norwegian", "engineer", "hamster"):
        assert word in words
    assert all(len(w) >= 4 for w in words)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("my girlfreind is called Noor", "my girlfriend is called Noor"),
        ("Moevd to Tartu last week!", "Moved to Tartu last week!"),
        ("mabye i'll relocte", "maybe i'll relocate"),
        ("my wiffe's name is Oona", "my wife's name is Oona"),
        ("my bdya is in may", "my bday is in may"),  # a chat spelling's typo
    ],
)
def test_typos_are_read_through(typed, read):
    assert typos_read(typed) == read


# ---- what is learned ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my girlfreind is called Noor", {("partner", "Noor")}),
        ("i wrok at Fernbrook Dental", {("employer", "Fernbrook Dental")}),
        ("my dauhgter Ines started school today", {("child", "Ines")}),
        ("just moevd to Tartu", {("city", "Tartu")}),
        ("i relocted to Tartu in may", {("city", "Tartu")}),
        ("my husbnad Teodor is a chef", {("spouse", "Teodor")}),
        ("we adotped a cat called Pilaf", {("pet", "Pilaf")}),
        ("my brithday is 14 novmber", {("birthday", "--11-14")}),
        ("i lvoe hiking", {("likes", "hiking")}),
        ("im vegatarian these days", {("diet", "vegetarian")}),
        ("my new emial is noor.k@posteo.de", {("email", "noor.k@posteo.de")}),
    ],
)
def test_a_fact_typed_with_a_typo_in_its_key_word_is_learned(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "i live on a wide street",  # "wide" is no typo of "wife"
        "my son loves the sun",
        "i love my wide screen",
        "mabye I'll move to Gdansk next year",  # still a maybe
        "my sistr moevd to Tartu",  # still someone else
    ],
)
def test_a_typo_reading_states_nothing_the_text_does_not(text):
    assert values(text) == set()


def test_a_value_is_never_corrected():
    # "lisbn" is a typo of a place, not of a key word: learned as typed.
    assert values("moevd to lisbn last week") == {("city", "Lisbn")}
    # Täby is a place one typo from "tabby", a pet's word: the place stays.
    assert values("we moved to taby last month") == {("city", "Täby")}
    # A word of a place's name of several words is no typo of a key word beside it
    # ("nang" is one letter from "nans"), though alone it would be.
    assert typos_read("im in da nang now") == "im in da nang now"
    assert typos_read("got the nang of it") == "got the nans of it"


@pytest.mark.django_db
def test_checking_a_typed_change_updates_the_held_fact(agent):
    state(agent, "Riga", predicate="city")
    result = check_text(
        agent=agent, user="u1", text="Moevd to Tartu last week!", actor="test", apply=True, now=NOW
    )
    assert {(f.action, f.statement.value) for f in result.findings} == {("UPDATE", "Tartu")}
    held = Fact.objects.filter(agent=agent, user_ref="u1", predicate="city").current()
    assert [f.value for f in held] == ["Tartu"]


@pytest.mark.django_db
def test_checking_a_real_word_near_a_key_word_changes_nothing(agent):
    state(agent, "Aino", predicate="spouse")
    text = "the road is wide, my son said"
    result = check_text(agent=agent, user="u1", text=text, actor="test", apply=True, now=NOW)
    assert [f for f in result.findings if f.action != "NONE"] == []
    assert [f.value for f in Fact.objects.filter(agent=agent, user_ref="u1").current()] == ["Aino"]


# ---- the benchmark's typos (bench/facts_quality.py --typos) -------------------------------


def test_the_benchmark_typos_are_seeded_and_leave_values_alone():
    text = "My wife Ingrid and i moved to lisbon, mail ingrid.berg@example.com or 0712 345 678"
    typed = [
        fq.with_typos(text, rate=1.0, rng=random.Random(seed), keep={"lisbon"})
        for seed in (1, 1, 2)
    ]
    assert typed[0] == typed[1]
    assert typed[0] != text
    for version in typed:
        # Names, the labelled value, the address and the number are as typed; "wife" and
        # "moved" each have one typo.
        for kept in ("My", "Ingrid", "lisbon", "ingrid.berg@example.com", "0712 345 678"):
            assert kept in version
        words = version.split()
        assert distance(words[1], "wife") == 1
        assert distance(words[5], "moved") == 1
