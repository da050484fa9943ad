"""Several facts in one message, as people type them (issue 22): introductions and run-ons
read item by item, "I'm in X" only for a place the gazetteer knows, the user's own email
signature (and not someone else's), form fields, chat spellings and typos, birthdays written
many ways, languages and skills in lists."""

import pytest

from facts.models import Fact
from tests.facts.test_extraction import said

pytestmark = pytest.mark.django_db  # the phone normaliser reads the settings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "hello! I'm a midwife in Bergen, married to Sigrid",
            {
                ("job_title", "", "midwife"),
                ("city", "", "Bergen"),
                ("spouse", "", "Sigrid"),
            },
        ),
        (
            "Quick intro: Ravi, data analyst at Zalando, Berlin based, speak Hindi, German "
            "and a bit of French",
            {
                ("job_title", "", "data analyst"),
                ("employer", "", "Zalando"),
                ("city", "", "Berlin"),
                ("language", "hindi", "Hindi"),
                ("language", "german", "German"),
                ("language", "french", "French"),
            },
        ),
        (
            "About me: 52, architect, Valencia, vegetarian",
            {
                ("job_title", "", "architect"),
                ("city", "", "Valencia"),
                ("diet", "", "vegetarian"),
            },
        ),
        (
            "born 14 March 1979, in Lagos now, work for Dangote",
            {
                ("birthday", "", "1979-03-14"),
                ("city", "", "Lagos"),
                ("employer", "", "Dangote"),
            },
        ),
        (
            "I live in Oporto, work as a pharmacist for Sonae, speak portuguese and spanish",
            {
                ("city", "", "Oporto"),
                ("job_title", "", "pharmacist"),
                ("employer", "", "Sonae"),
                ("language", "portuguese", "Portuguese"),
                ("language", "spanish", "Spanish"),
            },
        ),
        (
            "Hey, Ines here 👋 radiographer at Hospital da Luz, living in Lisbon",
            {
                ("job_title", "", "radiographer"),
                ("employer", "", "Hospital da Luz"),
                ("city", "", "Lisbon"),
            },
        ),
        (
            "hi, im a chef in Cork, Ireland, 1 cat called Pixel",
            {
                ("job_title", "", "chef"),
                ("city", "", "Cork"),
                ("country", "", "Ireland"),
                ("pet", "pixel", "Pixel"),
            },
        ),
    ],
)
def test_an_introduction_is_read_item_by_item(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Items after someone else are theirs.
        "my brother Karim, a dentist in Lyon, married to Sara",
        "My sister is a nurse in Leeds, two kids, lives in Hull",
        # A list that is no introduction: a greeting then a question.
        "hi, any tips for a nurse in Cork?",
    ],
)
def test_items_about_someone_else_state_nothing_about_the_user(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm in Nairobi and work at Safaricom",
            {("city", "", "Nairobi"), ("employer", "", "Safaricom")},
        ),
        ("im in da nang now", {("city", "", "Da Nang")}),
        ("I'm in Montreal till further notice", {("city", "", "Montreal")}),
        ("I'm in a meeting", set()),
        ("I'm in Rome for the weekend", set()),
        ("I'm in Madrid this week for a conference", set()),
        ("I'm in trouble now", set()),
        ("I'm a teacher in Kraków", {("job_title", "", "teacher"), ("city", "", "Kraków")}),
        (
            "I'm a vegan baker living in Leipzig",
            {("job_title", "", "baker"), ("city", "", "Leipzig"), ("diet", "", "vegan")},
        ),
        ("I teach maths in Tampere", {("city", "", "Tampere")}),
        ("I work in Turin two days a week", set()),
        # A country only when the text names it.
        ("I'm a nurse in Cork", {("job_title", "", "nurse"), ("city", "", "Cork")}),
    ],
)
def test_a_stay_is_a_place_the_gazetteer_knows(text, expected):
    assert said(text) == expected


