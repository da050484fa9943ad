"""Deleting a turn of an ended session takes it out of the session's summary: the summary
no longer quotes it and its summary memory no longer cites it."""

import pytest

from memory.models import SUMMARY_TAG, Memory, Session

pytestmark = pytest.mark.django_db

TURNS = [
    "The customer ordered a blue bicycle with a basket.",
    "Delivery is booked for Tuesday afternoon.",
    "The customer's door code is 4471 and the bell is broken.",
    "Payment was made by card.",
    "A helmet was added to the order.",
]


def ended_session(api, summary=None):
    session = api.post("/v1/sessions", {"agent_id": "shop", "user": "ana"}).json()
    ids = [
        api.post(
            "/v1/memories", {"agent_id": "shop", "content": text, "session_id": session["id"]}
        ).json()["id"]
        for text in TURNS
    ]
    ended = api.post(f"/v1/sessions/{session['id']}/end", {"summary": summary or ""})
    assert ended.status_code == 200
    return session["id"], ids


def summary_memory(session_id):
    return Memory.objects.filter(session_id=session_id, tag_rows__name=SUMMARY_TAG).get()


def test_a_deleted_turn_leaves_the_client_summary_and_its_citations(api):
    summary = f"{TURNS[0]} {TURNS[2]} {TURNS[1]}"
    session_id, ids = ended_session(api, summary=summary)
    door = ids[2]
    assert f"memory:{door}" in summary_memory(session_id).source_refs
    assert api.delete(f"/v1/memories/{door}").status_code == 200
    session = api.get(f"/v1/sessions/{session_id}").json()
    assert "4471" not in session["summary"]
    assert TURNS[0] in session["summary"]
    kept = summary_memory(session_id)
    assert "4471" not in kept.content
    assert f"memory:{door}" not in kept.source_refs
    found = api.post(
        "/v1/memory/recall", {"agent_id": "shop", "user": "ana", "query": "door code 4471"}
    ).json()
    assert all("4471" not in item["content"] for item in found["items"])


def test_a_summary_the_server_made_is_made_again_without_the_deleted_turn(api):
    session_id, ids = ended_session(api)
    made = Session.objects.get(pk=session_id).summary
    assert made
    for memory_id in ids:
        if TURNS[ids.index(memory_id)] in made:
            gone = memory_id
            break
    assert api.delete(f"/v1/memories/{gone}").status_code == 200
    remade = Session.objects.get(pk=session_id).summary
    assert TURNS[ids.index(gone)] not in remade
    assert f"memory:{gone}" not in summary_memory(session_id).source_refs
