"""GET /v1/agents/{id}/memories and recall keep to an importance range: min, max or both."""

import pytest

from memory.recall import RecallFilters, RecallRequest, recall
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db

URL = "/v1/agents/support-bot/memories"


@pytest.fixture
def notes(agent):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"note at {importance}", importance=importance)
            for importance in (0.1, 0.4, 0.7, 1.0)
        ],
    )


def contents(api, **params) -> list[str]:
    response = api.get(URL, **params)
    assert response.status_code == 200, response.json()
    return [item["content"] for item in response.json()["items"]]


def test_list_takes_a_max_importance_and_a_range(api, notes):
    assert contents(api, max_importance=0.4) == ["note at 0.4", "note at 0.1"]
    assert contents(api, min_importance=0.4, max_importance=0.7) == ["note at 0.7", "note at 0.4"]
    assert contents(api, min_importance=0.5) == ["note at 1.0", "note at 0.7"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"max_importance": 1.5}, "max_importance"),
        ({"min_importance": -0.1}, "min_importance"),
        ({"min_importance": 0.8, "max_importance": 0.2}, "max_importance"),
    ],
)
def test_list_refuses_a_range_outside_zero_to_one_or_upside_down(api, notes, params, field):
    response = api.get(URL, **params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_input", {"field": field})


def test_another_workspace_cannot_list_by_importance(other_api, notes):
    response = other_api.get(URL, max_importance=0.5)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "agent_not_found"


def test_recall_keeps_to_the_max_importance(agent, notes):
    asked = RecallRequest(query="note", top_k=10, filters=RecallFilters(max_importance=0.4))
    hits = recall(agent=agent, request=asked).hits
    assert sorted(h.memory.content for h in hits) == ["note at 0.1", "note at 0.4"]


def test_the_recall_endpoint_takes_an_importance_range(api, notes):
    body = {"agent_id": "support-bot", "query": "note", "min_importance": 0.3}
    response = api.post("/v1/memory/recall", {**body, "max_importance": 0.8})
    assert response.status_code == 200
    assert sorted(i["content"] for i in response.json()["items"]) == ["note at 0.4", "note at 0.7"]
    upside_down = api.post("/v1/memory/recall", {**body, "max_importance": 0.2})
    assert upside_down.status_code == 400
    assert upside_down.json()["error"]["details"] == {"field": "max_importance"}