def test_the_users_own_signature_gives_title_employer_phone_and_email():
    text = (
        "here's my new signature, ok?\n\n"
        "Kind regards,\n"
        "Noor Haddad\n"
        "Senior Actuary, Gulf Re\n"
        "M: +971 50 555 0177\n"
        "noor.haddad@gulfre.ae"
    )
    assert said(text) == {
        ("job_title", "", "Senior Actuary"),
        ("employer", "", "Gulf Re"),
        ("phone", "", "+971 50 555 0177"),
        ("email", "", "noor.haddad@gulfre.ae"),
    }


def test_a_signature_on_one_line_with_bars():
    text = (
        "new email footer: Tomasz Nowak | Site Engineer | Budimex | +48 601 555 012 | "
        "t.nowak@budimex.pl"
    )
    assert said(text) == {
        ("job_title", "", "Site Engineer"),
        ("employer", "", "Budimex"),
        ("phone", "", "+48 601 555 012"),
        ("email", "", "t.nowak@budimex.pl"),
    }


@pytest.mark.parametrize(
    "text",
    [
        # Nobody says it is theirs: anyone's signature.
        "Best,\nLeo Marsh\nHead of Sales, Brightwave\nleo@brightwave.io",
        # Someone else's, quoted in a reply.
        "can you answer this?\n> Thanks,\n> Priya Sen\n> CTO, Loomly\n> priya@loomly.com\n"
        "that's my boss",
        "this is my manager's signature:\nPriya Sen | CTO | Loomly | priya@loomly.com",
    ],
)
def test_a_signature_that_is_not_the_users_states_nothing(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "for the application form: dob 07/09/1991, tel +33 6 55 55 01 23, e-mail ana.b@free.fr",
            {
                ("birthday", "", "1991-09-07"),
                ("phone", "", "+33 6 55 55 01 23"),
                ("email", "", "ana.b@free.fr"),
            },
        ),
        (
            "b. 1984-10-02, mob +44 7700 900456",
            {("birthday", "", "1984-10-02"), ("phone", "", "+44 7700 900456")},
        ),
        (
            "write to me at kai@kaimail.net or call +1 206 555 0148",
            {("email", "", "kai@kaimail.net"), ("phone", "", "+1 206 555 0148")},
        ),
        (
            "contact: +61 2 5550 1234 / mia@reef.au",
            {("phone", "", "+61 2 5550 1234"), ("email", "", "mia@reef.au")},
        ),
        # "(Irish number)": the country said beside a number typed without its code.
        ("text me on 087 555 0199 (irish number)", {("phone", "", "+353875550199")}),
        # Someone else's field.
        ("my dad's phone +44 7700 900111", set()),
    ],
)
def test_form_fields_are_the_users(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i wrk at Deloitte", {("employer", "", "Deloitte")}),
        ("workin at Canva these days", {("employer", "", "Canva")}),
        ("ive been coding in rust for 4 yrs", {("skill", "rust", "rust")}),
        ("moved 2 glasgow last month", {("city", "", "Glasgow")}),
        (
            "im a software engineer @ Spotify",
            {("job_title", "", "software engineer"), ("employer", "", "Spotify")},
        ),
        ("im vegitarian", {("diet", "", "vegetarian")}),
        (
            "i speek dutch and a little german",
            {("language", "dutch", "Dutch"), ("language", "german", "German")},
        ),
        (
            "I work in Hyundai like welder",
            {("job_title", "", "welder"), ("employer", "", "Hyundai")},
        ),
        ("i dont wrk at Deloitte", set()),
        # "u" is the listener.
        ("do u work at Deloitte?", set()),
    ],
)
def test_chat_spellings_are_read_as_the_words_they_stand_for(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("born 5 Jan 1995", "1995-01-05"),
        ("my bday's the 3rd of june", "--06-03"),
        ("b. 1990-05-12", "1990-05-12"),
        ("birthday's on the 21st of october, don't forget 🎂", "--10-21"),
        ("turning 40 on march 2nd", "--03-02"),
        ("dob: 3/4/90", "1990-04-03"),
        ("my birthday is 30 april if anyone's asking", "--04-30"),
    ],
)
def test_birthdays_written_many_ways(text, expected):
    assert said(text) == {("birthday", "", expected)}


