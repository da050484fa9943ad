"""One agent, several users: recall, context and the lists keep each user's memories to that
user (and the agent's shared ones), through the REST API."""

import pytest

from memory.models import SUMMARY_TAG, Entity, Memory, Session
from tenancy.models import Agent
from tests.conftest import ApiClient
from tests.factories import make_key
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db

AGENT = "shop-bot"


def store(api, content, **fields):
    response = api.post("/v1/memories", {"agent_id": AGENT, "content": content, **fields})
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def stocked(api):
    return {
        "ana": store(api, "Ana prefers window seats on the Lisbon trip", user="ana"),
        "bob": store(api, "Bob prefers aisle seats on the Lisbon trip", user="bob"),
        "shared": store(api, "Lisbon trip seats are booked through the travel desk"),
    }


def recalled(api, **body):
    response = api.post("/v1/memory/recall", {"agent_id": AGENT, "query": "Lisbon seats", **body})
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["items"]}


def test_recall_for_a_user_returns_theirs_and_the_shared_never_anothers(api, stocked):
    ana, bob, shared = (stocked[k]["id"] for k in ("ana", "bob", "shared"))
    assert recalled(api, user="ana") == {ana, shared}
    assert recalled(api, user="bob") == {bob, shared}
    # No user: the shared memories only.
    assert recalled(api) == {shared}
    assert recalled(api, user="nobody") == {shared}


def test_every_users_memories_need_an_admin_key_and_no_user(api, workspace, stocked):
    assert recalled(api, scope="all_users") == {m["id"] for m in stocked.values()}
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    refused = reader.post(
        "/v1/memory/recall", {"agent_id": AGENT, "query": "Lisbon", "scope": "all_users"}
    )
    assert_error(refused, 403, "insufficient_scope")
    both = api.post(
        "/v1/memory/recall",
        {"agent_id": AGENT, "query": "Lisbon", "scope": "all_users", "user": "ana"},
    )
    assert_error(both, 400, "conflicting_scope")


def test_a_refused_recall_records_no_access(api, stocked):
    before = sorted(Memory.objects.values_list("pk", "access_count"))
    both = api.post(
        "/v1/memory/recall",
        {"agent_id": AGENT, "query": "Lisbon", "scope": "all_users", "user": "ana"},
    )
    assert both.status_code == 400
    assert sorted(Memory.objects.values_list("pk", "access_count")) == before


def test_context_for_a_user_lists_no_other_users_memories(api, stocked):
    answer = api.post(
        "/v1/context", {"agent_id": AGENT, "query": "Lisbon trip seats", "user": "ana"}
    ).json()
    assert {m["id"] for m in answer["episodic"]} == {stocked["ana"]["id"], stocked["shared"]["id"]}
    assert "Bob" not in answer["prompt"]
    assert "window seats" in answer["prompt"]
    anonymous = api.post("/v1/context", {"agent_id": AGENT, "query": "Lisbon trip seats"}).json()
    assert [m["id"] for m in anonymous["episodic"]] == [stocked["shared"]["id"]]


def test_context_takes_the_user_from_the_session_and_refuses_another(api, stocked):
    session = api.post("/v1/sessions", {"agent_id": AGENT, "user": "bob"}).json()
    luggage = store(api, "Bob asked about luggage", session_id=session["id"])
    answer = api.post(
        "/v1/context", {"agent_id": AGENT, "query": "Lisbon seats", "session_id": session["id"]}
    ).json()
    assert stocked["bob"]["id"] in {m["id"] for m in answer["episodic"]}
    assert stocked["ana"]["id"] not in {m["id"] for m in answer["episodic"]}
    activity = Session.objects.get(pk=session["id"]).last_activity_at
    mismatch = api.post(
        "/v1/context",
        {"agent_id": AGENT, "query": "Lisbon", "session_id": session["id"], "user": "ana"},
    )
    assert_error(mismatch, 400, "user_mismatch")
    # Refused: not the session's activity.
    assert Session.objects.get(pk=session["id"]).last_activity_at == activity
    # Recall within the session is the session user's too.
    assert recalled(api, session_id=session["id"], query="luggage") == {luggage["id"]}
    wrong = api.post(
        "/v1/memory/recall",
        {"agent_id": AGENT, "query": "Lisbon", "session_id": session["id"], "user": "ana"},
    )
    assert_error(wrong, 400, "user_mismatch")


def test_context_lines_keep_who_said_them(api):
    session = api.post("/v1/sessions", {"agent_id": AGENT, "user": "ana"}).json()
    store(api, "User: where is my parcel", session_id=session["id"])
    store(api, "It left the depot this morning", session_id=session["id"], speaker="Assistant")
    store(api, "Caroline: the parcel was a gift", session_id=session["id"])
    answer = api.post(
        "/v1/context", {"agent_id": AGENT, "query": "parcel", "session_id": session["id"]}
    ).json()
    prompt = answer["prompt"]
    assert "User: where is my parcel" in prompt
    assert "Assistant: It left the depot this morning" in prompt
    assert "Caroline: the parcel was a gift" in prompt
    assert "Caroline: Caroline:" not in prompt
    assert [m["speaker"] for m in answer["working"]] == ["User", "Assistant", "Caroline"]
    # A role is who spoke, not a person of the graph.
    assert not Entity.objects.filter(name__in=["User", "Assistant"]).exists()


