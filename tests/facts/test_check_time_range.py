"""POST /v1/facts/check at the ends of the calendar (issue 24): a "now" that relative dates
would fall off of is refused with a clear error, never a 500."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("now", "text"),
    [
        ("0001-01-01T00:00:00Z", "my birthday was yesterday"),
        ("9999-12-31T23:59:59Z", "my birthday is tomorrow"),
        ("9999-12-31T23:59:59Z", "from next month I'll be at Stripe"),
    ],
)
def test_a_now_at_the_ends_of_the_calendar_is_refused_clearly(api, agent, now, text):
    body = {"agent_id": agent.agent_id, "user": "u1", "text": text, "now": now}
    response = api.post("/v1/facts/check", body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid_time"


def test_a_now_within_the_years_is_read(api, agent):
    body = {
        "agent_id": agent.agent_id,
        "user": "u1",
        "text": "it's my birthday today",
        "now": "2031-03-04T10:00:00Z",
    }
    response = api.post("/v1/facts/check", body)
    assert response.status_code == 200, response.content
    assert [f["value"] for f in response.json()["new"]] == ["--03-04"]
