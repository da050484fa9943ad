"""Relatives and pets by name, several facts in one message, forms and the user's own
signature, as people type them (issue 22): the name in every position around the word for
the relative or pet, asides and emoji between them, a litter's kept one, introductions and
run-ons without punctuation, "Label: value" forms and bullet lists, a signature pasted as a
paragraph or below a "-- " line. Nothing is learned for a relative or pet without a name,
for someone else's, for another person's form or signature. Every sentence is read with the
optional parser and without it (DEWEE_PARSER=off): both must agree."""

from datetime import UTC, datetime

import pytest

from facts.models import Fact
from language.extraction import extract
from tests.factories import state

pytestmark = pytest.mark.django_db

NOW = datetime(2030, 6, 12, 12, tzinfo=UTC)
PEOPLE = ("spouse", "partner", "child", "pet")


@pytest.fixture(params=["auto", "off"])
def parser_mode(request, monkeypatch):
    monkeypatch.setenv("DEWEE_PARSER", request.param)
    return request.param


def said(text):
    """(predicate, value) of every statement; an ending's value is ("ended", X)."""
    return {
        (s.predicate, s.value if s.value is not None else ("ended", s.ended))
        for s in extract(text, now=NOW)
    }


def named(text):
    return {item for item in said(text) if item[0] in PEOPLE}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Right after the word for them, with what people put in between.
        ("my son jake has a cold", {("child", "Jake")}),
        ("my partner of 6 yrs, Kemal, is a pilot", {("partner", "Kemal")}),
        ("my son, 7, Oliver, loves lego", {("child", "Oliver")}),
        ("my little one, Aria, starts school in sept", {("child", "Aria")}),
        ("my 3 year old, Milo, refuses to wear shoes", {("child", "Milo")}),
        ("my 4yo Zara drew on the walls again", {("child", "Zara")}),
        ("my daughter - her name's Sun-hee - just turned 4", {("child", "Sun-hee")}),
        ("my wife 👩 Nadia is pregnant!!", {("spouse", "Nadia")}),
        ("my daugther mila is learning to swim", {("child", "Mila")}),
        ("my boyfreind tom is cooking tonight lol", {("partner", "Tom")}),
        ("my husband (Gio) and I are off to Lisbon tomorrow", {("spouse", "Gio")}),
        ("me and my gf Lily are going to the coast", {("partner", "Lily")}),
        ("my fiancé Marco booked the venue", {("partner", "Marco")}),
        ("my pup Bella is 2 today 🎂", {("pet", "Bella")}),
        ("my kitty Luna is sleeping on my keyboard", {("pet", "Luna")}),
        # "the" for one's own spouse, and for a pet as it is named.
        ("the wife (Anneke) says I snore", {("spouse", "Anneke")}),
        ("the hubby (Pete) made dinner", {("spouse", "Pete")}),
        ("the cat (Mango) knocked my coffee over", {("pet", "Mango")}),
        ("the dog's name is Ruby btw", {("pet", "Ruby")}),
        # The name first.
        ("jake (my son) has a cold", {("child", "Jake")}),
        ("Freddie - my son - is 10 today", {("child", "Freddie")}),
        ("Tom (the husband) is away", {("spouse", "Tom")}),
        ("Ziggy, our rescue greyhound, is scared of stairs", {("pet", "Ziggy")}),
        # Lists.
        (
            "my kids are Ana, Tomás and lil Bea",
            {("child", "Ana"), ("child", "Tomás"), ("child", "Bea")},
        ),
        ("we have two boys, Ravi and Dev", {("child", "Ravi"), ("child", "Dev")}),
        (
            "i have 3 kids - sam, jo and alex",
            {("child", "Sam"), ("child", "Jo"), ("child", "Alex")},
        ),
        ("my kids (Ben 8 and Lucy 5) are off school", {("child", "Ben"), ("child", "Lucy")}),
        ("two cats: Salt & Pepper", {("pet", "Salt"), ("pet", "Pepper")}),
        (
            "i've got a hamster called Nibbles and two goldfish, Fin and Bubbles",
            {("pet", "Nibbles"), ("pet", "Fin"), ("pet", "Bubbles")},
        ),
        ("proud mum to Jaden 💙", {("child", "Jaden")}),
        # Named by a verb or in the next clause or sentence.
        ("I'm married to a wonderful guy named Oskar", {("spouse", "Oskar")}),
        ("i married my high school sweetheart, Dario", {("spouse", "Dario")}),
        ("seeing a girl called Naomi atm, it's going well", {("partner", "Naomi")}),
        ("we had a baby girl last week, Amara", {("child", "Amara")}),
        ("new kitten alert 🐱 she's called Nala", {("pet", "Nala")}),
        ("got a bearded dragon, his name is Spike", {("pet", "Spike")}),
        ("we adopted a rescue greyhound named Ziggy", {("pet", "Ziggy")}),
        ("baby number 3 arrived at 4am!! meet Zain 💛", {("child", "Zain")}),
        (
            "our dog Bella had puppies! we're keeping one, Biscuit",
            {("pet", "Bella"), ("pet", "Biscuit")},
        ),
        ("the cat had kittens last month, we kept one and named her Fig", {("pet", "Fig")}),
        # A relative's own facts are theirs: only the name is the user's.
        ("my son Jake lives in Leeds", {("child", "Jake")}),
        ("my wife Sara works at Google", {("spouse", "Sara")}),
        ("my husband Omar is a chef in Bristol", {("spouse", "Omar")}),
    ],
)
def test_a_relative_or_pet_is_learned_by_its_name_as_typed(parser_mode, text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Without a name.
        "we have a dog",
        "my husband is working late",
        "new puppy alert!!",
        "we kept one, Sarah took the other",
        # Someone else's.
        "my friend's wife Ana is lovely",
        "my brother's kids Sol and Rio are staying",
        "our neighbour's cat Smudge keeps coming in",
        "my sister is married to a guy named Paolo",
        "Sarah's husband Ben is a dentist",
        "my friend Sophie got a kitten called Bean",
        # Wishes, the past, an ex.
        "if it's a boy we'll call him Arlo",
        "i want a cat called Pudding one day",
        "we used to have a cat called Tigger",
        "my ex Joel texted me",
        "my late husband Frank loved this song",
        # A clause that only looks like an aside.
        "my rabbit is literally called Rabbit, my 5yo named him",
    ],
)
def test_no_name_or_someone_elses_teaches_nothing_about_the_user(parser_mode, text):
    assert {item for item in named(text) if item != ("pet", "Rabbit")} == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm Priya, 34, a nurse at St Mary's in Leeds, vegetarian, love climbing",
            {
                ("job_title", "nurse"),
                ("employer", "St Mary's"),
                ("city", "Leeds"),
                ("diet", "vegetarian"),
                ("likes", "climbing"),
            },
        ),
        (
            "hey im tom i live in glasgow i work at tesco im a planner",
            {("city", "Glasgow"), ("employer", "tesco"), ("job_title", "planner")},
        ),
        (
            "im 27 i live in cardiff i work at tesco as a shift manager and i love football",
            {
                ("city", "Cardiff"),
                ("employer", "tesco"),  # a company typed in lower case stays so
                ("job_title", "shift manager"),
                ("likes", "football"),
            },
        ),
        (
            "about me: 29, software dev at Monzo, London, love running",
            {
                ("job_title", "software dev"),
                ("employer", "Monzo"),
                ("city", "London"),
                ("likes", "running"),
            },
        ),
        (
            "Hi, I'm Malik — data analyst at Shopify, living in Toronto with my wife Hana",
            {
                ("job_title", "data analyst"),
                ("employer", "Shopify"),
                ("city", "Toronto"),
                ("spouse", "Hana"),
            },
        ),
        (
            "Bio: Lisbon-based UX designer, speaks Portuguese and French, loves surfing",
            {
                ("city", "Lisbon"),
                ("job_title", "UX designer"),
                ("language", "Portuguese"),
                ("language", "French"),
                ("likes", "surfing"),
            },
        ),
    ],
)
def test_several_facts_in_one_message(parser_mode, text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Name: Jonas\nCity: Berlin\nEmployer: Zalando\nLanguages: German, English",
            {
                ("city", "Berlin"),
                ("employer", "Zalando"),
                ("language", "German"),
                ("language", "English"),
            },
        ),
        (
            "Name: Ahmed\nLocation: Cairo\nOccupation: Civil Engineer\nEmail: ahmed.h@gmail.com",
            {("city", "Cairo"), ("job_title", "Civil Engineer"), ("email", "ahmed.h@gmail.com")},
        ),
        (
            "my details for the booking:\nname - Lea Roth\nemail - lea.roth@web.de",
            {("email", "lea.roth@web.de")},
        ),
        (
            "- based in Lyon\n- work at Sanofi\n- vegan\n- speak French and Spanish",
            {
                ("city", "Lyon"),
                ("employer", "Sanofi"),
                ("diet", "vegan"),
                ("language", "French"),
                ("language", "Spanish"),
            },
        ),
        # Someone else's form or list.
        ("here's my brother's info:\nName: Tom\nCity: Leeds\nJob: plumber", set()),
        ("can you fill this in for my mum?\nCity: Cork\nJob: retired nurse", set()),
        ("my husband's details:\n- works at BP\n- lives in Aberdeen", set()),
    ],
)
def test_a_form_or_bullet_list_of_the_users(parser_mode, text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "thanks for the help!\n\n-- \nPriya Raman\nSenior PM, Acme\n"
            "+44 7700 900123\npriya@acme.com",
            {
                ("job_title", "Senior PM"),
                ("employer", "Acme"),
                ("phone", "+44 7700 900123"),
                ("email", "priya@acme.com"),
            },
        ),
        (
            "here's my new signature, does it look ok?\n\nPriya Raman\n"
            "Senior Product Manager | Acme Ltd\npriya@acme.com",
            {
                ("job_title", "Senior Product Manager"),
                ("employer", "Acme Ltd"),
                ("email", "priya@acme.com"),
            },
        ),
        (
            "Best,\nJana Novak\nHR Manager, Skoda Auto\njana.novak@skoda.cz\n\n"
            "^ that's my sig, can you save it",
            {
                ("job_title", "HR Manager"),
                ("employer", "Skoda Auto"),
                ("email", "jana.novak@skoda.cz"),
            },
        ),
        # Another person's signature.
        (
            "got this email, what do you think?\n\nHi, we'd like to offer you the job.\n--\n"
            "Mark Bell\nRecruiter, Hays\nmark.bell@hays.com",
            set(),
        ),
        ("his signature:\nDaniel Okafor\nCTO | Paystack\ndan@paystack.com", set()),
        (
            "can you check this email for me?\n\n> Hi team, the meeting moved to 3pm.\n> --\n"
            "> Mark Jones\n> Head of Sales, Initech\n> mark@initech.com",
            set(),
        ),
    ],
)
def test_the_users_own_signature_and_no_one_elses(parser_mode, text, expected):
    assert said(text) == expected


def check(api, text):
    response = api.post(
        "/v1/facts/check",
        {"agent_id": "support-bot", "user": "u1", "text": text, "now": NOW.isoformat()},
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_a_relatives_own_facts_do_not_change_the_users(api, agent):
    state(agent, "Manchester", predicate="city")
    state(agent, "Amazon", predicate="employer")
    data = check(api, "my son Jake lives in Leeds and my wife Sara works at Google")
    assert sorted((n["predicate"], n["value"]) for n in data["new"]) == [
        ("child", "Jake"),
        ("spouse", "Sara"),
    ]
    assert data["contradicted"] == []


def test_a_form_in_a_message_changes_the_users_city(api, agent):
    state(agent, "Manchester", predicate="city")
    data = check(api, "updated my profile:\nCity: Leeds\nJob: nurse")
    assert [(c["predicate"], c["new_value"]) for c in data["contradicted"]] == [("city", "Leeds")]
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("job_title", "nurse")]
    assert Fact.objects.get(agent=agent, predicate="city").value == "Manchester"  # only checked
