"""Entity extraction made precise: types, the speaker, and what used to be misread."""

import pytest

from language.entities import extract_entities, speaker_of


def typed(text: str) -> set[tuple[str, str]]:
    return {(e.type, e.value) for e in extract_entities(text)}


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Call me on 2024 03 04", "2024 03 04"),
        ("Date: 2026 03 04", "2026 03 04"),
        ("Renewal on 04 03 2026 please", "04 03 2026"),
    ],
)
def test_a_date_written_with_spaces_is_a_date_and_not_a_phone(text, date):
    assert typed(text) == {("date", date)}


def test_a_phone_with_a_country_code_stays_a_phone_even_if_its_groups_look_like_a_date():
    assert ("phone", "+1 2026 03 04 55") in typed("Call +1 2026 03 04 55")


@pytest.mark.parametrize(
    "text",
    [
        "Painting relaxes me.",
        "Gardening takes time",
        "Running is fun",
        "Kids loved it",
        "Weekend plans: hiking",
        "Books help me sleep",
    ],
)
def test_a_gerund_or_plural_opening_a_sentence_is_no_name(text):
    assert typed(text) == set()


def test_a_name_that_ends_in_s_still_opens_a_sentence():
    assert typed("James said hi") == {("person", "james")}
    assert ("name", "chris") in typed("Chris moved to Porto")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My friend Jolene bought a Tesla", {("person", "jolene"), ("product", "tesla")}),
        ("Dr. Lee works for Acme Inc", {("person", "lee"), ("organisation", "acme")}),
        (
            "Ana works at Google in Berlin",
            {("name", "ana"), ("organisation", "google"), ("place", "berlin")},
        ),
        ("I got a Pixel 8 yesterday", {("product", "pixel")}),
        ("Thanks Mel! See you", {("person", "mel")}),
        ("We moved to Lisbon last year", {("place", "lisbon")}),
    ],
)
def test_names_are_typed_by_the_words_around_them(text, expected):
    assert typed(text) == expected


def test_a_name_without_a_cue_stays_an_untyped_name():
    assert typed("Meet Priya at noon.") == {("name", "priya")}


def test_named_things_all_keep_the_name_tag_recall_matches():
    tags = {e.tag for e in extract_entities("My friend Jolene moved to Lisbon")}
    assert tags == {"entity:name:jolene", "entity:name:lisbon"}


def test_the_speaker_of_a_line_is_a_person():
    assert ("person", "caroline") in typed("Caroline: I went to the support group")


def test_a_name_mentioned_twice_is_counted():
    (entity,) = extract_entities("Priya called. Later Priya called again.")
    assert (entity.value, entity.count, entity.text, entity.start) == ("priya", 2, "Priya", 0)


LABELS = ["fyi", "update", "ps", "btw", "edit", "note", "ok so", "nb", "reminder", "fwd"]


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Caroline: I went to a support group yesterday", "Caroline"),
        ("Mary Jane Watson: hello there", "Mary Jane Watson"),
        ("[1:56 pm on 8 May, 2023] Melanie: Hey Caroline!", "Melanie"),
        ("Note: bring the charger", None),
        ("Error: connection refused", None),
        ("Summary: we agreed", None),
        ("TODO: ship it", None),
        ("10:30: standup", None),
        ("User: what time is it?", "User"),
        ("Meeting Notes: budget", None),
        ("Ana:", None),
        ("Https://example.com is down", None),
        ("I said: no", None),
        ("Dear Ana Maria Lopez Garcia: hi", None),
        # Labels people open a message with, in either case, and a time.
        *((f"{label}: I moved to Lisbon", None) for label in LABELS),
        *((f"{label.capitalize()}: I moved to Lisbon", None) for label in LABELS),
        ("10:30 I moved to Lisbon", None),
        ("assistant: you work at Acme", "Assistant"),
    ],
)
def test_the_speaker_is_a_leading_name_before_a_colon(text, speaker):
    assert speaker_of(text) == speaker
