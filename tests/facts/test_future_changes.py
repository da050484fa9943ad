"""A dated future change ("from <date> I'll be at Stripe", "we move to Oslo on the 20th")
keeps the present true: the old value is the one in force until the new one's valid_from,
and the new one from then, for every reader of "what is true now" (the check, /v1/context,
GET /v1/facts?in_force=true, the dashboard's "In force now" tab and a person's page); never no
value, never two."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from facts.models import Fact
from tests.dashboard.conftest import signed_in
from tests.factories import state

pytestmark = pytest.mark.django_db

AGENT = "support-bot"


def check(api, text, now, apply=False):
    response = api.post(
        "/v1/facts/check",
        {"agent_id": AGENT, "user": "u1", "text": text, "now": now.isoformat(), "apply": apply},
    )
    assert response.status_code == 200, response.content
    return response.json()


def said(moment: datetime) -> str:
    """A date as people write it: "March 3"."""
    return f"{moment:%B} {moment.day}"


def employers(api, **params):
    response = api.get("/v1/facts", agent_id=AGENT, user="u1", **params)
    assert response.status_code == 200, response.content
    return [f["value"] for f in response.json()["items"] if f["predicate"] == "employer"]


def context_facts(api):
    response = api.post("/v1/context", {"agent_id": AGENT, "user": "u1", "query": "work"})
    assert response.status_code == 200, response.content
    return [f["value"] for f in response.json()["facts"]]


def schedule_stripe(api, agent, *, days_ahead: int) -> datetime:
    """Google now; the user says they will be at Stripe from a date ``days_ahead`` away
    (negative: said long enough ago that the date has come). The date, at midnight UTC."""
    state(agent, "Google")
    said_at = timezone.now() - timedelta(days=max(0, -days_ahead) + 20)
    start = (said_at + timedelta(days=20 + days_ahead)).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    data = check(api, f"from {said(start)} I'll be at Stripe", now=said_at, apply=True)
    assert [(c["old_value"], c["new_value"]) for c in data["contradicted"]] == [
        ("Google", "Stripe")
    ]
    assert Fact.objects.get(value="Stripe").valid_from == start
    return start


def test_the_check_compares_with_the_value_in_force_before_on_and_after_the_date(api, agent):
    state(agent, "Google")
    said_at = datetime(2026, 12, 1, 9, tzinfo=UTC)
    data = check(api, "from January 10 I'll be at Stripe", now=said_at, apply=True)
    assert data["contradicted"][0]["valid_from"] == "2027-01-10T00:00:00Z"
    before = check(api, "I work at Google", now=datetime(2027, 1, 9, 23, tzinfo=UTC))
    assert [c["fact"]["value"] for c in before["confirmed"]] == ["Google"]
    assert before["contradicted"] == []
    on = check(api, "I work at Google", now=datetime(2027, 1, 10, tzinfo=UTC))
    assert [c["old_value"] for c in on["contradicted"]] == ["Stripe"]
    after = check(api, "I work at Stripe", now=datetime(2027, 2, 1, tzinfo=UTC))
    assert [c["fact"]["value"] for c in after["confirmed"]] == ["Stripe"]
    assert after["contradicted"] == []


def test_the_api_lists_the_value_in_force_at_each_time(api, agent):
    start = schedule_stripe(api, agent, days_ahead=10)
    # Now (before the date): the old value, marked in force until the date.
    (google,) = api.get("/v1/facts", agent_id=AGENT, in_force="true").json()["items"]
    assert (google["value"], google["in_force"]) == ("Google", True)
    assert google["valid_to"] == start.isoformat().replace("+00:00", "Z")
    for moment, value in [
        (start - timedelta(seconds=1), "Google"),
        (start, "Stripe"),
        (start + timedelta(days=30), "Stripe"),
    ]:
        at = moment.isoformat()
        assert employers(api, in_force="true", valid_at=at) == [value], moment
    # Every fact: the one scheduled is there too, not yet in force.
    items = api.get("/v1/facts", agent_id=AGENT).json()["items"]
    listed = {f["value"]: f["in_force"] for f in items}
    assert listed == {"Google": True, "Stripe": False}


def test_the_agents_context_holds_the_old_value_until_the_date(api, agent):
    schedule_stripe(api, agent, days_ahead=10)
    assert context_facts(api) == ["Google"]


def test_the_agents_context_holds_the_new_value_once_the_date_has_come(api, agent):
    schedule_stripe(api, agent, days_ahead=-3)
    assert context_facts(api) == ["Stripe"]
    assert employers(api, in_force="true") == ["Stripe"]


def test_a_move_on_a_day_of_this_month_keeps_the_city_until_then(api, agent):
    state(agent, "Lisbon", predicate="city")
    said_at = datetime(2026, 12, 1, 9, tzinfo=UTC)
    check(api, "we move to Oslo on the 20th", now=said_at, apply=True)
    for moment, value in [
        (datetime(2026, 12, 19, 12, tzinfo=UTC), "Lisbon"),
        (datetime(2026, 12, 20, tzinfo=UTC), "Oslo"),
        (datetime(2027, 3, 1, tzinfo=UTC), "Oslo"),
    ]:
        held = check(api, f"I live in {value}", now=moment)
        assert [c["fact"]["value"] for c in held["confirmed"]] == [value], moment
        cities = api.get(
            "/v1/facts", agent_id=AGENT, in_force="true", valid_at=moment.isoformat()
        ).json()["items"]
        assert [f["value"] for f in cities] == [value], moment


def test_the_dashboard_and_the_person_page_show_the_value_in_force(api, agent, django_user_model):
    schedule_stripe(api, agent, days_ahead=10)
    staff = django_user_model.objects.create_user(username="ops", password="pw", is_staff=True)
    client = signed_in(staff)
    in_force = client.get("/dashboard/facts/", {"status": "in_force"})
    assert [r["value"] for r in in_force.context["rows"]] == ["Google"]
    assert "in force until" in in_force.text
    tabs = {v: n for v, _label, n in in_force.context["status_tabs"]}
    assert (tabs["in_force"], tabs["current"], tabs["history"]) == (1, 1, 1)
    every = client.get("/dashboard/facts/")
    assert "in force from" in every.text
    person = client.get("/dashboard/memory/people/", {"user": "u1"})
    assert "Google" in person.text
    assert "Stripe" not in person.text


def test_a_change_now_before_the_date_leaves_one_value_in_force(api, agent):
    state(agent, "Google")
    said_at = datetime(2026, 12, 1, tzinfo=UTC)
    check(api, "from January 10 I'll be at Stripe", now=said_at, apply=True)
    data = check(api, "I just started at Meta", now=timezone.now(), apply=True)
    assert [(c["old_value"], c["new_value"]) for c in data["contradicted"]] == [("Google", "Meta")]
    for moment in [timezone.now() + timedelta(days=1), datetime(2027, 2, 1, tzinfo=UTC)]:
        assert employers(api, in_force="true", valid_at=moment.isoformat()) == ["Meta"]
    assert context_facts(api) == ["Meta"]
