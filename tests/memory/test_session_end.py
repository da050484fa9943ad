"""A client ending a session gets what the idle pass gives: a session of more than three
memories ends with a summary memory, the client's own summary when it sent one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.exceptions import EmbeddingModelMismatch
from memory.models import SUMMARY_TAG, Memory, Session
from memory.services import (
    MemoryInput,
    SessionEnded,
    end_session,
    idle_sessions_pass,
    start_session,
    store_memories,
)
from tenancy.models import Agent
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db

TURNS = ("Ann asked about tea.", "We have green tea.", "She ordered two.", "Bye.")
SUMMARISER = "tests.memory.test_session_end.numbered_summary"


def numbered_summary(texts):
    """A summariser for tests: its output is known from its input."""
    return f"{len(texts)} turns: " + " / ".join(texts)


def refusing_summariser(texts):
    raise AssertionError("an ended session is not summarised again")


def fill(session, *contents):
    return store_memories(
        agent=session.agent,
        items=[MemoryInput(content=c, session_id=session.pk) for c in contents],
    )


def summary_memory(session):
    return Memory.objects.get(session=session, tag_rows__name=SUMMARY_TAG)


def test_a_client_end_without_a_summary_stores_what_the_idle_end_stores(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = SUMMARISER
    by_client, by_idle = start_session(agent=agent), start_session(agent=agent)
    turns = fill(by_client, *TURNS)
    fill(by_idle, *TURNS)

    end_session(session=by_client)
    idle_sessions_pass(now=timezone.now() + timedelta(hours=5))

    expected = "4 turns: Ann asked about tea. / We have green tea. / She ordered two. / Bye."
    client_row, idle_row = (Session.objects.get(pk=s.pk) for s in (by_client, by_idle))
    assert (client_row.ended_reason, client_row.summary) == ("client", expected)
    assert (idle_row.ended_reason, idle_row.summary) == ("idle", expected)
    summary = summary_memory(by_client)
    assert (summary.content, summary.memory_type) == (expected, "semantic")
    assert summary.source_refs == [f"session:{by_client.pk}"] + [f"memory:{m.pk}" for m in turns]
    assert summary.embedding is not None
    idle_summary = summary_memory(by_idle)
    assert (idle_summary.content, idle_summary.memory_type) == (summary.content, "semantic")


def test_the_api_end_without_a_summary_returns_and_stores_the_generated_one(api, agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = SUMMARISER
    session = start_session(agent=agent)
    turns = fill(session, *TURNS)

    response = api.post(f"/v1/sessions/{session.pk}/end", {})

    assert response.status_code == 200
    body = response.json()
    assert (body["state"], body["ended_reason"]) == ("ended", "client")
    assert body["summary"] == "4 turns: " + " / ".join(TURNS)
    summary = summary_memory(session)
    assert summary.content == body["summary"]
    assert summary.source_refs == [f"session:{session.pk}"] + [f"memory:{m.pk}" for m in turns]
    assert summary.metadata == {"generated_by": "system:session-end"}
    assert body["memory_count"] == len(TURNS) + 1


def test_the_clients_own_summary_becomes_the_summary_memory(api, agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_session_end.refusing_summariser"
    session = start_session(agent=agent)
    turns = fill(session, *TURNS)

    response = api.post(f"/v1/sessions/{session.pk}/end", {"summary": "Ann ordered green tea"})

    assert response.json()["summary"] == "Ann ordered green tea"
    summary = summary_memory(session)
    assert (summary.content, summary.memory_type) == ("Ann ordered green tea", "semantic")
    assert summary.source_refs == [f"session:{session.pk}"] + [f"memory:{m.pk}" for m in turns]
    assert summary.metadata == {"generated_by": "client"}


@pytest.mark.parametrize("given", ["", "talked about tea"])
def test_three_memories_or_fewer_end_without_a_summary_memory(agent, settings, given):
    settings.DEWEE_SESSION_SUMMARISER = SUMMARISER
    session = start_session(agent=agent)
    fill(session, *TURNS[:3])
    ended = end_session(session=session, summary=given)
    assert (ended.state, ended.summary) == ("ended", given)
    assert not Memory.objects.filter(tag_rows__name=SUMMARY_TAG).exists()


def test_ending_an_ended_session_is_refused_without_summarising_it(api, agent, settings):
    session = start_session(agent=agent)
    fill(session, *TURNS)
    end_session(session=session, summary="done")
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_session_end.refusing_summariser"
    with pytest.raises(SessionEnded):
        end_session(session=session)
    assert_error(api.post(f"/v1/sessions/{session.pk}/end", {}), 409, "session_ended")
    assert Memory.objects.filter(tag_rows__name=SUMMARY_TAG).count() == 1


def test_a_summary_memory_that_cannot_be_stored_leaves_the_session_open(agent):
    session = start_session(agent=agent)
    fill(session, *TURNS)
    # Its vectors now claim another model: no memory can be stored for it until re-embedded.
    Agent.objects.filter(pk=agent.pk).update(embedding_model="someone-else/another-model")
    with pytest.raises(EmbeddingModelMismatch):
        end_session(session=Session.objects.get(pk=session.pk), summary="Ann ordered tea")
    row = Session.objects.get(pk=session.pk)
    assert (row.state, row.summary, row.ended_at) == ("active", "", None)
    assert Memory.objects.filter(session=session).count() == len(TURNS)


def test_another_workspace_cannot_end_the_session(other_api, agent):
    session = start_session(agent=agent)
    fill(session, *TURNS)
    assert_error(other_api.post(f"/v1/sessions/{session.pk}/end", {}), 404, "session_not_found")
    assert Session.objects.get(pk=session.pk).state == "active"
    assert not Memory.objects.filter(tag_rows__name=SUMMARY_TAG).exists()
