"""Changes of mind, corrections and additions as people type them: what the extractor reads,
and what checking a text against the facts held does with them (UPDATE, END or ADD of the
right fact, never a second item in place of a corrected one)."""

from datetime import UTC, datetime

import pytest

from facts.models import Fact
from facts.services import check_text
from language.extraction import extract
from tests.factories import state

NOW = datetime(2030, 6, 12, 12, tzinfo=UTC)


def said(text):
    return {(s.predicate, s.qualifier, s.value) for s in extract(text, now=NOW)}


def values(text):
    return {(s.predicate, s.value) for s in extract(text, now=NOW)}


# ---- what the extractor reads ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Porto. sorry, Braga, my phone autocorrects", {("city", "Braga")}),
        (
            "i'm a sales analyst, scratch that, account manager since march",
            {("job_title", "account manager")},
        ),
        ("text me on +44 7700 900123.. sorry +44 7700 900132", {("phone", "+447700900132")}),
        (
            "My email is tomas.r@yahoo.com, no wait, tomas.r@yahoo.es",
            {("email", "tomas.r@yahoo.es")},
        ),
        ("I speak Swedish, sorry, Norwegian, they sound alike", {("language", "Norwegian")}),
        ("i work at Philips, sorry, Philips Healthcare", {("employer", "Philips Healthcare")}),
    ],
)
def test_a_correction_inside_the_message_keeps_only_the_corrected_value(text, expected):
    assert values(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("correction: it's Utrecht, not Leiden", ("city", "Utrecht")),
        ("not Slovenia, Slovakia 🙈 everyone mixes them up", ("country", "Slovakia")),
        ("keto*** not vegan, stupid phone", ("diet", "keto")),
        ("I'm a paramedic actually, not a nurse", ("job_title", "paramedic")),
        ("oops, 14 March, not May", ("birthday", "--03-14")),
        ("the shop I work for is Greggs, not Costa, easy mistake", ("employer", "Greggs")),
        ("ugh sorry, I meant Thirsk not York, tiny place", ("city", "Thirsk")),
    ],
)
def test_a_value_said_against_another_is_the_new_value(text, expected):
    assert values(text) == {expected}


def test_a_corrected_item_of_a_list_names_the_item_it_replaces():
    (item,) = extract("sorry, Portuguese not Spanish, my dad is from Braga", now=NOW)
    assert (item.predicate, item.qualifier, item.value, item.ended) == (
        "language",
        "portuguese",
        "Portuguese",
        "Spanish",
    )


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("I've totally gone off tea, it tastes like metal now", "tea"),
        ("cant stand cycling anymore, the traffic is insane", "cycling"),
        ("reddit is melting my brain, i hate it now", "reddit"),
        ("football bores me these days", "football"),
        ("salsa dancing is not for me anymore", "salsa dancing"),
        ("i dont like sushi anymore, sorry", "sushi"),
        ("went right off prawns after the holiday 🦐", "prawns"),
        ("I'm so over tiktok honestly, hate what it's become", "tiktok"),
        ("I can't stand kebabs anymore after the festival, ate way too many", "kebabs"),
    ],
)
def test_a_taste_turned_sour_is_a_dislike_and_only_that(text, item):
    # The held like it turns may be ended by the text too ("I don't like X anymore").
    assert said(text) - {("likes", item, None)} == {("dislikes", item, item)}


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("ok I've come round on mushrooms, I actually like them now", "mushrooms"),
        ("confession: I love anchovies now", "anchovies"),
        ("jazz is really growing on me", "jazz"),
    ],
)
def test_a_taste_come_round_to_is_a_like(text, item):
    assert said(text) == {("likes", item, item)}


def test_a_dislike_said_again_learns_no_reason_as_a_dislike():
    assert said("I still hate mayo, nothing's changed") == {("dislikes", "mayo", "mayo")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("add mosquitoes to the list of things i hate", ("dislikes", "mosquitoes")),
        ("add bread baking to my skills 🍞", ("skill", "bread baking")),
        ("add ramen to the list of stuff I love", ("likes", "ramen")),
        ("I know Excel too, did a course", ("skill", "Excel")),
        ("been getting into pottery too lol", ("likes", "pottery")),
        ("and Greek, a little", ("language", "Greek")),
        ("my italian is pretty decent now too", ("language", "Italian")),
    ],
)
def test_an_item_added_to_a_list(text, expected):
    assert values(text) == {expected}


