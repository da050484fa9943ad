"""Everyday phrasings of the vocabulary beyond the textbook ones: a subject left out of a
coordinated clause, contacts given without "my email is", partner and diet words, likes and
skills, pets named in an appositive, changes with a date and endings. Each rule has its
paraphrases and the near misses that must state nothing."""

from datetime import UTC, datetime

import pytest

from language.extraction import extract
from tests.facts.test_extraction import NOW, said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I live in Jakarta and work at Google",
            {("city", "", "Jakarta"), ("employer", "", "Google")},
        ),
        (
            "I'm based in Oslo and working for Equinor",
            {("city", "", "Oslo"), ("employer", "", "Equinor")},
        ),
        (
            "I just moved to Porto and joined Farfetch",
            {("city", "", "Porto"), ("employer", "", "Farfetch")},
        ),
        (
            "I joined Figma and moved to London",
            {("employer", "", "Figma"), ("city", "", "London")},
        ),
        (
            "I work at Google but live in Zurich",
            {("employer", "", "Google"), ("city", "", "Zurich")},
        ),
        (
            "I just moved to Lisbon for a new job at Figma",
            {("city", "", "Lisbon"), ("employer", "", "Figma")},
        ),
        (
            "I relocated to Austin for a job with Dell",
            {("city", "", "Austin"), ("employer", "", "Dell")},
        ),
    ],
)
def test_a_subject_left_out_of_a_coordinated_clause_is_the_speaker(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My brother lives in Jakarta and works at Google", set()),
        ("My brother joined Figma and moved to London", set()),
        ("Did you join Figma and move to London?", set()),
        ("I don't live in Jakarta and work at Google", set()),
        ("I'll move to Paris and work at Google", set()),
        ("I lived in Oslo and worked at Equinor", set()),
        ("I'd love to live in Oslo and work at Equinor", set()),
        ("Back in 2015 I lived in Boston and worked at IBM", set()),
        ("If I move to Lisbon and work at Figma, I'd be happy", set()),
        ("My sister moved to Lisbon for a new job at Figma", set()),
        ("I'm looking for a new job at Figma", set()),
    ],
)
def test_a_coordinated_clause_keeps_the_trap_of_its_first_half(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm at Netflix now", "Netflix"),
        ("I'm with Deloitte these days", "Deloitte"),
        ("I've taken a position with the World Bank", "World Bank"),
        ("I took a job at Shopify", "Shopify"),
        ("I accepted an offer from Stripe", "Stripe"),
        ("I've accepted a role with Canonical", "Canonical"),
    ],
)
def test_employer_phrasings(text, value):
    assert said(text) == {("employer", "", value)}


@pytest.mark.parametrize(
    "text",
    [
        "I'm at the gym now",
        "I'm at home now",
        "My wife accepted an offer from Stripe",
        "Should I accept an offer from Stripe?",
        "I might accept the offer from Stripe",
        "I turned down an offer from Stripe",
    ],
)
def test_employer_near_misses_state_nothing(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use j.doe@example.net for anything official", {("email", "", "j.doe@example.net")}),
        ("You can reach me at kim@mail.org", {("email", "", "kim@mail.org")}),
        ("I'm reachable at ola@firma.no", {("email", "", "ola@firma.no")}),
        ("you can text me on +44 20 7946 0958", {("phone", "", "+44 20 7946 0958")}),
        ("I'm on +351 912 345 678 most evenings", {("phone", "", "+351 912 345 678")}),
        ("email my boss at boss@corp.com", set()),
        ("my boss's email is boss@corp.com", set()),
        ("Use the form at help@corp.com? no", set()),
        ("call my mum on +44 20 7946 0000", set()),
    ],
)
def test_contacts_given_as_the_speakers_own(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my gf Anna is lovely", {("partner", "", "Anna")}),
        ("my new boyfriend Luca is sweet", {("partner", "", "Luca")}),
        ("My fiancée Marta loves it", {("partner", "", "Marta")}),
        ("My bf, Tom, cooks", {("partner", "", "Tom")}),
        ("my girlfriend's name is Priya", {("partner", "", "Priya")}),
        ("My sister's boyfriend Luca is sweet", set()),
        ("Is your boyfriend Luca coming?", set()),
    ],
)
def test_partner_words(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm pescatarian", {("diet", "", "pescatarian")}),
        ("I'm on a keto diet", {("diet", "", "keto")}),
        ("I've gone vegan", {("diet", "", "vegan")}),
        ("I'm really fond of jazz", {("likes", "jazz", "jazz")}),
        ("I'm quite fond of hiking", {("likes", "hiking", "hiking")}),
        ("I'm into climbing", {("likes", "climbing", "climbing")}),
        ("Techno is my jam", {("likes", "techno", "Techno")}),
        ("I'm not fond of jazz", set()),
        ("My dad is fond of jazz", set()),
        ("I know Rust pretty well", {("skill", "rust", "Rust")}),
        ("I know Excel really well", {("skill", "excel", "Excel")}),
        ("I'm handy with Photoshop", {("skill", "photoshop", "Photoshop")}),
        ("I'm pretty handy with a soldering iron", {("skill", "soldering iron", "soldering iron")}),
        ("I know him pretty well", set()),
        ("I know the area really well", set()),
        ("I don't know Rust very well", set()),
        ("My son is handy with Photoshop", set()),
    ],
)
def test_diets_likes_and_skills(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have a daughter, Yuki, who is 4", {("child", "yuki", "Yuki")}),
        (
            "I've got two cats, Miso and Tofu",
            {("pet", "miso", "Miso"), ("pet", "tofu", "Tofu")},
        ),
        (
            "We have three dogs: Rex, Bo and Luna",
            {("pet", "rex", "Rex"), ("pet", "bo", "Bo"), ("pet", "luna", "Luna")},
        ),
        ("My cats are called Pip and Zed", {("pet", "pip", "Pip"), ("pet", "zed", "Zed")}),
        ("My sister has two cats, Miso and Tofu", set()),
    ],
)
def test_children_and_pets_in_an_appositive(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "predicate", "value", "start"),
    [
        (
            "I'll be relocating to Paris on October 1",
            "city",
            "Paris",
            datetime(2027, 10, 1, tzinfo=UTC),
        ),
        (
            "As of August 1 I'll be the head of design",
            "job_title",
            "head of design",
            datetime(2027, 8, 1, tzinfo=UTC),
        ),
        (
            "starting next monday I'm at Revolut",
            "employer",
            "Revolut",
            datetime(2026, 12, 7, tzinfo=UTC),
        ),
    ],
)
def test_future_changes_with_a_date(text, predicate, value, start):
    found = [s for s in extract(text, now=NOW) if s.predicate == predicate]
    assert [(s.value, s.valid_from) for s in found] == [(value, start)]


