"""When a change the text announces takes effect: the date expressions people write, and
which clauses they date."""

from datetime import UTC, date, datetime

import pytest

from language.extraction import extract
from language.extraction.dates import find_date, future_start

# A Wednesday.
WEDNESDAY = datetime(2030, 6, 12, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tomorrow", date(2030, 6, 13)),
        ("the day after tomorrow", date(2030, 6, 14)),
        ("next week", date(2030, 6, 17)),
        ("next month", date(2030, 7, 1)),
        ("next year", date(2031, 1, 1)),
        ("at the end of the month", date(2030, 6, 30)),
        ("end of next month", date(2030, 7, 31)),
        ("by the end of the year", date(2030, 12, 31)),
        ("early next month", date(2030, 7, 1)),
        ("the end of the week", date(2030, 6, 14)),
        ("in two weeks", date(2030, 6, 26)),
        ("in a fortnight", date(2030, 6, 26)),
        ("in 3 days", date(2030, 6, 15)),
        ("on Friday", date(2030, 6, 14)),
        ("this Friday", date(2030, 6, 14)),
        ("Friday is the day", date(2030, 6, 14)),
        ("next Monday", date(2030, 6, 17)),
        ("next Friday", date(2030, 6, 21)),
        ("this weekend", date(2030, 6, 15)),
        ("on the 20th", date(2030, 6, 20)),
        ("on the 3rd", date(2030, 7, 3)),
        ("on July 1st", date(2030, 7, 1)),
        ("on 1 July", date(2030, 7, 1)),
        ("on the first of August", date(2030, 8, 1)),
        ("August first", date(2030, 8, 1)),
        ("on 2030-07-08", date(2030, 7, 8)),
        ("come September", date(2030, 9, 1)),
        ("in mid-August", date(2030, 8, 15)),
        ("at the end of July", date(2030, 7, 31)),
        ("the end of June", date(2030, 6, 30)),
        ("in January 2031", date(2031, 1, 1)),
        ("from 2031", date(2031, 1, 1)),
        ("on March 3", date(2031, 3, 3)),
    ],
)
def test_a_time_to_come(text, expected):
    start = future_start(text, WEDNESDAY)
    assert start == datetime(expected.year, expected.month, expected.day, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "this month",  # no day of its own: the change is current
        "in June",  # said in June
        "today",
        "last week",
        "I may go",  # the verb, not the month
        "the 20th century",
        "for the first time",
        "on Mondays",
        "two weeks ago",
    ],
)
def test_no_time_to_come(text):
    assert future_start(text, WEDNESDAY) is None


def test_a_day_of_the_year_already_past_is_next_year_only_in_a_future_tense():
    assert future_start("on March 3", WEDNESDAY, future_tense=True) == datetime(
        2031, 3, 3, tzinfo=UTC
    )
    assert future_start("as of May", WEDNESDAY, future_tense=False) is None
    assert future_start("on March 3", WEDNESDAY, future_tense=False) is None


def test_a_29_february_without_a_year_is_read_in_a_year_that_has_one():
    """2030 has no 29 February: reading one was a ValueError, a 500 for the whole check."""
    assert future_start("on 29 February", WEDNESDAY, future_tense=True) == datetime(
        2032, 2, 29, tzinfo=UTC
    )
    said = {(s.predicate, s.value) for s in extract("I was born on 29 February", now=WEDNESDAY)}
    assert said == {("birthday", "--02-29")}


def test_ordinal_words_are_dates_for_birthdays_too():
    assert find_date("my birthday is the first of March") == (None, 3, 1)
    assert find_date("March twenty-first, 1990") == (1990, 3, 21)


def _found(text: str) -> list[tuple[str, str | None, date | None]]:
    return [
        (s.predicate, s.value, s.valid_from.date() if s.valid_from else None)
        for s in extract(text, now=WEDNESDAY)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We move to Oslo in two weeks", [("city", "Oslo", date(2030, 6, 26))]),
        ("Monday is my first day at Klarna", [("employer", "Klarna", date(2030, 6, 17))]),
        ("my first day at Klarna is Monday", [("employer", "Klarna", date(2030, 6, 17))]),
        ("My new job at Airbnb starts on July 15", [("employer", "Airbnb", date(2030, 7, 15))]),
        ("As of next Monday I work for Datadog", [("employer", "Datadog", date(2030, 6, 17))]),
        (
            "Come September, I'll be teaching at Stanford",
            [("employer", "Stanford", date(2030, 9, 1))],
        ),
        ("Starting next month, I work at Vercel", [("employer", "Vercel", date(2030, 7, 1))]),
        ("Joining Uber on 2030-07-08!", [("employer", "Uber", date(2030, 7, 8))]),
        ("I'm marrying Tom next Saturday", [("spouse", "Tom", date(2030, 6, 22))]),
        (
            "I officially become a senior engineer on July 1",
            [("job_title", "senior engineer", date(2030, 7, 1))],
        ),
        ("I'll be going vegan from Monday", [("diet", "vegan", date(2030, 6, 17))]),
        (
            "In three weeks I'll be in Berlin for good",
            [("city", "Berlin", date(2030, 7, 3))],
        ),
        (
            "I live in Paris and start at Dior next week",
            [("city", "Paris", None), ("employer", "Dior", date(2030, 6, 17))],
        ),
        # The past tense dates what happened: current now, not later.
        ("I moved to Oslo on the 20th", [("city", "Oslo", None)]),
        ("I started at Bolt in May", [("employer", "Bolt", None)]),
        ("As of May I work at Bolt", [("employer", "Bolt", None)]),
        # A future without a date is a plan; a future for someone else is theirs.
        ("I'm moving to Berlin", []),
        ("We're getting married", []),
        ("My sister starts at Apple next month", []),
        ("I'll be in Berlin next week", []),
    ],
)
def test_statements_dated_by_the_time_they_name(text, expected):
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Just signed with Mercado Libre, I start on July 15",
            [("employer", "Mercado Libre", date(2030, 7, 15))],
        ),
        ("I quit Zurich Insurance. Effective June 30.", [("employer", None, date(2030, 6, 30))]),
        (
            "Handed in my notice at Shopify, I'm leaving on the 28th",
            [("employer", None, date(2030, 6, 28))],
        ),
        (
            "Starting a new job next Friday: backend developer at Zepto",
            [
                ("job_title", "backend developer", date(2030, 6, 21)),
                ("employer", "Zepto", date(2030, 6, 21)),
            ],
        ),
        # A clause about when something happened dates nothing.
        ("I moved to Rome. It was on the 20th", [("city", "Rome", None)]),
    ],
)
def test_a_clause_after_says_when(text, expected):
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("My last day at Intel is June 30", date(2030, 6, 30)),
        ("This Friday is my last day at Google", date(2030, 6, 14)),
        ("Friday is my last day", date(2030, 6, 14)),
        ("I'm quitting Oracle next Friday", date(2030, 6, 21)),
        ("I'm retiring at the end of the year", date(2030, 12, 31)),
        ("I hand in my notice tomorrow and leave Acme on the 30th", date(2030, 6, 30)),
    ],
)
def test_endings_dated_by_the_time_they_name(text, ended):
    found = [s for s in extract(text, now=WEDNESDAY) if s.predicate == "employer"]
    assert [(s.value, s.valid_from.date() if s.valid_from else None) for s in found] == [
        (None, ended)
    ]


@pytest.mark.parametrize(
    "text", ["Today is my last day in Paris", "my last day of school is friday"]
)
def test_no_job_ends_without_saying_so(text):
    assert [s for s in extract(text, now=WEDNESDAY) if s.predicate == "employer"] == []
