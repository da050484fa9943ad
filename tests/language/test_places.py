"""Places typed in lower case are written as places are: the gazetteer's spelling, or
capitals; what the user capitalised is kept."""

import pytest

from language.extraction import extract
from language.extraction.statements import written_as_a_name
from language.places import city, country, place_name


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("berlin", "Berlin"),
        ("new york", "New York"),
        ("sao paulo", "São Paulo"),
        ("uk", "United Kingdom"),
        ("the netherlands", "Netherlands"),
        ("smallville creek", "Smallville Creek"),
        ("Derry", "Derry"),
    ],
)
def test_a_place_typed_in_lower_case_gets_its_capitals(typed, written):
    assert place_name(typed) == written


def test_the_most_populous_city_of_a_name_is_the_one_meant():
    paris = city("paris")
    assert paris is not None
    assert paris.country == "France"
    assert country("usa") == "United States"
    assert city("no such place at all") is None


def test_learned_places_and_names_keep_their_capitals():
    found = {(s.predicate, s.value) for s in extract("we moved to new york last year")}
    assert ("city", "New York") in found
    # A person's or a pet's name typed in lower case is written with capitals.
    assert written_as_a_name("child", "jake") == "Jake"
    assert written_as_a_name("likes", "sushi") == "sushi"
