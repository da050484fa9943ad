"""Facts from chat text as people type it (issue 22, fifth step): crafts and skills said the
way people say them, workplaces named in passing, apologies that correct nothing, jokes that
contrast a job with an animal, farewells to a pet, hedged corrections, days said relative to
the message. Each case is the speaker's own fact; the traps beside them state nothing."""

from datetime import timedelta

import pytest

from tests.facts.test_extraction import NOW, said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("picked up pottery this year, i'm pretty decent at it now", {"pottery"}),
        ("i do carpentry on the side, built our whole kitchen myself", {"carpentry"}),
        ("also learned to solder, fixed my own pedal", {"soldering"}),
        ("crochet update: made a whole blanket, i'm actually good at it now", {"crochet"}),
        ("i'm really good at knittign, made everyone jumpers", {"knitting"}),
        ("i also knwo Figma and Blender now", {"figma", "blender"}),
        ("I've been writing Excel macros for years", {"excel macros"}),
    ],
)
def test_skills_as_people_say_them(text, expected):
    assert {q for p, q, _ in said(text) if p == "skill"} == expected


@pytest.mark.parametrize(
    "text",
    [
        "i'm fluent in sarcasm and emoji, that's about it 😂",  # no language, no tool
        "i picked up the kids from school",  # no craft
        "i do the cooking on weekends",  # a chore, not a named craft
        "picked up bread on the way home",
    ],
)
def test_what_is_no_skill(text):
    assert {s for s in said(text) if s[0] == "skill"} == set()


def test_a_long_message_keeps_every_fact_despite_an_apology_and_a_joke():
    # "sry for ..." apologises and corrects nothing; "not a rooster" is a joke, no correction.
    text = (
        "sry for the wall of text but i need to vent, my manager at Lumen Freight keeps "
        "scheduling meetings at 7am and i'm a operations analyst not a rooster lol, and then "
        "i get home and my son Kaito wants to play minecraft and my wife Haruka is working "
        "late, and the dog Pochi needs a walk, anyway can u help me write a polite email"
    )
    assert said(text) == {
        ("employer", "", "Lumen Freight"),
        ("job_title", "", "operations analyst"),
        ("child", "kaito", "Kaito"),
        ("spouse", "", "Haruka"),
        ("pet", "pochi", "Pochi"),
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("should i ask my boss at Acme Corp for a raise?", {("employer", "", "Acme Corp")}),
        ("got poached by Ostrander Re, same kind of role", {("employer", "", "Ostrander Re")}),
        (
            "oh i just ADORE working weekends at Grunwald Logistics 🙃",
            {("employer", "", "Grunwald Logistics")},  # the taste is ironic, the job is not
        ),
        ("i love working at Google", {("employer", "", "Google")}),
        ("first week as tech lead, so many meetings", {("job_title", "", "tech lead")}),
        ("I am now shop manager, before I was cashier", {("job_title", "", "shop manager")}),
    ],
)
def test_workplaces_and_titles_in_passing(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no kids, but we have a dog, Bruno, who thinks he's a kid", {("pet", "bruno", "Bruno")}),
        (
            "i'm allergic to cats, if i weren't i'd have five, i have a dog though, Biscotti",
            {("pet", "biscotti", "Biscotti")},
        ),
        ("RIP Gizmo, best hamster ever", {("pet", "gizmo", ("ended", "Gizmo"))}),
        (
            "we rehomed Mango with a family that has a big garden, it was the right call",
            {("pet", "mango", ("ended", "Mango"))},
        ),
        ("the divorce from Grzegorz is final as of today", {("spouse", "", ("ended", None))}),
    ],
)
def test_pets_and_partners_named_in_passing(text, expected):
    assert said(text) == expected


def test_the_dog_next_to_us_is_not_ours():
    assert said("the dog Rex next to us barks all night") == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("28, vegetarian, cat dad (Pistachio), live in Glasgow", "vegetarian"),
        ("gluten-free bc of coeliac, it sucks", "gluten-free"),
        ("ok i caved, back to vegetarian, i missed cheese too much", "vegetarian"),
        ("i'm vegan—well, vegetarian technically, i still eat eggs", "vegetarian"),
    ],
)
def test_diets_as_typed(text, expected):
    assert {v for p, _, v in said(text) if p == "diet"} == {expected}