def test_context_names_no_entity_only_another_user_mentions(api):
    store(api, "Met Zoltan Kovacs about the refund", user="bob")
    answer = api.post(
        "/v1/context", {"agent_id": AGENT, "query": "What did Zoltan Kovacs say?", "user": "ana"}
    ).json()
    assert answer["entities"] == []
    assert "Zoltan" not in answer["prompt"]
    bob = api.post(
        "/v1/context", {"agent_id": AGENT, "query": "What did Zoltan Kovacs say?", "user": "bob"}
    ).json()
    assert [e["name"] for e in bob["entities"]] == ["Zoltan Kovacs"]


def test_memory_list_filters_by_user_session_and_type_with_cursor(api, stocked):
    session = api.post("/v1/sessions", {"agent_id": AGENT, "user": "ana"}).json()
    note = store(api, "Ana's loyalty number", session_id=session["id"], memory_type="semantic")

    def listed(**params):
        response = api.get("/v1/memories", agent_id=AGENT, **params)
        assert response.status_code == 200, response.content
        return response.json()

    assert [m["id"] for m in listed(user="ana")["items"]] == [note["id"], stocked["ana"]["id"]]
    assert [m["id"] for m in listed(shared="true")["items"]] == [stocked["shared"]["id"]]
    assert [m["id"] for m in listed(session_id=session["id"])["items"]] == [note["id"]]
    assert [m["id"] for m in listed(type="semantic")["items"]] == [note["id"]]
    first = listed(limit=2)
    rest = listed(limit=2, cursor=first["next_cursor"])
    assert len(first["items"]) == 2
    assert {m["id"] for m in first["items"] + rest["items"]} == {
        note["id"],
        *(m["id"] for m in stocked.values()),
    }
    assert rest["next_cursor"] is None
    # The agent's own list takes the same filters.
    own = api.get(f"/v1/agents/{AGENT}/memories", user="bob").json()
    assert [m["id"] for m in own["items"]] == [stocked["bob"]["id"]]


@pytest.mark.parametrize(
    "path", ["/v1/memories?agent_id=shop-bot&usr=ana", f"/v1/agents/{AGENT}/memories?users=ana"]
)
def test_an_unknown_list_filter_is_refused_not_ignored(api, stocked, path):
    assert_error(api.client.get(path, headers=api.headers), 400, "unknown_parameter")


def test_session_list_filters_by_user_and_status(api):
    ana = api.post("/v1/sessions", {"agent_id": AGENT, "user": "ana"}).json()
    bob = api.post("/v1/sessions", {"agent_id": AGENT, "user": "bob"}).json()
    api.post(f"/v1/sessions/{bob['id']}/end", {})

    def ids(**params):
        response = api.get("/v1/sessions", agent_id=AGENT, **params)
        assert response.status_code == 200, response.content
        return [s["id"] for s in response.json()["items"]]

    assert ids() == [bob["id"], ana["id"]]
    assert ids(user="ana") == [ana["id"]]
    assert ids(status="ended") == [bob["id"]]
    assert ids(user="an") == []
    page = api.get("/v1/sessions", agent_id=AGENT, limit=1).json()
    assert len(page["items"]) == 1
    assert page["next_cursor"]
    assert_error(api.get("/v1/sessions", agent_id=AGENT, state="ended"), 400, "unknown_parameter")


def test_starting_a_session_creates_the_agent(api, workspace):
    started = api.post("/v1/sessions", {"agent_id": "new-bot", "user": "ana"})
    assert started.status_code == 201
    assert Agent.objects.get(agent_id="new-bot").workspace == workspace
    refused = api.post("/v1/sessions", {"agent_id": "other-bot", "idle_timeout_secs": -1})
    assert_error(refused, 400, "invalid_input")
    assert not Agent.objects.filter(agent_id="other-bot").exists()


def test_a_group_sessions_summary_is_shared_and_holds_no_users_turns(api):
    # A session without a user (a group conversation): each user's turns stay theirs, and
    # its summary, a shared memory, repeats none of them.
    session = api.post("/v1/sessions", {"agent_id": AGENT}).json()
    for text in (
        "The shop opens at nine.",
        "Returns take two weeks.",
        "Parcels ship on Monday.",
        "Gift wrapping is free.",
    ):
        store(api, text, session_id=session["id"])
    ana = store(api, "Ana lives at 4 Rose Lane.", session_id=session["id"], user="ana")
    bob = store(api, "Bob lives at 9 Elm Street.", session_id=session["id"], user="bob")
    assert (ana["user"], bob["user"]) == ("ana", "bob")
    ended = api.post(f"/v1/sessions/{session['id']}/end", {})
    assert ended.status_code == 200, ended.content
    summary = Memory.objects.get(session_id=session["id"], tag_rows__name=SUMMARY_TAG)
    assert summary.user_ref is None
    assert "Rose Lane" not in summary.content
    assert "Elm Street" not in summary.content
    assert not {f"memory:{ana['id']}", f"memory:{bob['id']}"} & set(summary.source_refs)
    assert "Ana" not in ended.json().get("summary", "")
    # Recall without a user finds no user's address, through the summary or otherwise.
    found = api.post("/v1/memory/recall", {"agent_id": AGENT, "query": "lives at Lane Street"})
    assert not [m for m in found.json()["items"] if "lives at" in m["content"]]
