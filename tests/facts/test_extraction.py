"""The rule-based extractor: each predicate, the change and ending phrasings, future dates,
and every kind of trap (which must state nothing)."""

from datetime import UTC, datetime

import pytest

from language.extraction import extract

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def said(text):
    """(predicate, qualifier, value) of each statement; an ending's value is ("ended", X)."""
    return {
        (s.predicate, s.qualifier, s.value if s.value is not None else ("ended", s.ended))
        for s in extract(text, now=NOW)
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work at Google.", {("employer", "", "Google")}),
        ("I just joined Figma!", {("employer", "", "Figma")}),
        ("I started at Bank of America last week", {("employer", "", "Bank of America")}),
        ("Got a job at Stripe, I now work for Stripe", {("employer", "", "Stripe")}),
        ("i work at google", {("employer", "", "google")}),
        (
            "I'm a nurse at St. Mary's hospital",
            {("job_title", "", "nurse"), ("employer", "", "St. Mary's")},
        ),
        (
            "I got a job as a data scientist at Spotify",
            {("job_title", "", "data scientist"), ("employer", "", "Spotify")},
        ),
        ("I was promoted to senior manager", {("job_title", "", "senior manager")}),
        ("I live in Lisbon, Portugal", {("city", "", "Lisbon"), ("country", "", "Portugal")}),
        ("I relocated to Denver.", {("city", "", "Denver")}),
        ("We moved to the Netherlands", {("country", "", "Netherlands")}),
        ("My email is ana@example.com", {("email", "", "ana@example.com")}),
        ("Text me at +1 415 555 0100", {("phone", "", "+1 415 555 0100")}),
        ("My birthday is March 3rd", {("birthday", "", "--03-03")}),
        ("I was born on 12 May 1990", {("birthday", "", "1990-05-12")}),
        ("My wife Ana is great", {("spouse", "", "Ana")}),
        ("I married Carlos", {("spouse", "", "Carlos")}),
        ("My girlfriend is Jane", {("partner", "", "Jane")}),
        ("I went vegan", {("diet", "", "vegan")}),
        ("I'm a vegetarian", {("diet", "", "vegetarian")}),
        ("I love sushi and ramen", {("likes", "sushi", "sushi"), ("likes", "ramen", "ramen")}),
        ("I'm a huge fan of jazz", {("likes", "jazz", "jazz")}),
        ("I can't stand cilantro", {("dislikes", "cilantro", "cilantro")}),
        ("I don't like horror movies", {("dislikes", "horror movies", "horror movies")}),
        (
            "I speak Portuguese and a little French",
            {("language", "portuguese", "Portuguese"), ("language", "french", "French")},
        ),
        ("I'm good at Python", {("skill", "python", "Python")}),
        ("My son Leo just turned 5", {("child", "leo", "Leo")}),
        ("We had a baby girl named Mia", {("child", "mia", "Mia")}),
        ("My dog Rex loves walks", {("pet", "rex", "Rex")}),
        # A pet counts only with its name (bench/facts_quality/natural/README.md).
        ("We got a cat", set()),
        ("I adopted a puppy named Biscuit", {("pet", "biscuit", "Biscuit")}),
        ("I have a golden retriever named Buddy", {("pet", "buddy", "Buddy")}),
        ("I have two kids, Sam and Ella", {("child", "sam", "Sam"), ("child", "ella", "Ella")}),
        ("Jazz is my favorite music.", {("likes", "jazz", "Jazz")}),
        ("Spanish is my native language.", {("language", "spanish", "Spanish")}),
        ("I am now the CTO of Acme.", {("job_title", "", "CTO"), ("employer", "", "Acme")}),
        ("My bday's on the 4th of July", {("birthday", "", "--07-04")}),
        ("I work in marketing at Nike.", {("employer", "", "Nike")}),
        ("I'm now married to Lena.", {("spouse", "", "Lena")}),
        ("Drop me a line at sam@work.co", {("email", "", "sam@work.co")}),
    ],
)
def test_each_predicate(text, expected):
    assert said(text) == expected


def test_the_seed_sentence_states_a_new_city_and_employer_with_their_evidence():
    found = {
        s.predicate: s
        for s in extract("I just moved to Surabaya for my new job at Anthropic", now=NOW)
    }
    assert (found["city"].value, found["city"].evidence) == ("Surabaya", "I just moved to Surabaya")
    assert (found["employer"].value, found["employer"].evidence) == (
        "Anthropic",
        "for my new job at Anthropic",
    )
    assert {s.verification for s in found.values()} == {"stated"}


