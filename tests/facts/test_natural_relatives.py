"""Relatives and pets learned by name the way people type them in chat (issue 22): lower
case, names in parentheses, names given in the next clause or sentence, lists, abbreviations,
marriages and break-ups; and the traps around them (other people's relatives, wishes)."""

from datetime import UTC, datetime

import pytest

from facts.models import Fact, Status
from language.extraction import extract
from tests.factories import state

pytestmark = pytest.mark.django_db

NOW = datetime(2030, 3, 4, 9, 0, tzinfo=UTC)


def named(text):
    """(predicate, value) of each statement about a relative or a pet; an ending's value is
    ("ended", X)."""
    return {
        (s.predicate, s.value if s.value is not None else ("ended", s.ended))
        for s in extract(text, now=NOW)
        if s.predicate in ("spouse", "partner", "child", "pet")
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The name right after the word for them, in any case.
        ("my daughter freya starts nursery tomorrow", {("child", "Freya")}),
        ("My husband, Tomasz, is cooking tonight", {("spouse", "Tomasz")}),
        ("our son Kai (he's 7) wants a skateboard", {("child", "Kai")}),
        ("my girlfriend (ines) hates this film", {("partner", "Ines")}),
        ("my wife Gabriela (Gabi to her friends) says hello", {("spouse", "Gabriela")}),
        ("hubby (Marco) did the school run", {("spouse", "Marco")}),
        ("my wifey anouk got me flowers", {("spouse", "Anouk")}),
        ("my bf Dev thinks I work too much", {("partner", "Dev")}),
        ("my fiancée Chloe picked the venue", {("partner", "Chloe")}),
        ("my other half Bram is away this week", {("partner", "Bram")}),
        ("my hsuband Pieter loves this band", {("spouse", "Pieter")}),
        # "name is", "called", "is X".
        ("my cat's name is Mochi", {("pet", "Mochi")}),
        ("my hamsters name is peanut", {("pet", "Peanut")}),
        ("my son's called Rowan", {("child", "Rowan")}),
        ("my partner is Yusuf, he's a chef", {("partner", "Yusuf")}),
        ("partner's name is Ilse btw", {("partner", "Ilse")}),
        # Names before the word for them.
        ("This is Keanu, my son", {("child", "Keanu")}),
        ("Pip (my hamster) escaped again", {("pet", "Pip")}),
        # Given in the next clause or sentence.
        ("we got a puppy, her name is Clover", {("pet", "Clover")}),
        ("adopted a kitten yesterday, named him Taco", {("pet", "Taco")}),
        ("We rescued a greyhound! His name is Comet.", {("pet", "Comet")}),
        ("we have a third cat now, Juniper", {("pet", "Juniper")}),
        # Lists and pairs.
        ("my kids are rua and nikau", {("child", "Rua"), ("child", "Nikau")}),
        ("the kids are Ayla and Rumi", {("child", "Ayla"), ("child", "Rumi")}),
        ("I've got two girls, Elif and Defne", {("child", "Elif"), ("child", "Defne")}),
        ("our goats Bramble and Thistle ate the fence", {("pet", "Bramble"), ("pet", "Thistle")}),
        (
            "we have a lizard named Spike and a parrot named Mango",
            {("pet", "Spike"), ("pet", "Mango")},
        ),
        (
            "son (Arlo, 6) and daughter (Wren, 3) are at their gran's",
            {("child", "Arlo"), ("child", "Wren")},
        ),
        # An introduction's list.
        (
            "hi, I'm a pharmacist in Porto, married to Ricardo, one son, Duarte",
            {("spouse", "Ricardo"), ("child", "Duarte")},
        ),
        ("teacher, dad of Amaru and Killa", {("child", "Amaru"), ("child", "Killa")}),
        ("35, gf Marta, 2 kids, a cat called Fig", {("partner", "Marta"), ("pet", "Fig")}),
        # A pet named after its species.
        ("our dog Dog is afraid of the hoover", {("pet", "Dog")}),
        ("my rabbit, Bunny, chewed the charger", {("pet", "Bunny")}),
        # A relative named in a question or a wish is still the speaker's.
        ("what should I get my husband Ravi for christmas?", {("spouse", "Ravi")}),
    ],
)
def test_a_relative_or_pet_is_learned_by_its_name(text, expected):
    assert named(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # No name: nothing to learn.
        "we got a cat",
        "I adopted a rescue dog last week",
        # A common word after the relative is no name.
        "my son is sick today",
        "my wife and i are off to rome",
        "my dog ate my sandwich",
        "my kids are driving me crazy",
        "new bf alert",
        "my boyfriend is Italian",
        "my partner in crime lol",
        "my gf broke her phone again",
        "my husband speaks french",
        "my wife is vegan",
        "my kids are monsters",
        "married life is great",
        # Other people's relatives and pets.
        "my friend's son Leo is coming over",
        "Niamh's best friend Orla is staying over",
        "my sister's dog Rex bit the postman",
        "My brother's wife Ana is a doctor",
        "our neighbours got a puppy called Biscuit",
        # Wishes and namings that are no fact.
        "if I had a dog I'd call it Rex",
        "if we ever have a daughter we'll name her Iris",
        "I want to get a kitten and call her Olive",
        "the best thing in my life is my dog",
    ],
)
def test_no_name_or_someone_elses_learns_nothing(text):
    assert named(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "me and tariq broke up",
            {("spouse", ("ended", "Tariq")), ("partner", ("ended", "Tariq"))},
        ),
        (
            "my wife Hanne and I seperated last year",
            {("spouse", ("ended", "Hanne")), ("partner", ("ended", "Hanne"))},
        ),
        ("the divorce is final", {("spouse", ("ended", None))}),
        ("we had to put Nacho down yesterday", {("pet", ("ended", "Nacho"))}),
        ("zainab and i got married this morning!!", {("spouse", "Zainab")}),
    ],
)
def test_marriages_break_ups_and_pet_deaths(text, expected):
    assert named(text) == expected


