"""The memory REST API: memories, batch, recall, sessions, context; errors and isolation."""

import pytest

from facts.models import Fact
from facts.services import Claim, SourceInput, assert_fact
from memory.models import Memory, Session
from tenancy.models import Agent
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db


def store(api, content="Ann likes green tea", **fields):
    return api.post("/v1/memories", {"agent_id": "support-bot", "content": content, **fields})


def test_first_memory_creates_the_agent_in_the_keys_workspace(api, workspace):
    response = api.post("/v1/memories", {"agent_id": "fresh-bot", "content": "hello"})
    assert response.status_code == 201
    assert Agent.objects.get(agent_id="fresh-bot").workspace == workspace


def test_a_refused_first_memory_creates_no_agent(api, workspace):
    response = api.post("/v1/memories", {"agent_id": "fresh-bot", "content": ""})
    assert_error(response, 400, "invalid_input")
    batch = api.post(
        "/v1/memories/batch",
        {
            "agent_id": "fresh-bot",
            "items": [{"content": "ok"}, {"content": "bad", "created_at": "soon"}],
        },
    )
    assert_error(batch, 400, "invalid_time")
    assert not Agent.objects.filter(agent_id="fresh-bot").exists()


@pytest.mark.parametrize(
    ("fields", "status", "code"),
    [
        ({"importance": 1.5}, 400, "invalid_input"),
        ({"memory_type": "dream"}, 400, "invalid_input"),
        ({"tags": ["x" * 101]}, 413, "too_large"),
        ({"session_id": 999}, 404, "session_not_found"),
        ({"expires_at": "soon"}, 400, "invalid_time"),
    ],
)
def test_a_first_memory_refused_for_any_field_creates_no_agent(
    api, workspace, fields, status, code
):
    body = {"agent_id": "fresh-bot", "content": "hello", **fields}
    assert_error(api.post("/v1/memories", body), status, code)
    batch = {"agent_id": "fresh-bot", "items": [{"content": "ok"}, {"content": "hello", **fields}]}
    assert_error(api.post("/v1/memories/batch", batch), status, code)
    assert not Agent.objects.filter(agent_id="fresh-bot").exists()
    assert not Memory.objects.exists()


def test_store_read_patch_delete(api, agent):
    created = store(api, tags=["drinks"], importance=0.7, metadata={"k": "v"})
    assert created.status_code == 201
    body = created.json()
    assert (body["content"], body["tags"], body["importance"]) == (
        "Ann likes green tea",
        ["drinks"],
        0.7,
    )
    assert "entity:name:ann" in body["entities"]
    assert body["session_state"] is None
    memory_id = body["id"]
    assert api.get(f"/v1/memories/{memory_id}").json()["metadata"] == {"k": "v"}
    patched = api.client.patch(
        f"/v1/memories/{memory_id}",
        data={"content": "Ann likes coffee"},
        content_type="application/json",
        headers=api.headers,
    )
    assert patched.status_code == 200
    assert patched.json()["content"] == "Ann likes coffee"
    assert patched.json()["tags"] == ["drinks"]
    deleted = api.delete(f"/v1/memories/{memory_id}")
    assert deleted.json() == {"memories": 1, "facts": 0}
    assert_error(api.get(f"/v1/memories/{memory_id}"), 404, "memory_not_found")


def test_batch_all_or_nothing_names_the_item(api, agent):
    bad = api.post(
        "/v1/memories/batch",
        {
            "agent_id": "support-bot",
            "items": [{"content": "one"}, {"content": "two", "importance": 3}],
        },
    )
    error = assert_error(bad, 400, "invalid_input")
    assert error["details"]["errors"][0]["field"] == "items.1.importance"
    bad_time = api.post(
        "/v1/memories/batch",
        {
            "agent_id": "support-bot",
            "items": [{"content": "one"}, {"content": "two", "created_at": "soon"}],
        },
    )
    assert assert_error(bad_time, 400, "invalid_time")["details"]["index"] == 1
    assert not Memory.objects.exists()
    good = api.post(
        "/v1/memories/batch",
        {"agent_id": "support-bot", "items": [{"content": "one"}, {"content": "two"}]},
    )
    assert good.status_code == 201
    assert [m["content"] for m in good.json()["items"]] == ["one", "two"]


def test_recall_with_explain(api, agent):
    store(api, "Deploy ticket INC-7 was caused by an expired certificate")
    store(api, "Lunch is at noon")
    response = api.post(
        "/v1/memory/recall",
        {"agent_id": "support-bot", "query": "expired certificate", "explain": True},
    )
    assert response.status_code == 200
    first = response.json()["items"][0]
    assert first["content"].startswith("Deploy ticket")
    assert {"vector", "keyword", "relevance", "importance", "recency", "score"} <= set(
        first["explanation"]
    )
    plain = api.post("/v1/memory/recall", {"agent_id": "support-bot", "query": "certificate"})
    assert plain.json()["items"][0]["explanation"] is None


