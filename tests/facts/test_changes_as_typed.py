"""Changes of a value already held, as people type them (issue 22): corrections, additions,
promotions, moves, job changes, endings, emails; and a change held for a later date that a
nearer change replaces, or that the text calls off or moves ("the move is off", "my start
date got pushed to August 3rd"), through POST /v1/facts/check as an agent calls it."""

import time
from datetime import UTC, datetime

import pytest

from bench import regex_adversary
from facts.models import Fact, Status
from language.extraction import extract
from language.extraction.rescheduling import _RULES
from tests.factories import state

pytestmark = pytest.mark.django_db

AGENT = "support-bot"
NOW = datetime(2030, 6, 12, 12, tzinfo=UTC)  # a Wednesday


def check(api, text, *, now=NOW, apply=False):
    response = api.post(
        "/v1/facts/check",
        {"agent_id": AGENT, "user": "u1", "text": text, "now": now.isoformat(), "apply": apply},
    )
    assert response.status_code == 200, response.content
    return response.json()


def in_force(api, predicate: str, moment: datetime) -> list[str]:
    response = api.get(
        "/v1/facts", agent_id=AGENT, user="u1", in_force="true", valid_at=moment.isoformat()
    )
    assert response.status_code == 200, response.content
    return [f["value"] for f in response.json()["items"] if f["predicate"] == predicate]


def day(month: int, number: int) -> datetime:
    return datetime(2030, month, number, 12, tzinfo=UTC)


# A held future value, then a nearer dated change -----------------------------------------


def test_a_nearer_dated_change_replaces_a_change_held_for_later(api, agent):
    """Was a 409 slot_busy: the later value's window was closed before it began."""
    state(agent, "Google")
    check(api, "from August 20 I'll be at Stripe", apply=True)
    data = check(api, "from July 1 I'll be at Meta", now=day(6, 14), apply=True)
    assert [(c["old_value"], c["new_value"]) for c in data["contradicted"]] == [("Google", "Meta")]
    assert in_force(api, "employer", day(6, 30)) == ["Google"]
    assert in_force(api, "employer", day(7, 2)) == ["Meta"]
    assert in_force(api, "employer", day(9, 1)) == ["Meta"]  # Stripe never comes into force
    stripe = Fact.objects.get(value="Stripe")
    assert stripe.status == Status.HISTORY
    assert stripe.valid_to == stripe.valid_from


# A change held for later, called off or moved -------------------------------------------


def test_a_move_that_is_called_off_keeps_the_city(api, agent):
    state(agent, "Zurich", predicate="city")
    check(api, "we're moving to Geneva on the 30th", apply=True)
    assert in_force(api, "city", day(7, 2)) == ["Geneva"]
    data = check(api, "ugh the move is off, we're staying in Zurich", now=day(6, 20), apply=True)
    cancelled = [(a["action"], a["value"]) for a in data["suggested_actions"]]
    assert ("CANCEL", None) in cancelled
    assert {action for action, _value in cancelled} <= {"CANCEL", "CONFIRM"}
    assert data["contradicted"][0]["old_value"] == "Geneva"
    assert [(a["action"], a["outcome"], a["fact"]["value"]) for a in data["applied"]] == [
        ("CANCEL", "cancelled", "Zurich")
    ]
    for moment in (day(6, 21), day(7, 5), datetime(2031, 1, 1, tzinfo=UTC)):
        assert in_force(api, "city", moment) == ["Zurich"], moment
    zurich = Fact.objects.get(value="Zurich")
    assert (zurich.status, zurich.valid_to) == (Status.CURRENT, None)


@pytest.mark.parametrize(
    "text",
    [
        "not leaving after all!",
        "we're not moving anymore lol",
        "change of plans, staying put",
        "the relocation got cancelled",
    ],
)
def test_ways_of_calling_a_move_off(api, agent, text):
    state(agent, "Leeds", predicate="city")
    check(api, "we move to York on the 28th", apply=True)
    check(api, text, now=day(6, 15), apply=True)
    assert in_force(api, "city", day(7, 10)) == ["Leeds"]


def test_a_job_offer_that_falls_through_keeps_the_employer(api, agent):
    state(agent, "Google")
    check(api, "I start at Canva on July 1st", apply=True)
    data = check(api, "the canva offer fell through 😩", now=day(6, 18), apply=True)
    assert [a["action"] for a in data["applied"]] == ["CANCEL"]
    assert in_force(api, "employer", day(7, 15)) == ["Google"]


def test_a_start_date_pushed_back_moves_the_change(api, agent):
    state(agent, "Google")
    check(api, "I start at Canva on July 1st", apply=True)
    data = check(api, "my start date got pushed to August 3rd", now=day(6, 18), apply=True)
    (action,) = data["suggested_actions"]
    assert (action["action"], action["value"], action["valid_from"]) == (
        "RESCHEDULE",
        "Canva",
        "2030-08-03T00:00:00Z",
    )
    assert in_force(api, "employer", day(7, 15)) == ["Google"]
    assert in_force(api, "employer", day(8, 4)) == ["Canva"]