def test_a_partner_named_before_a_dated_wedding_is_a_partner_now():
    found = extract("me and my partner Hemi are getting married next year", now=NOW)
    partners = [s for s in found if s.predicate == "partner"]
    assert [(s.value, s.valid_from) for s in partners] == [("Hemi", None)]


def check(api, text, **extra):
    response = api.post(
        "/v1/facts/check",
        {"agent_id": "support-bot", "user": "u1", "text": text, "now": NOW.isoformat(), **extra},
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_marrying_the_partner_in_lower_case_makes_them_the_spouse(api, agent):
    partner = state(agent, "Kofi", predicate="partner").fact
    data = check(api, "kofi and i got married at the town hall today!!", apply=True)
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("spouse", "Kofi")]
    assert [(c["predicate"], c["new_value"]) for c in data["contradicted"]] == [("partner", None)]
    partner.refresh_from_db()
    assert partner.status == Status.HISTORY


def test_breaking_up_ends_the_partner_typed_in_lower_case(api, agent):
    partner = state(agent, "Jamal", predicate="partner").fact
    data = check(api, "me and jamal broke up", apply=True)
    assert [(c["predicate"], c["new_value"]) for c in data["contradicted"]] == [("partner", None)]
    partner.refresh_from_db()
    assert partner.status == Status.HISTORY


def test_a_pet_named_in_the_next_sentence_is_stored_by_its_name_only(api, agent):
    data = check(api, "we adopted a puppy! we named her Nova", apply=True)
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("pet", "Nova")]
    assert list(
        Fact.objects.filter(agent=agent, predicate="pet").values_list("value", flat=True)
    ) == ["Nova"]


def test_someone_elses_relative_changes_nothing(api, agent):
    state(agent, "Priya", predicate="spouse")
    data = check(api, "my cousin's wife Meera is visiting", apply=True)
    assert (data["new"], data["contradicted"], data["applied"]) == ([], [], [])
    assert Fact.objects.get(agent=agent, predicate="spouse").value == "Priya"