def test_list_with_filters_and_cursor(api, agent):
    for i in range(3):
        store(api, f"note {i}", tags=["a"] if i != 1 else ["b"])
    page = api.get("/v1/agents/support-bot/memories", tags="a", limit=1).json()
    assert [m["content"] for m in page["items"]] == ["note 2"]
    rest = api.get("/v1/agents/support-bot/memories", tags="a", cursor=page["next_cursor"]).json()
    assert [m["content"] for m in rest["items"]] == ["note 0"]


def test_forget_memories(api, agent):
    ids = [store(api, f"note {i}", tags=["tmp"]).json()["id"] for i in range(3)]
    response = api.post("/v1/memories/forget", {"agent_id": "support-bot", "ids": ids[:1]})
    assert response.json() == {"memories": 1, "facts": 0}
    response = api.post("/v1/memories/forget", {"agent_id": "support-bot", "tags": ["tmp"]})
    assert response.json()["memories"] == 2


def test_sessions_lifecycle(api, agent):
    created = api.post(
        "/v1/sessions", {"agent_id": "support-bot", "user": "u1", "idle_timeout_secs": 600}
    )
    assert created.status_code == 201
    sid = created.json()["id"]
    store(api, "first turn", session_id=sid)
    assert api.post(f"/v1/sessions/{sid}/touch").json()["state"] == "active"
    ended = api.post(f"/v1/sessions/{sid}/end", {"summary": "talked about tea"})
    assert (ended.json()["state"], ended.json()["ended_reason"], ended.json()["summary"]) == (
        "ended",
        "client",
        "talked about tea",
    )
    assert_error(api.post(f"/v1/sessions/{sid}/end", {}), 409, "session_ended")
    late = store(api, "late turn", session_id=sid)
    assert late.status_code == 201
    assert late.json()["session_state"] == "ended"
    listed = api.get(f"/v1/sessions/{sid}/memories").json()
    assert [m["content"] for m in listed["items"]] == ["late turn", "first turn"]
    assert api.get(f"/v1/sessions/{sid}").json()["memory_count"] == 2
    scoped = api.post(
        "/v1/memory/recall", {"agent_id": "support-bot", "query": "turn", "session_id": sid}
    )
    assert len(scoped.json()["items"]) == 2


def test_context_assembles_three_tiers_within_the_budget(api, agent):
    sid = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "u1"}).json()["id"]
    store(api, "Ann said her flight lands at 6pm", session_id=sid)
    store(api, "Ann travels to Lisbon for the offsite every October")
    assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate="city", value="Porto"),
        source=SourceInput(kind="operator", operator="op"),
        actor="t",
    )
    body = api.post(
        "/v1/context",
        {
            "agent_id": "support-bot",
            "user": "u1",
            "session_id": sid,
            "query": "Where does Ann travel?",
            "budget_tokens": 300,
        },
    ).json()
    assert [m["content"] for m in body["working"]] == ["Ann said her flight lands at 6pm"]
    assert body["episodic"][0]["content"].startswith("Ann travels to Lisbon")
    assert [f["value"] for f in body["facts"]] == ["Porto"]
    assert body["facts"][0]["freshness_label"] == "fresh"
    assert "Porto" in body["prompt"]
    assert "Lisbon" in body["prompt"]
    assert body["used_tokens"] <= 300


def test_a_turns_context_records_access_on_the_memories_it_recalls(api, agent):
    stored = store(api, "Ann travels to Lisbon for the offsite every October").json()
    body = api.post(
        "/v1/context",
        {"agent_id": "support-bot", "query": "Where does Ann travel?", "budget_tokens": 300},
    ).json()
    (item,) = body["episodic"]
    memory = Memory.objects.get(pk=stored["id"])
    assert item["access_count"] == memory.access_count == 1
    assert memory.last_accessed_at is not None


def test_context_budget_drops_what_does_not_fit(api, agent):
    for i in range(30):
        store(api, f"Ann detail number {i}: " + "filler words " * 20)
    body = api.post(
        "/v1/context",
        {"agent_id": "support-bot", "query": "Ann detail", "budget_tokens": 200, "top_k": 30},
    ).json()
    assert 0 < len(body["episodic"]) < 30
    assert body["used_tokens"] <= 200


# --- bad input: a clear error, nothing written ---

BAD = [
    ("empty content", {"content": ""}, 400, "invalid_input"),
    ("oversize content", {"content": "x" * 16_001}, 413, "too_large"),
    ("importance NaN via string", {"importance": "NaN"}, 400, "invalid_input"),
    ("importance above 1", {"importance": 1.2}, 400, "invalid_input"),
    ("unknown memory_type", {"memory_type": "dream"}, 400, "invalid_input"),
    ("tags not a list", {"tags": "a,b"}, 400, "invalid_input"),
    ("tag too long", {"tags": ["x" * 101]}, 413, "too_large"),
    ("metadata not an object", {"metadata": [1]}, 400, "invalid_input"),
    ("metadata too big", {"metadata": {"k": "x" * 17_000}}, 413, "too_large"),
    ("negative ttl", {"ttl_seconds": -1}, 400, "invalid_input"),
    ("expires in the past", {"expires_at": "2001-01-01T00:00:00Z"}, 400, "invalid_input"),
    ("unknown session", {"session_id": 987654}, 404, "session_not_found"),
]