@pytest.mark.parametrize(
    "text",
    [
        "my brother can't stand cycling anymore",
        "would you still love pizza if you went off cheese?",
        "nah not vegan",
        "a headhunter from Shell messaged me, not interested",
        "I'm not sure, not really into it",
    ],
)
def test_no_change_is_read_into_others_questions_or_plain_negations(text):
    assert said(text) == set()


# ---- what checking does with the facts held ------------------------------------------------


def check(agent, text, *, apply=False):
    return check_text(agent=agent, user="u1", text=text, actor="test", apply=apply, now=NOW)


def actions(result):
    return {
        (f.action, f.statement.predicate, f.statement.qualifier, f.statement.value)
        for f in result.findings
        if f.action != "NONE"
    }


def held(agent):
    return {
        (f.predicate, f.qualifier): f.value
        for f in Fact.objects.filter(agent=agent, user_ref="u1").current()
    }


@pytest.mark.django_db
def test_a_correction_of_a_list_item_ends_it_and_adds_the_new_one(agent):
    state(agent, "Spanish", predicate="language", qualifier="spanish")
    state(agent, "English", predicate="language", qualifier="english")
    result = check(agent, "sorry, Portuguese not Spanish, my dad is from Braga", apply=True)
    assert actions(result) == {
        ("END", "language", "spanish", None),
        ("ADD", "language", "portuguese", "Portuguese"),
    }
    assert held(agent) == {
        ("language", "english"): "English",
        ("language", "portuguese"): "Portuguese",
    }


@pytest.mark.django_db
def test_a_renamed_pet_replaces_the_held_one_and_nothing_else(agent):
    state(agent, "Biscuit", predicate="pet", qualifier="biscuit")
    check(agent, "sorry, she's Bisou, not Biscuit, my daughter named her", apply=True)
    assert held(agent) == {("pet", "bisou"): "Bisou"}


@pytest.mark.django_db
def test_a_renamed_name_nobody_holds_adds_nothing(agent):
    result = check(agent, "sorry, she's Bisou, not Biscuit")
    assert actions(result) == set()


@pytest.mark.django_db
def test_a_correction_of_a_single_value_updates_it(agent):
    state(agent, "--05-14", predicate="birthday")
    state(agent, "Leiden", predicate="city")
    result = check(
        agent, "oops, 14 March, not May. correction: it's Utrecht, not Leiden", apply=True
    )
    assert {(a, p, v) for a, p, _q, v in actions(result)} == {
        ("UPDATE", "birthday", "--03-14"),
        ("UPDATE", "city", "Utrecht"),
    }
    assert held(agent) == {("birthday", ""): "--03-14", ("city", ""): "Utrecht"}


@pytest.mark.django_db
def test_an_old_value_named_loosely_is_the_held_one(agent):
    state(agent, "Northgate Pharmacy")
    result = check(agent, "wait I said Northgate earlier, not right: it's Southgate Pharmacy")
    assert held(agent) == {("employer", ""): "Northgate Pharmacy"}  # nothing applied
    result = check(agent, "I work at Southgate Pharmacy, not Northgate", apply=True)
    assert ("UPDATE", "employer", "", "Southgate Pharmacy") in actions(result)
    assert held(agent) == {("employer", ""): "Southgate Pharmacy"}


@pytest.mark.django_db
def test_going_off_a_like_ends_it_and_adds_the_dislike(agent):
    state(agent, "tea", predicate="likes", qualifier="tea")
    state(agent, "hiking", predicate="likes", qualifier="hiking")
    result = check(agent, "I've totally gone off tea, it tastes like metal now", apply=True)
    assert actions(result) == {("END", "likes", "tea", None), ("ADD", "dislikes", "tea", "tea")}
    assert held(agent) == {("likes", "hiking"): "hiking", ("dislikes", "tea"): "tea"}


@pytest.mark.django_db
def test_coming_round_on_a_dislike_ends_it_and_adds_the_like(agent):
    state(agent, "mushrooms", predicate="dislikes", qualifier="mushrooms")
    check(agent, "ok I've come round on mushrooms, I actually like them now", apply=True)
    assert held(agent) == {("likes", "mushrooms"): "mushrooms"}