def test_a_move_brought_forward(api, agent):
    state(agent, "Porto", predicate="city")
    check(api, "moving to Braga on the 28th", apply=True)
    check(api, "the move got moved up to the 20th", now=day(6, 14), apply=True)
    assert in_force(api, "city", day(6, 21)) == ["Braga"]
    assert in_force(api, "city", day(6, 19)) == ["Porto"]


def test_calling_off_without_apply_writes_nothing(api, agent):
    state(agent, "Zurich", predicate="city")
    check(api, "we're moving to Geneva on the 30th", apply=True)
    data = check(api, "the move is off", now=day(6, 20))
    assert [a["action"] for a in data["suggested_actions"]] == ["CANCEL"]
    assert in_force(api, "city", day(7, 5)) == ["Geneva"]


@pytest.mark.parametrize(
    "text",
    [
        "the move is off",  # nothing planned
        "is the move off?",
        "if the move is off we'll just stay here",
        "my sister says the move is off",
    ],
)
def test_nothing_planned_or_not_said_changes_nothing(api, agent, text):
    state(agent, "Zurich", predicate="city")
    before = check(api, "I live in Zurich")
    data = check(api, text, apply=True)
    assert data["applied"] == []
    assert [a for a in data["suggested_actions"] if a["action"] != "CONFIRM"] == []
    assert before["confirmed"]


def test_calling_off_a_move_leaves_a_planned_job_alone(api, agent):
    state(agent, "Google")
    state(agent, "Oslo", predicate="city")
    check(api, "I start at Equinor on July 1st", apply=True)
    check(api, "we're moving to Bergen on the 28th", apply=True)
    check(api, "the move is off", now=day(6, 20), apply=True)
    assert in_force(api, "city", day(7, 5)) == ["Oslo"]
    assert in_force(api, "employer", day(7, 5)) == ["Equinor"]


def test_a_named_change_only_calls_off_that_change(api, agent):
    state(agent, "Google")
    check(api, "I start at Canva on July 1st", apply=True)
    data = check(api, "I'm not joining Atlassian after all", now=day(6, 18), apply=True)
    assert data["applied"] == []
    assert in_force(api, "employer", day(7, 5)) == ["Canva"]
    check(api, "I'm not joining Canva after all", now=day(6, 19), apply=True)
    assert in_force(api, "employer", day(7, 5)) == ["Google"]


# What the extractor reads, sentence by sentence ----------------------------------------


def said(text: str) -> set[tuple[str, str | None]]:
    return {(s.predicate, s.value) for s in extract(text, now=NOW) if not s.schedule}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # corrections naming both values, or the slot
        ("I meant Porto not Lisbon", ("city", "Porto")),
        ("sorry, Leipzig not Dresden", ("city", "Leipzig")),
        ("not Bristol, Bath", ("city", "Bath")),
        ("actually it's Rotterdam, not Utrecht", ("city", "Rotterdam")),
        ("typo: its Porto not Proto", ("city", "Porto")),
        ("correction: I work at Siemens, not Bosch", ("employer", "Siemens")),
        # a correction of the message's own earlier value
        ("I live in Proto\n*Porto", ("city", "Porto")),
        ("i work at Siemns\n*Siemens", ("employer", "Siemens")),
        ("I'm a data analyst, scratch that, data engineer", ("job_title", "data engineer")),
        # additions to a list
        ("also into bouldering now", ("likes", "bouldering")),
        ("I also speak Greek now", ("language", "Greek")),
        ("we got a second dog, Biscuit", ("pet", "Biscuit")),
        ("we got another cat, her name is Pickle", ("pet", "Pickle")),
        # promotions, moves, new jobs
        ("got promoted to staff engineer", ("job_title", "staff engineer")),
        ("I'm now a senior designer", ("job_title", "senior designer")),
        ("i'm a senior analyst now", ("job_title", "senior analyst")),
        ("just moved to Valencia", ("city", "Valencia")),
        ("relocated to Cork last week", ("city", "Cork")),
        ("started at Shopify on monday", ("employer", "Shopify")),
        ("joined Monzo last month", ("employer", "Monzo")),
        # emails
        ("new email is kim.lee@proton.me", ("email", "kim.lee@proton.me")),
        ("reach me at kim.lee@proton.me from now on", ("email", "kim.lee@proton.me")),
        ("my work email changed to k.lee@acme.io", ("email", "k.lee@acme.io")),
        ("my email is now kim@fastmail.com", ("email", "kim@fastmail.com")),
        ("new work email: t.berg@nordlys.no", ("email", "t.berg@nordlys.no")),
        ("old one got hacked so im using tberg@outlook.com now", ("email", "tberg@outlook.com")),
        # a household's move, news said without a verb, a list grown by its kind alone
        ("we're in Hamburg now", ("city", "Hamburg")),
        ("new job at Deliveroo!", ("employer", "Deliveroo")),
        ("update: new role with Arup", ("employer", "Arup")),
        ("landed a job at Ocado", ("employer", "Ocado")),
        ("add Italian too", ("language", "Italian")),
        ("oh and add czech as well", ("language", "Czech")),
    ],
)
def test_changes_as_typed_are_read(text, expected):
    assert expected in said(text)


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("I quit", "employer"),
        ("got laid off yesterday", "employer"),
        ("i left Spotify", "employer"),
        ("we split up", "partner"),
        ("I'm single now", "partner"),
        ("not vegan anymore lol", "diet"),
        ("stopped being vegetarian last month", "diet"),
        ("no longer pescatarian", "diet"),
    ],
)
def test_endings_as_typed_are_read(text, predicate):
    assert (predicate, None) in said(text)