def test_a_trap_in_one_clause_does_not_hide_a_statement_in_another():
    assert said("My sister works at Adobe, and I just joined Figma") == {("employer", "", "Figma")}
    assert said("I don't like sushi but I love ramen") == {
        ("dislikes", "sushi", "sushi"),
        ("likes", "ramen", "ramen"),
    }
    assert said("I moved to Berlin. Should I learn German?") == {("city", "", "Berlin")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I left Dropbox",
            {("employer", "", ("ended", "Dropbox")), ("city", "", ("ended", "Dropbox"))},
        ),
        (
            # A name "with" whom one no longer is may be a partner's: each slot holding it ends.
            "I'm not with Acme anymore",
            {
                ("employer", "", ("ended", "Acme")),
                ("partner", "", ("ended", "Acme")),
                ("spouse", "", ("ended", "Acme")),
            },
        ),
        ("I quit", {("employer", "", ("ended", None))}),
        ("I quit my job at Acme", {("employer", "", ("ended", "Acme"))}),
        ("I used to work at IBM", {("employer", "", ("ended", "IBM"))}),
        ("I no longer work at IBM", {("employer", "", ("ended", "IBM"))}),
        ("I don't work at Google anymore", {("employer", "", ("ended", "Google"))}),
        ("we split up", {("spouse", "", ("ended", None)), ("partner", "", ("ended", None))}),
        ("We got divorced", {("spouse", "", ("ended", None))}),
        ("I broke up with Sam", {("partner", "", ("ended", "Sam"))}),
        ("I'm no longer a vegetarian", {("diet", "", ("ended", "vegetarian"))}),
        ("I no longer live in Chicago", {("city", "", ("ended", "Chicago"))}),
        # "I don't like sushi anymore" also states a dislike (test_natural_changes.py).
        ("I'm not into sushi anymore", {("likes", "sushi", ("ended", "sushi"))}),
        ("My dog Max passed away", {("pet", "max", ("ended", "Max"))}),
    ],
)
def test_endings_name_what_they_end_and_give_no_new_value(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "predicate", "value", "start"),
    [
        ("I join Canva next month", "employer", "Canva", datetime(2027, 1, 1, tzinfo=UTC)),
        (
            "Starting June 1 I'll be at Stripe.",
            "employer",
            "Stripe",
            datetime(2027, 6, 1, tzinfo=UTC),
        ),
        ("I'm moving to Berlin in two weeks", "city", "Berlin", datetime(2026, 12, 15, tzinfo=UTC)),
        ("I start at Google tomorrow", "employer", "Google", datetime(2026, 12, 2, tzinfo=UTC)),
    ],
)
def test_a_future_change_holds_from_its_date(text, predicate, value, start):
    (statement,) = extract(text, now=NOW)
    assert (statement.predicate, statement.value, statement.valid_from) == (predicate, value, start)


@pytest.mark.parametrize(
    "text",
    [
        # questions
        "Do you think I should relocate to Porto?",
        "Should I take the job at Meta?",
        "Is it weird that I work at Google?",
        # hypotheticals
        "If we ever lived in Vienna, I'd learn German.",
        "I'd love to work at NASA.",
        "I wish I lived in Paris.",
        # plans and wishes
        "I might apply at Spotify.",
        "I want to move to Berlin.",
        "I'm thinking about moving to Lisbon.",
        "I'm moving to Berlin",
        "Maybe I'll join a startup.",
        # other people
        "My sister works at Adobe.",
        "My uncle taught at MIT.",
        "My brother just moved to Seattle.",
        "My husband is a doctor.",
        # the past
        "I lived in Boston years ago.",
        "Back in 2015 I worked at IBM.",
        "When I was a kid I lived in Ohio.",
        "I moved to Austin in 2010.",
        # negation
        "I don't work at Google.",
        "I never lived in London.",
        "I'm not a nurse.",
        "I don't live in Boston.",
        # reported speech
        "Tom said I work at Oracle.",
        "My mom thinks I live in Denver.",
        "Apparently I work at Oracle now.",
        # common nouns and judgements, not values
        "I joined the team last year.",
        "I left my keys at home.",
        "I quit smoking.",
        "I like to think I'm a good cook.",
    ],
)
def test_traps_state_nothing(text):
    assert extract(text, now=NOW) == []


def test_a_future_without_a_date_is_only_a_plan_and_a_plan_with_a_date_still_is():
    assert extract("I'm starting at Canva", now=NOW) == []
    assert extract("I'm planning to join Canva next month", now=NOW) == []


def test_a_clause_that_sets_the_scene_traps_the_next_one():
    assert extract("Back in 2015, I joined IBM.", now=NOW) == []
    assert extract("If I get the job, I'll move to Berlin next month.", now=NOW) == []
    assert said("Hope you're well, I just moved to Berlin.") == {("city", "", "Berlin")}


def test_several_pets_of_one_clause():
    assert said("I have a cat named Whiskers and a dog named Bo.") == {
        ("pet", "whiskers", "Whiskers"),
        ("pet", "bo", "Bo"),
    }


def test_a_chat_message_without_its_subject_speaks_for_the_speaker():
    (statement,) = extract("So, just moved to Lisbon!", now=NOW)
    assert (statement.predicate, statement.value) == ("city", "Lisbon")
    assert statement.evidence == "just moved to Lisbon"


def test_my_partner_and_i_is_one_subject():
    assert said("My wife and I split up") == {("spouse", "", ("ended", None))}
    assert said("My boyfriend and I broke up.") == {("partner", "", ("ended", None))}


def test_each_statement_comes_once():
    assert said("I work at Google. I work at Google!") == {("employer", "", "Google")}


def test_we_statements_about_where_the_household_lives_are_stated():
    # The speaker lives where their household does: "we moved" changes their city as
    # "I moved" does, over a city they stated themselves.
    (statement,) = extract("We moved to Austin.", now=NOW)
    assert (statement.verification, statement.confidence) == ("stated", 1.0)


def test_we_statements_about_work_are_inferred():
    # "We" at work is as often the team or the company as the speaker.
    (statement,) = extract("We work for Acme.", now=NOW)
    assert (statement.predicate, statement.verification) == ("employer", "inferred")