@pytest.mark.django_db
def test_a_dislike_said_again_confirms_it_and_adds_nothing(agent):
    state(agent, "mayo", predicate="dislikes", qualifier="mayo")
    result = check(agent, "I still hate mayo, nothing's changed")
    assert actions(result) == {("CONFIRM", "dislikes", "mayo", "mayo")}


@pytest.mark.django_db
def test_an_addition_grows_the_list_and_ends_nothing(agent):
    state(agent, "wasps", predicate="dislikes", qualifier="wasps")
    state(agent, "French", predicate="language", qualifier="french")
    check(agent, "add mosquitoes to the list of things i hate", apply=True)
    check(agent, "and Greek, a little", apply=True)
    assert held(agent) == {
        ("dislikes", "wasps"): "wasps",
        ("dislikes", "mosquitoes"): "mosquitoes",
        ("language", "french"): "French",
        ("language", "greek"): "Greek",
    }


@pytest.mark.django_db
def test_a_correction_over_rest_reports_the_ended_item(api, agent):
    state(agent, "Spanish", predicate="language", qualifier="spanish")
    body = {
        "agent_id": agent.agent_id,
        "user": "u1",
        "text": "sorry, Portuguese not Spanish",
        "now": NOW.isoformat(),
    }
    response = api.post("/v1/facts/check", body)
    assert response.status_code == 200, response.content
    data = response.json()
    assert [(c["qualifier"], c["new_value"]) for c in data["contradicted"]] == [("spanish", None)]
    assert [(n["qualifier"], n["value"]) for n in data["new"]] == [("portuguese", "Portuguese")]


# ---- endings and dated changes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ended", "start"),
    [
        ("not delivering for deliveroo anymore, too cold", "deliveroo", None),
        ("I'm not at Monzo anymore, I left last month", "Monzo", None),
        ("left the Grand Hotel last week, needed a change", "Grand Hotel", None),
        ("my last shift at Boots is this friday!!", "Boots", datetime(2030, 6, 14, tzinfo=UTC)),
        (
            "handed in my notice, finishing at Aviva on July 31",
            "Aviva",
            datetime(2030, 7, 31, tzinfo=UTC),
        ),
    ],
)
def test_leaving_a_job_ends_the_employer_only(text, ended, start):
    (item,) = [s for s in extract(text, now=NOW) if s.predicate == "employer"]
    assert (item.value, item.ended) == (None, ended)
    assert (item.valid_from.date() if item.valid_from else None) == (
        start.date() if start else None
    )
    assert not [s for s in extract(text, now=NOW) if s.predicate == "job_title"]


@pytest.mark.django_db
def test_an_ending_naming_the_employer_loosely_ends_it_and_keeps_the_title(agent):
    state(agent, "Hendersons Bakery")
    state(agent, "baker", predicate="job_title")
    check(agent, "I don't work at Hendersons anymore", apply=True)
    assert held(agent) == {("job_title", ""): "baker"}


@pytest.mark.django_db
def test_leaving_one_employer_for_another_updates_it(agent):
    state(agent, "Grab")
    result = check(agent, "left Grab and joined Gojek, same chaos", apply=True)
    assert ("UPDATE", "employer", "", "Gojek") in actions(result)
    assert held(agent) == {("employer", ""): "Gojek"}


@pytest.mark.parametrize(
    ("text", "predicate", "value", "start"),
    [
        (
            "got the job at aldi!! start on the 1st",
            "employer",
            "aldi",
            datetime(2030, 7, 1, tzinfo=UTC),
        ),
        (
            "accepted the Telstra offer, I start 1st of August",
            "employer",
            "Telstra",
            datetime(2030, 8, 1, tzinfo=UTC),
        ),
        (
            "got promoted!! I'm team lead from next monday",
            "job_title",
            "team lead",
            datetime(2030, 6, 17, tzinfo=UTC),
        ),
    ],
)
def test_a_change_said_with_its_date_starts_then(text, predicate, value, start):
    (item,) = [s for s in extract(text, now=NOW) if s.predicate == predicate]
    assert item.valid_from is not None
    assert (item.value, item.valid_from.date()) == (value, start.date())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("promoted to senior developer 🎉", ("job_title", "senior developer")),
    ],
)
def test_a_change_said_in_passing(text, expected):
    assert expected in values(text)


def test_a_place_one_is_at_is_no_employer():
    assert values("I'm at Gatwick now, flight delayed") == set()