@pytest.mark.parametrize(("case", "fields", "status", "code"), BAD, ids=[b[0] for b in BAD])
def test_bad_memories_get_clear_errors(api, agent, case, fields, status, code):
    assert_error(store(api, **{"content": "ok", **fields}), status, code)
    assert not Memory.objects.exists()


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"top_k": 0}, "invalid_input"),
        ({"top_k": 101}, "invalid_input"),
        ({"routing": "psychic"}, "invalid_input"),
        ({"fusion": "blend"}, "invalid_input"),
        ({"query": ""}, "invalid_input"),
        ({"since": "last week"}, "invalid_time"),
        ({"session_id": 424242}, "session_not_found"),
    ],
)
def test_bad_recall_requests(api, agent, fields, code):
    store(api)
    body = {"agent_id": "support-bot", "query": "tea", **fields}
    assert_error(api.post("/v1/memory/recall", body), 404 if "not_found" in code else 400, code)


def test_unknown_memory_and_session_are_404(api, agent):
    assert_error(api.get("/v1/memories/123456"), 404, "memory_not_found")
    assert_error(api.get("/v1/sessions/123456"), 404, "session_not_found")
    assert_error(api.post("/v1/sessions/123456/end", {}), 404, "session_not_found")


# --- isolation: two workspaces, two agents ---


def test_nothing_of_one_workspace_reaches_the_other(api, other_api, agent, other_agent):
    secret = store(api, "Ann's door code is 4711", tags=["secret"]).json()
    sid = api.post("/v1/sessions", {"agent_id": "support-bot"}).json()["id"]
    other_api.post("/v1/memories", {"agent_id": "globex-bot", "content": "Globex note"})
    assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate="door_code", value="4711"),
        source=SourceInput(kind="operator", operator="op"),
        actor="t",
    )

    # By id: 404 everywhere.
    assert_error(other_api.get(f"/v1/memories/{secret['id']}"), 404, "memory_not_found")
    patch = other_api.client.patch(
        f"/v1/memories/{secret['id']}",
        data={"content": "x"},
        content_type="application/json",
        headers=other_api.headers,
    )
    assert_error(patch, 404, "memory_not_found")
    assert_error(other_api.delete(f"/v1/memories/{secret['id']}"), 404, "memory_not_found")
    assert_error(other_api.get(f"/v1/sessions/{sid}"), 404, "session_not_found")
    assert_error(other_api.get(f"/v1/sessions/{sid}/memories"), 404, "session_not_found")
    # By agent: 404 too.
    assert_error(other_api.get("/v1/agents/support-bot/memories"), 404, "agent_not_found")
    assert_error(
        other_api.post("/v1/memory/recall", {"agent_id": "support-bot", "query": "door code"}),
        404,
        "agent_not_found",
    )
    assert_error(
        other_api.post("/v1/context", {"agent_id": "support-bot", "query": "x"}),
        404,
        "agent_not_found",
    )
    # Storing under the same id makes the other workspace an agent of its own: the id
    # is not refused (which would tell it the id is in use), and nothing reaches Acme's.
    theirs = other_api.post("/v1/memories", {"agent_id": "support-bot", "content": "x"})
    assert theirs.status_code == 201, theirs.content
    assert Memory.objects.get(pk=theirs.json()["id"]).agent.workspace.slug == "globex"
    assert list(agent.memories.values_list("content", flat=True)) == ["Ann's door code is 4711"]
    # Its own agent's recall, list and context never show the other's memories or facts.
    recalled = other_api.post(
        "/v1/memory/recall", {"agent_id": "globex-bot", "query": "Ann door code 4711", "top_k": 100}
    ).json()
    assert [m["content"] for m in recalled["items"]] == ["Globex note"]
    listed = other_api.get("/v1/agents/globex-bot/memories").json()
    assert [m["content"] for m in listed["items"]] == ["Globex note"]
    context = other_api.post(
        "/v1/context",
        {"agent_id": "globex-bot", "user": "u1", "query": "door code", "session_id": None},
    ).json()
    assert "4711" not in context["prompt"]
    assert context["facts"] == []
    assert_error(
        other_api.post("/v1/context", {"agent_id": "globex-bot", "query": "x", "session_id": sid}),
        404,
        "session_not_found",
    )
    # And nothing changed.
    assert Memory.objects.get(pk=secret["id"]).content == "Ann's door code is 4711"
    assert Fact.objects.count() == 1
    assert Session.objects.get(pk=sid).state == "active"