def test_an_ending_with_a_future_date_starts_on_that_date():
    found = extract("I'm leaving Intel on June 30", now=NOW)
    # As with "I left Dropbox", the name may be a company or a city: both endings are offered.
    assert [(s.predicate, s.ended, s.value, s.valid_from) for s in found] == [
        ("employer", "Intel", None, datetime(2027, 6, 30, tzinfo=UTC)),
        ("city", "Intel", None, datetime(2027, 6, 30, tzinfo=UTC)),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I'll be relocating to Paris someday",
        "I'm leaving Intel",
        "I'm thinking of leaving Intel on June 30",
        "My boss is leaving Intel on June 30",
    ],
)
def test_a_future_change_without_a_date_or_with_a_trap_is_a_plan(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I retired from teaching", {("job_title", "", ("ended", None))}),
        ("I've retired from nursing", {("job_title", "", ("ended", None))}),
        ("we gave our cat away", {("pet", "cat", ("ended", "cat"))}),
        ("We rehomed our dog", {("pet", "dog", ("ended", "dog"))}),
        ("my old number 555 1234 is disconnected", {("phone", "", ("ended", "555 1234"))}),
        ("My old phone number was cancelled", {("phone", "", ("ended", None))}),
        ("I don't eat sushi anymore", {("likes", "sushi", ("ended", "sushi"))}),
        ("I stopped eating chocolate", {("likes", "chocolate", ("ended", "chocolate"))}),
        ("My dad retired from teaching", set()),
        ("I don't eat sushi", set()),
        ("My brother's old number is disconnected", set()),
        ("Did you give your cat away?", set()),
    ],
)
def test_endings_in_everyday_words(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm from Brazil but live in Toronto", {("city", "", "Toronto")}),
        ("I don't live in Paris but work at Renault", {("employer", "", "Renault")}),
        ("I'm Berlin-based", {("city", "", "Berlin")}),
        ("I'm working as a barista these days", {("job_title", "", "barista")}),
        ("I'm a teacher nowadays", {("job_title", "", "teacher")}),
        ("I have a boyfriend named Tom", {("partner", "", "Tom")}),
        ("I've got a girlfriend called Ines", {("partner", "", "Ines")}),
        ("I have a wife named Ana", {("spouse", "", "Ana")}),
        ("I don't have a dog anymore", {("pet", "dog", ("ended", "dog"))}),
        ("We no longer have our rabbit", {("pet", "rabbit", ("ended", "rabbit"))}),
        ("My friend has a boyfriend named Tom", set()),
        ("My sister doesn't have a dog anymore", set()),
        ("I don't have a dog", set()),
        ("My cousin is Berlin-based", set()),
    ],
)
def test_more_everyday_phrasings(text, expected):
    assert said(text) == expected


def test_used_to_reaches_the_verb_that_shares_its_subject():
    assert said("I used to live in Oslo and work at Equinor") == {
        ("city", "", ("ended", "Oslo")),
        ("employer", "", ("ended", "Equinor")),
    }


