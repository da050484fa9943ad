"""The rule-based entity tagger: what becomes an ``entity:<type>:<value>`` tag and what not."""

import pytest

from language.entities import extract_entities, query_names
from memory.maintenance.merge_candidates import states_other_details
from memory.models import Memory
from memory.services import memory_tags


def of_type(text: str, kind: str) -> list[str]:
    """The values tagged ``entity:<kind>:...`` (people, places... are all tagged ``name``)."""
    return [e.value for e in extract_entities(text) if e.tag_type == kind]


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("Call Ana on +1 415 555 0132", "+1 415 555 0132"),
        ("Her number is (415) 555-0132.", "(415) 555-0132"),
        ("Desk line 415-555-0132", "415-555-0132"),
        ("Desk line 415.555.0132", "415.555.0132"),
        ("London office +44 20 7946 0958", "+44 20 7946 0958"),
        ("London office 020 7946 0958", "020 7946 0958"),
        ("Lisbon mobile +351 912 345 678", "+351 912 345 678"),
        ("WhatsApp: +14155550132", "+14155550132"),
        ("Call 030 1234567 after lunch", "030 1234567"),
    ],
)
def test_phone_numbers_in_common_formats_are_phones(text, phone):
    assert of_type(text, "phone") == [phone]


@pytest.mark.parametrize(
    "text",
    [
        "The launch is on 2026-03-04",
        "Launch 2026-03-04T10:30:00Z",
        "Due 03/04/2026, or 3/4/26 at the latest",
        "Renewal 04.03.2026 and 2026/03/04",
        "Standup at 10:30, retro at 16:45:00",
        "Deploy v2.10.15, then version 10.4.12.1",
        "The cache lives on 192.168.10.20 and 10.0.0.1",
        "Order 100234567 shipped",
        "Ticket #48213 and invoice INV-2024-0042 are closed",
        "Account 12345678 was refunded",
    ],
)
def test_dates_times_versions_addresses_and_order_numbers_are_not_phones(text):
    assert of_type(text, "phone") == []


def test_dates_and_addresses_keep_their_own_types():
    entities = {
        (e.type, e.value)
        for e in extract_entities(
            "Moved 192.168.10.20 on 2026-03-04, then 04.03.2026 and 3/4/26; app v1.2.10"
        )
    }
    assert entities == {
        ("ip", "192.168.10.20"),
        ("date", "2026-03-04"),
        ("date", "04.03.2026"),
        ("date", "3/4/26"),
    }


def test_a_version_number_is_not_an_address():
    assert of_type("Upgrade to version 10.4.12.1 tonight", "ip") == []


@pytest.mark.parametrize(
    "text",
    [
        "To do: book the venue for the offsite.",
        "Contact support if the export fails.",
        "Error: Connection refused by the upstream host.",
        "Office closed on Friday.",
        "Note: bring the charger",
        'He wrote "Deploy tonight" in the channel.',
        "Notes from the call:\nPlease restart the worker.\nCheck logs first.",
        "- Buy milk\n- Pay the rent\n1. Ship it",
        "Don't forget the umbrella. It's raining.",
        "User: what time is it?\nAssistant: It is ten past two.",
        "Phones: (415) 555-0132",
        "Budget: 5k for the offsite",
        "Server crashed at 3am. Restarting the server fixed it.",
        "Sadly, the trip is off. Congrats! Anyway, see you.",
    ],
)
def test_capitalised_common_words_are_not_names(text):
    assert of_type(text, "name") == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Ana moved to Lisbon", ["ana", "lisbon"]),
        ("Dmitri said the build is green.", ["dmitri"]),
        ("Dmitri Ivanov said the build is green.", ["dmitri ivanov"]),
        ("Bob collects vintage motorbikes", ["bob"]),
        ("Ann is allergic to peanuts", ["ann"]),
        ("Ana really likes tea", ["ana"]),
        ("Ana's sister lives in Porto", ["ana", "porto"]),
        ("Ana and Bob went home.", ["ana", "bob"]),
        ("Ana: see you at the station", ["ana"]),
        ("Melanie: 5 years already!", ["melanie"]),
        ("Maria, thank you! Jolene! Paris?!", ["maria", "jolene", "paris"]),
        (
            "For sure! Harry Potter and Game of Thrones are great.",
            ["harry potter", "game", "thrones"],
        ),
        ("Japan definitely has it all", ["japan"]),
        ("[1:56 pm on 8 May, 2023] Caroline: Hey Mel! Good to see you!", ["caroline", "mel"]),
        ("Remember Ana's birthday. Don't forget Dr. Lee either.", ["ana", "lee"]),
        ("Meet Priya at noon. Priya prefers the back room.", ["priya"]),
        ("Lisbon was sunny. We flew to Lisbon again.", ["lisbon"]),
        ("Contact Ana at ana@example.com", ["ana"]),
        ("Error: Priya's deploy failed on 2026-03-04", ["priya"]),
    ],
)
def test_names_are_found_also_at_the_start_of_a_sentence(text, names):
    assert of_type(text, "name") == names


def test_names_written_together_are_one_entity():
    found = {(e.type, e.value) for e in extract_entities("I met Maria Lopez in New York.")}
    assert found == {("person", "maria lopez"), ("place", "new york")}
    # Anything between two names keeps them apart.
    assert of_type("Ana, Bob and Cy met Dee Eve", "name") == ["ana", "bob", "cy", "dee eve"]
    # A long run of capitalised words is a list or a title, not one name.
    assert of_type("We invited Ana Bob Cy Dee Eve", "name") == ["ana", "bob", "cy", "dee", "eve"]


def test_a_first_word_the_text_also_writes_in_lower_case_is_no_name():
    assert of_type("Pottery is fun. I took a pottery class.", "name") == []
    # An address is no lower-case word.
    assert of_type("Ana moved. Mail ana@example.com", "name") == ["ana"]


def test_query_names_follow_the_same_rules():
    assert query_names("What is Caroline's identity?") == ["caroline"]
    assert query_names("According to Melanie, what did Caroline paint?") == ["melanie", "caroline"]
    assert query_names("Where did Ana move to?") == ["ana"]
    assert query_names("Contact details for the Lisbon office?") == ["lisbon"]


def test_a_stored_memory_gets_only_the_precise_tags(remember):
    (memory,) = remember("Error: call Ana on +1 415 555 0132 before 2026-03-04 10:30")
    assert sorted(t for t in memory_tags(memory) if t.startswith("entity:")) == [
        "entity:date:2026-03-04",
        "entity:name:ana",
        "entity:phone:+1 415 555 0132",
    ]


@pytest.mark.parametrize(
    ("first", "second", "apart"),
    [
        # A label is no detail: these say the same.
        ("Reminder: the offsite is in Lisbon", "The offsite is in Lisbon", False),
        # A name at the start of a sentence is one.
        ("Ana is allergic to peanuts", "Bea is allergic to peanuts", True),
    ],
)
def test_near_duplicates_are_kept_apart_by_real_entities_only(remember, first, second, apart):
    pair = Memory.objects.filter(pk__in=[m.pk for m in remember(first, second)])
    assert states_other_details(*pair.prefetch_related("tag_rows")) is apart


def test_an_email_address_is_read_without_the_punctuation_before_it():
    assert of_type("Write to -bob@example.io or (ana.silva+cv@example.co.uk)", "email") == [
        "bob@example.io",
        "ana.silva+cv@example.co.uk",
    ]