@pytest.mark.parametrize(
    "text",
    [
        "my boss's email is boss@acme.io",
        "From: Sam <sam@x.io>\nSubject: hi\n\nsee below",
        "another kid on the way",  # no name: nothing
        "we're in Rome now for the week",
        "my parents are in Lyon now",
        "my brother has a new job at Deliveroo",
        "add sugar too",
        "not vegan, just lactose intolerant",
        "my sister is not vegan anymore",
        "my wife's email is eva@pm.me",
        "email my boss at boss@pm.me",
        "actually, it's been a long day",
    ],
)
def test_what_is_not_a_change_of_the_users_values(text):
    assert said(text) == set()


@pytest.mark.parametrize(
    ("text", "kind", "slots"),
    [
        ("the move is off", "cancelled", {"city", "country"}),
        ("we're not moving after all", "cancelled", {"city", "country"}),
        ("not leaving after all", "cancelled", {"employer", "city", "country"}),
        ("the job offer fell through", "cancelled", {"employer", "job_title"}),
        ("we called off the wedding", "cancelled", {"spouse"}),
        ("decided to stay at Petrobras after all", "cancelled", {"employer", "job_title"}),
        ("my start date got pushed to August 3rd", "moved", {"employer", "job_title"}),
        ("the move got pushed back to the 28th", "moved", {"city", "country"}),
        ("we move on the 20th instead", "moved", {"city", "country"}),
    ],
)
def test_a_change_called_off_or_moved_is_read(text, kind, slots):
    found = [s for s in extract(text, now=NOW) if s.schedule]
    assert {s.predicate for s in found} == slots
    assert {s.schedule for s in found} == {kind}
    assert all((s.valid_from is not None) == (kind == "moved") for s in found)


@pytest.mark.parametrize(
    "text",
    [
        "is the move off?",
        "if the move is off we'll stay",
        "Tom said the move is off",
        "I'm not going to the party after all",
        "my first move in chess was bad",
        "the move got pushed",  # no date to move it to
    ],
)
def test_what_calls_off_or_moves_nothing(text):
    assert [s for s in extract(text, now=NOW) if s.schedule] == []


# Corrections of a held value, through the check -----------------------------------------


@pytest.mark.parametrize(
    "text", ["*Porto", "typo - Porto", "actually it's Porto", "scratch that, it's Porto"]
)
def test_a_bare_correction_replaces_the_held_value_it_retypes(api, agent, text):
    state(agent, "Proto", predicate="city")
    data = check(api, text, apply=True)
    assert [(c["old_value"], c["new_value"]) for c in data["contradicted"]] == [("Proto", "Porto")]
    assert in_force(api, "city", NOW) == ["Porto"]


def test_a_bare_correction_of_no_known_kind_needs_a_value_it_retypes(api, agent):
    state(agent, "Siemns")
    state(agent, "Graz", predicate="city")
    data = check(api, "typo - Siemens", apply=True)
    assert [(c["predicate"], c["old_value"]) for c in data["contradicted"]] == [
        ("employer", "Siemns")
    ]
    assert in_force(api, "employer", NOW) == ["Siemens"]
    unrelated = check(api, "correction: Heineken")
    assert unrelated["contradicted"] == []
    assert unrelated["new"] == []


def test_a_bare_correction_with_nothing_held_adds_nothing(api, agent):
    data = check(api, "actually it's Rotterdam", apply=True)
    assert data["new"] == []
    assert data["applied"] == []


@pytest.mark.parametrize("index", range(len(_RULES)))
def test_the_patterns_of_a_change_called_off_are_linear(index):
    """The patterns built at import time (listed by hand in tests/test_patterns_linear.py):
    each on its adversarial texts, a quarter of the size taking about a quarter of the time."""
    pattern = _RULES[index][0]
    for text in regex_adversary.adversarial_texts(pattern, 20_000).values():
        started = time.perf_counter()
        regex_adversary.run(pattern, text)
        full = time.perf_counter() - started
        started = time.perf_counter()
        regex_adversary.run(pattern, text[:5_000])
        quarter = time.perf_counter() - started
        assert full < 0.5 or full < 8 * max(quarter, 0.01)
