"""Memories at the ends of the datetime range, through the REST API: the conversation and
graph lookups that reach back (or forward) a gap from a memory's time stop at the first (or
last) instant instead of overflowing into a 500."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils.dateparse import parse_datetime

from language.moments import EARLIEST, LATEST, shifted

pytestmark = pytest.mark.django_db

FIRST = "0001-01-01T00:00:00Z"
LAST = "9999-12-31T23:59:59Z"


def store(api, **fields):
    return api.post("/v1/memories", {"agent_id": "support-bot", **fields})


def recalled(api, query: str, **fields) -> list[int]:
    body = {"agent_id": "support-bot", "query": query, **fields}
    response = api.post("/v1/memory/recall", body)
    assert response.status_code == 200, response.content
    return [hit["id"] for hit in response.json()["items"]]


def test_shifting_stops_at_the_first_and_last_instants():
    day = timedelta(days=1)
    assert shifted(datetime(1, 1, 1, tzinfo=UTC), -day) == EARLIEST
    assert shifted(datetime(9999, 12, 31, 12, tzinfo=UTC), day) == LATEST
    assert shifted(datetime(2024, 1, 2, tzinfo=UTC), -day) == datetime(2024, 1, 1, tzinfo=UTC)
    assert EARLIEST.tzinfo is UTC
    assert LATEST.tzinfo is UTC


def test_a_sessionless_memory_made_at_the_first_instant_is_stored_and_recalled(api, agent):
    store(api, content="Ann likes tea")
    response = store(api, content="Ann likes green tea", created_at=FIRST)
    assert response.status_code == 201, response.content
    memory_id = response.json()["id"]
    assert parse_datetime(response.json()["created_at"]) == datetime(1, 1, 1, tzinfo=UTC)
    assert memory_id in recalled(api, "green tea")
    assert api.get(f"/v1/memories/{memory_id}").status_code == 200


def test_turns_of_a_conversation_at_the_first_instant_are_stored_and_recalled(api, agent):
    opening = store(api, content="Ann: I moved to Lisbon", user="ann", created_at=FIRST)
    assert opening.status_code == 201, opening.content
    reply = store(api, content="Ann: yes, last week", user="ann", created_at="0001-01-01T00:01:00Z")
    assert reply.status_code == 201, reply.content
    assert opening.json()["id"] in recalled(api, "moved to Lisbon", user="ann")
    body = {"agent_id": "support-bot", "query": "Lisbon", "user": "ann"}
    context = api.post("/v1/context", body)
    assert context.status_code == 200, context.content
    assert opening.json()["id"] in [m["id"] for m in context.json()["episodic"]]


def test_a_batch_at_the_first_instant_is_stored(api, agent):
    items = [
        {"content": "Bob: my dog is called Rex", "created_at": FIRST},
        {"content": "Bob: he is three", "created_at": FIRST},
    ]
    response = api.post("/v1/memories/batch", {"agent_id": "support-bot", "items": items})
    assert response.status_code == 201, response.content


def test_a_memory_in_a_session_at_the_first_instant_is_stored_and_recalled(api, agent):
    session = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "ann"})
    assert session.status_code == 201, session.content
    response = store(
        api, content="Ann likes green tea", session_id=session.json()["id"], created_at=FIRST
    )
    assert response.status_code == 201, response.content
    assert response.json()["id"] in recalled(api, "green tea", user="ann")


def test_a_memory_expiring_at_the_last_instant_is_stored_and_recalled(api, agent):
    response = store(api, content="Ann likes green tea", expires_at=LAST)
    assert response.status_code == 201, response.content
    assert response.json()["id"] in recalled(api, "green tea")


def test_a_memory_made_at_the_last_instant_is_refused_as_in_the_future(api, agent):
    response = store(api, content="Ann likes green tea", created_at=LAST)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"
    assert response.json()["error"]["details"] == {"field": "created_at"}