@pytest.mark.parametrize(
    "text",
    ["vegan cheese is gross", "keto is hard", "my sister went back to vegan"],
)
def test_what_is_no_diet_of_mine(text):
    assert {s for s in said(text) if s[0] == "diet"} == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I speak Norwegian, sorry, Swedish i mean", {("language", "swedish", "Swedish")}),
        ("i can finally hold a conversation in Korean!!", {("language", "korean", "Korean")}),
        ("i leave in Ljubljana now, is nice city", {("city", "", "Ljubljana")}),
        ("i was in Tokyo for work last week, back home in Osaka now", {("city", "", "Osaka")}),
        ("also can't stand mayonnaise, never could", {("dislikes", "mayonnaise", "mayonnaise")}),
        ("swimming is my new thing, love it", {("likes", "swimming", "swimming")}),
        ("i've lost interest in running", {("likes", "running", ("ended", "running"))}),
        ("My birth date is 1992.08.17", {("birthday", "", "1992-08-17")}),
        # (numbers as typed here: the facts service writes them in E.164)
        ("new canadian number: +1 604 555 0199", {("phone", "", "+1 604 555 0199")}),
        (
            "my phone is +1 808 555 0177 and email nalani.k@kaimanareef.org",
            {("phone", "", "+1 808 555 0177"), ("email", "", "nalani.k@kaimanareef.org")},
        ),
    ],
)
def test_more_as_typed(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "days"),
    [("it's my brithday today!!! 🎉", 0), ("it was my birthday yesterday", -1)],
)
def test_a_birthday_said_as_a_day_near_the_message(text, days):
    day = NOW + timedelta(days=days)
    assert said(text) == {("birthday", "", f"--{day.month:02d}-{day.day:02d}")}


@pytest.mark.parametrize(
    "text",
    [
        "I leave in May",  # a month, not a place
        "it's my birthday party tonight",
        "the guy at the bar was like 'I'm a pilot for Condor Air' and i was like sure buddy",
        "back home in Nigeria we eat jollof on sundays",
    ],
)
def test_traps_of_this_step(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I play the cello in an orchestra", {"cello"}),
        ("i can play guitar pretty well", {"guitar"}),
        ("I can knit", {"knitting"}),
        ("i have a black belt in judo", {"judo"}),
        ("i'm not bad at chess", {"chess"}),  # praise said modestly
        ("i'm a whiz with excel", {"excel"}),
        ("I'm pretty good at carpentry, built our kitchen table", {"carpentry"}),
    ],
)
def test_more_skills_as_people_say_them(text, expected):
    assert {q for p, q, _ in said(text) if p == "skill"} == expected


@pytest.mark.parametrize(
    "text",
    [
        "I can paint the fence tomorrow",  # a chore on a day
        "i play football on sundays",  # a pastime, no craft
        "I'm not a good cook",
    ],
)
def test_more_of_what_is_no_skill(text):
    assert {s for s in said(text) if s[0] == "skill"} == set()


@pytest.mark.parametrize(
    "text",
    [
        # an eye-roll takes back the whole sentence, read as a correction or not
        "yes I definitely moved to Antarctica, that's why I'm not replying 🙄",
        "say I went vegan, would I even get enough protein?",  # a supposition
    ],
)
def test_sarcasm_and_suppositions_state_nothing(text):
    assert said(text) == set()


def test_names_listed_after_a_colon_are_not_read_as_typos():
    assert {v for p, _, v in said("3 kids: Mateus, Inês and little Beatriz. send help")} == {
        "Mateus",
        "Inês",
        "Beatriz",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "i usedto work at Norrsken Bank, left in april",
            {("employer", "", ("ended", "Norrsken Bank"))},
        ),
        (
            "wait the last two digits are wrong, it's +49 151 123456 87",
            {("phone", "", "+4915112345687")},
        ),
        (
            "my stomach cant handle spicy food anymore, i genuinely hate it now",
            {
                ("likes", "spicy food", ("ended", "spicy food")),
                ("dislikes", "spicy food", "spicy food"),
            },
        ),
        (
            "next monday i switch to nights as charge nurse",
            {("job_title", "", "charge nurse")},
        ),
        ("my divorce form Hamza was finalised today", {("spouse", "", ("ended", None))}),
    ],
)
def test_changes_as_typed(text, expected):
    assert said(text) == expected
