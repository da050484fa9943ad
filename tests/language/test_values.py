"""The stored form of phone numbers, emails and birthdays (facts.values), the same whether
the value is learned from text or asserted through the API, and the readable form of a
birthday the API and the dashboard show."""

import pytest

from facts.models import Fact
from language.values import (
    display_value,
    normalise_birthday,
    normalise_email,
    normalise_phone,
    stored_value,
)
from tests.dashboard.conftest import signed_in

pytestmark = pytest.mark.django_db

AGENT = "support-bot"


@pytest.mark.parametrize(
    ("typed", "region", "stored"),
    [
        ("+44 20 7946 0958", None, "+442079460958"),
        ("0044 20 7946 0958", None, "+442079460958"),
        ("+1 (415) 555-0132", None, "+14155550132"),
        ("+44 7700 900123.", None, "+447700900123"),
        ("(+81 90 1234 5678)", None, "+819012345678"),
        # No country code: read in the configured region, else kept as typed, tidied.
        ("020 7946 0958", "GB", "+442079460958"),
        ("(415) 555-0132", "US", "+14155550132"),
        ("020  7946 0958", None, "020 7946 0958"),
        ("555 - 0142", None, "555-0142"),
        ("(020) 7946 0958", None, "(020) 7946 0958"),
    ],
)
def test_a_phone_number_is_stored_as_e164_when_its_country_is_known(typed, region, stored):
    assert normalise_phone(typed, region=region) == stored


@pytest.mark.parametrize(
    ("typed", "region"),
    [("12345", None), ("+44 12", None), ("1234567890123456", None), ("+999 1234 5678", None)],
)
def test_a_number_no_phone_can_have_is_none(typed, region):
    assert normalise_phone(typed, region=region) is None


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("me@x.com.", "me@x.com"),
        ("Ana.Silva@Example.ORG", "ana.silva@example.org"),
        ("<ana@example.org>", "ana@example.org"),
        ("Ana Silva <ana@Example.org>", "ana@example.org"),
        ("mailto:ana@example.org", "ana@example.org"),
        ("(kofi.mensah+bills@protonmail.com),", "kofi.mensah+bills@protonmail.com"),
    ],
)
def test_an_email_is_lower_cased_without_the_punctuation_around_it(typed, stored):
    assert normalise_email(typed) == stored


@pytest.mark.parametrize(
    "typed",
    # The last: a local part longer than the 64 characters mail systems allow.
    ["ana@", "ana at example dot org", "@example.org", "a@b", "a" * 65 + "@example.org"],
)
def test_text_that_is_no_address_is_none(typed):
    assert normalise_email(typed) is None


def test_a_birthday_is_iso_and_reads_as_a_day_of_a_month():
    assert normalise_birthday("1988-03-09") == "1988-03-09"
    assert normalise_birthday("--02-29") == "--02-29"
    assert normalise_birthday("--02-30") is None
    assert normalise_birthday("March 9") is None
    assert display_value("birthday", "--02-14") == "14 February"
    assert display_value("birthday", "1988-03-09") == "9 March 1988"
    assert display_value("birthday", "sometime in spring") is None
    assert display_value("employer", "1988-03-09") is None


def test_an_asserted_value_that_cannot_be_read_is_kept_as_given():
    assert stored_value("phone", "ext. 12") == "ext. 12"
    assert stored_value("email", "ana at example dot org") == "ana at example dot org"
    assert stored_value("employer", "ACME ") == "ACME "


def check(api, text, user="u1"):
    response = api.post(
        "/v1/facts/check", {"agent_id": AGENT, "user": user, "text": text, "apply": True}
    )
    assert response.status_code == 200, response.content
    return response.json()


def assert_fact(api, predicate, value):
    response = api.post(
        "/v1/facts",
        {
            "agent_id": AGENT,
            "user": "u1",
            "subject": "user",
            "predicate": predicate,
            "value": value,
            "source": {"kind": "operator", "operator": "ops"},
        },
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_a_learned_phone_number_is_stored_as_e164(api, agent):
    data = check(api, "My new number is +44 20 7946 0958.")
    assert [n["value"] for n in data["new"]] == ["+442079460958"]
    assert Fact.objects.get(agent=agent, predicate="phone").value == "+442079460958"
    # The same number written another way confirms it.
    again = check(api, "my phone is 0044 20 7946 0958")
    assert [c["fact"]["value"] for c in again["confirmed"]] == ["+442079460958"]
    assert again["contradicted"] == []


def test_a_learned_number_no_phone_can_have_is_not_learned(api, agent):
    assert check(api, "My new number is +999 1234 5678")["new"] == []
    assert not Fact.objects.filter(agent=agent, predicate="phone").exists()


def test_a_learned_number_without_a_country_code_is_read_in_the_configured_region(
    api, agent, settings
):
    assert [n["value"] for n in check(api, "my number is 020 7946 0958")["new"]] == [
        "020 7946 0958"
    ]
    settings.DEWEE_PHONE_REGION = "GB"
    assert [n["value"] for n in check(api, "my number is 020 7946 0958", user="u2")["new"]] == [
        "+442079460958"
    ]


def test_an_asserted_phone_number_is_stored_as_e164_and_one_that_cannot_be_read_as_given(
    api, agent
):
    assert assert_fact(api, "phone", "+1 (415) 555-0132")["fact"]["value"] == "+14155550132"
    # The same number as typed elsewhere confirms it.
    assert assert_fact(api, "phone", "+1 415 555 0132")["outcome"] == "confirmed"
    odd = assert_fact(api, "phone", "ext. 12 at the front desk")
    assert (odd["outcome"], odd["fact"]["value"]) == ("superseded", "ext. 12 at the front desk")


def test_a_learned_and_an_asserted_email_are_lower_cased(api, agent):
    data = check(api, "You can reach me at Ana.Silva@Example.ORG.")
    assert [n["value"] for n in data["new"]] == ["ana.silva@example.org"]
    assert assert_fact(api, "email", " ana.silva@EXAMPLE.org.")["outcome"] == "confirmed"


def test_a_birthday_is_stored_iso_and_shown_readably(api, agent, django_user_model):
    data = check(api, "My birthday is February 14th")
    (learned,) = data["new"]
    assert learned["value"] == "--02-14"
    fact = api.get("/v1/facts", agent_id=AGENT, predicate="birthday").json()["items"][0]
    assert (fact["value"], fact["display"]) == ("--02-14", "14 February")
    staff = django_user_model.objects.create_user(username="ops", password="pw", is_staff=True)
    client = signed_in(staff)
    shown = '<span title="--02-14">14 February</span>'
    assert shown in client.get("/dashboard/facts/").text
    assert shown in client.get("/dashboard/memory/people/", {"user": "u1"}).text
    assert shown in client.get(f"/dashboard/facts/{fact['id']}/").text