def test_a_shared_subject_is_quoted_from_the_text():
    found = {s.predicate: s for s in extract("I live in Jakarta and work at Google", now=NOW)}
    assert found["city"].evidence == "I live in Jakarta"
    assert found["employer"].evidence.endswith("work at Google")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Currently working at Datadog", {("employer", "", "Datadog")}),
        ("Working at Datadog now", {("employer", "", "Datadog")}),
        ("I've worked at Google for five years", {("employer", "", "Google")}),
        ("I've been with Google since 2020", {("employer", "", "Google")}),
        ("I've been a nurse for ten years", {("job_title", "", "nurse")}),
        ("I'm a huge Arsenal fan", {("likes", "arsenal", "Arsenal")}),
        ("I'm at the Hilton now", set()),
        ("I worked at Google for five years", set()),
        ("I've been at Heathrow for hours", set()),
        ("My dad has been with Google since 2020", set()),
        ("Working at Datadog would be nice", set()),
        ("Is Tom a huge Arsenal fan?", set()),
        ("My brother is a huge Arsenal fan", set()),
    ],
)
def test_current_work_in_the_present_perfect_and_fans(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved from Berlin to Munich", {("city", "", "Munich")}),
        ("We relocated from Ohio to Denver", {("city", "", "Denver")}),
        ("I moved from Berlin", {("city", "", ("ended", "Berlin"))}),
        ("I'm now head of marketing", {("job_title", "", "head of marketing")}),
        ("Today was my last day at Oracle", {("employer", "", ("ended", "Oracle"))}),
        ("I got a new phone number, 0161 496 0000", {("phone", "", "0161 496 0000")}),
        ("I've got a new email address: kai@hey.com", {("email", "", "kai@hey.com")}),
        ("I've gotten into bouldering", {("likes", "bouldering", "bouldering")}),
        ("I took up running", {("likes", "running", "running")}),
        ("My youngest, Mia, turned 3", {("child", "mia", "Mia")}),
        ("My brother moved from Berlin to Munich", set()),
        ("Was today your last day at Oracle?", set()),
        ("My wife got a new phone number, 0161 496 0000", set()),
        ("My son took up running", set()),
        ("I got into Oxford", set()),
        ("I took up the offer", set()),
        ("I got really into chess", {("likes", "chess", "chess")}),
        ("Is my mum head of marketing?", set()),
    ],
)
def test_moves_from_one_place_to_another_last_days_and_new_contacts(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My husband's called Raj", {("spouse", "", "Raj")}),
        ("My girlfriend's called Ines", {("partner", "", "Ines")}),
        (
            "I'm a dad to two girls, Ada and Eve",
            {("child", "ada", "Ada"), ("child", "eve", "Eve")},
        ),
        ("I have twins, Leo and Max", {("child", "leo", "Leo"), ("child", "max", "Max")}),
        ("We've got a 3-year-old named Kai", {("child", "kai", "Kai")}),
        ("I can get by in Italian", {("language", "italian", "Italian")}),
        ("I've been programming in Python for 10 years", {("skill", "python", "Python")}),
        ("I'm gluten free", {("diet", "", "gluten free")}),
        ("My friend's husband's called Raj", set()),
        ("My sister has twins, Leo and Max", set()),
        ("My brother can get by in Italian", set()),
        ("I'm trying to go gluten free", set()),
    ],
)
def test_names_of_family_languages_skills_and_diets(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We're not together anymore",
            {("spouse", "", ("ended", None)), ("partner", "", ("ended", None))},
        ),
        ("I stepped down as CEO", {("job_title", "", ("ended", "CEO"))}),
        ("I'm no longer the CEO", {("job_title", "", ("ended", "CEO"))}),
        ("I moved on from Acme", {("employer", "", ("ended", "Acme"))}),
        ("I've stopped drinking coffee", {("likes", "coffee", ("ended", "coffee"))}),
        ("I gave up coffee", {("likes", "coffee", ("ended", "coffee"))}),
        ("We're not together", set()),
        ("My parents are not together anymore", set()),
        ("My boss stepped down as CEO", set()),
        ("I gave up on the project", set()),
        ("My dad gave up coffee", set()),
    ],
)
def test_more_endings(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work for a startup called Pled", {("employer", "", "Pled")}),
        ("I'm working at a small agency named Hatch", {("employer", "", "Hatch")}),
        ("I'm a nurse practitioner", {("job_title", "", "nurse practitioner")}),
        ("I'm a social worker", {("job_title", "", "social worker")}),
        ("I'm a hard worker", set()),
        ("My wife works for a startup called Pled", set()),
        ("I'd work for a startup called Pled", set()),
    ],
)
def test_an_employer_introduced_by_name_and_more_titles(text, expected):
    assert said(text) == expected
