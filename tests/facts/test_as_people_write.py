"""Facts from chat text as people type it (issue 22, fourth step): pets named in passing,
tastes said without "I", titles without an article, plans added to a statement, contact
details given or dropped the short way. Each case is the speaker's own fact; the traps
beside them state nothing."""

import pytest

from tests.facts.test_extraction import said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we have a cat though, Pickle", {("pet", "pickle", "Pickle")}),
        (
            "got ducks haha, two of them: Nora and Lu",
            {("pet", "nora", "Nora"), ("pet", "lu", "Lu")},
        ),
        ("we finally named the puppy Waffle", {("pet", "waffle", "Waffle")}),
        ("got a gecko, the kids named it Gecko", {("pet", "gecko", "Gecko")}),
        (
            "31, dog mom (Juniper), based in Leeds",
            {("pet", "juniper", "Juniper"), ("city", "", "Leeds")},
        ),
        (
            "we named the kitten Lady Marmalade Jones",
            {("pet", "lady marmalade jones", "Lady Marmalade Jones")},
        ),
        (
            "my kids Ines (9) and Tomas (6) are on holiday",
            {("child", "ines", "Ines"), ("child", "tomas", "Tomas")},
        ),
        ("our cta Biscuit is asleep on my laptop", {("pet", "biscuit", "Biscuit")}),
    ],
)
def test_pets_and_children_named_in_passing(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("love love LOVE salsa dancing", {("likes", "salsa dancing", "salsa dancing")}),
        ("hate hate hate mornings", {("dislikes", "mornings", "mornings")}),
        ("can't stand horror films", {("dislikes", "horror films", "horror films")}),
        (
            "stuff i love: board games, hiking",
            {("likes", "board games", "board games"), ("likes", "hiking", "hiking")},
        ),
        ("pls add climbing to things i like", {("likes", "climbing", "climbing")}),
        ("big fan of anime tbh", {("likes", "anime", "anime")}),
        (
            "i adore street markets, could wander them all day",
            {("likes", "street markets", "street markets")},
        ),
        ("i started liking mushrooms lately", {("likes", "mushrooms", "mushrooms")}),
        (
            "ok i was wrong about audiobooks, i love them now",
            {("likes", "audiobooks", "audiobooks")},
        ),
    ],
)
def test_tastes_as_typed(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I am history teacher in Accra",
            {("job_title", "", "history teacher"), ("city", "", "Accra")},
        ),
        ("got promoted to lead nurse today", {("job_title", "", "lead nurse")}),
        ("sous chef now!!", {("job_title", "", "sous chef")}),
        (
            "data analyst at Brightwater Labs",
            {("job_title", "", "data analyst"), ("employer", "", "Brightwater Labs")},
        ),
        (
            "i'm a welder at Koru Steel, hoping to run my own shop one day",
            {("job_title", "", "welder"), ("employer", "", "Koru Steel")},
        ),
        ("i'm a midwife and thinking about teaching someday", {("job_title", "", "midwife")}),
        (
            "officially retired from Tamar Ferries on friday",
            {("employer", "", ("ended", "Tamar Ferries"))},
        ),
    ],
)
def test_titles_and_jobs_as_typed(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have new number: +351 912 345 678", {("phone", "", "+351 912 345 678")}),
        ("pls use ren.ito@example.jp from now on", {("email", "", "ren.ito@example.jp")}),
        ("text me on +44 7700 900123 if needed", {("phone", "", "+44 7700 900123")}),
        ("got rid of my old number", {("phone", "", ("ended", None))}),
        ("went full vegan this month", {("diet", "", "vegan")}),
    ],
)
def test_contacts_and_diets_as_typed(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "i'd be a pilot if i could",  # a wish
        "is he a sous chef now?",  # a question about someone else
        "if I had a gecko I'd name it Gecko",
        "do you love salsa dancing?",
        "my sister can't stand horror films",
        "enjoy your weekend!",  # a wish for someone else
        "the manager now",
    ],
)
def test_the_traps_beside_them_state_nothing(text):
    assert said(text) == set()


def test_a_manager_at_a_company_is_where_i_work_not_my_title():
    # Someone else's title ("my manager"), the speaker's workplace.
    assert said("my manager at Brightwater Labs") == {("employer", "", "Brightwater Labs")}