def test_my_sisters_birthday_is_not_mine():
    assert said("my sister's bday is 3 june") == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I am speaking Czech, English and little bit Polish",
            {
                ("language", "czech", "Czech"),
                ("language", "english", "English"),
                ("language", "polish", "Polish"),
            },
        ),
        (
            "speak georgian russian and english",
            {
                ("language", "georgian", "Georgian"),
                ("language", "russian", "Russian"),
                ("language", "english", "English"),
            },
        ),
        ("add kotlin to my skills", {("skill", "kotlin", "kotlin")}),
        (
            "I'm good at pottery and woodwork, very relaxing stuff",
            {("skill", "pottery", "pottery"), ("skill", "woodwork", "woodwork")},
        ),
        ("went fully pescatarian this spring", {("diet", "", "pescatarian")}),
    ],
)
def test_languages_skills_and_diet_in_chat(text, expected):
    assert said(text) == expected


def test_an_introduction_checked_over_rest_adds_each_fact(api, agent):
    text = "hi! I'm Leila, a pharmacist in Tunis, tel +216 20 555 123, born 9 May 1990"
    response = api.post("/v1/facts/check", {"agent_id": agent.agent_id, "user": "u1", "text": text})
    assert response.status_code == 200, response.content
    new = {(item["predicate"], item["value"]) for item in response.json()["new"]}
    assert new == {
        ("job_title", "pharmacist"),
        ("city", "Tunis"),
        ("phone", "+21620555123"),
        ("birthday", "1990-05-09"),
    }


def test_a_new_signature_applied_changes_the_held_contacts(api, agent):
    body = {"agent_id": agent.agent_id, "user": "u1"}
    old = "my email is sam@oldco.com and my number is +44 7700 900222"
    assert api.post("/v1/facts/check", {**body, "text": old, "apply": True}).status_code == 200
    text = "my new signature:\nSam Reed | Product Lead | Nettle | +44 7700 900333 | sam@nettle.io"
    response = api.post("/v1/facts/check", {**body, "text": text, "apply": True})
    assert response.status_code == 200, response.content
    current = {
        f.predicate: f.value
        for f in Fact.objects.filter(
            agent=agent, status="current", predicate__in=["email", "phone", "employer", "job_title"]
        )
    }
    assert current == {
        "email": "sam@nettle.io",
        "phone": "+447700900333",
        "employer": "Nettle",
        "job_title": "Product Lead",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I know Kotlin too", {("skill", "kotlin", "Kotlin")}),
        (
            "I know Figma and Blender inside out",
            {("skill", "figma", "Figma"), ("skill", "blender", "Blender")},
        ),
        ("I know Marta", set()),
        (
            "skills: welding, forklift driving",
            {("skill", "welding", "welding"), ("skill", "forklift driving", "forklift driving")},
        ),
        (
            "I'm trained in sign language interpreting",
            {("skill", "sign language interpreting", "sign language interpreting")},
        ),
        ("my korean is pretty decent now", {("language", "korean", "Korean")}),
        ("my brother is pretty decent now", set()),
        ("been vegan since 2021", {("diet", "", "vegan")}),
        ("spent years in Kyoto, now I'm back in Nagoya", {("city", "", "Nagoya")}),
        ("back in 2015 I was in Nagoya", set()),
        ("we emigrated to Canada last year", {("country", "", "Canada")}),
    ],
)
def test_skills_languages_and_places_said_in_passing(text, expected):
    assert said(text) == expected
