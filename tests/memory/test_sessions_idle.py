"""Idle sessions end by themselves, exactly as a client end would, with a summary memory
when they hold more than three memories; every kind of activity postpones that."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import SUMMARY_TAG, Memory, Session, SessionState
from memory.recall import RecallRequest, recall
from memory.services import (
    MemoryInput,
    end_session,
    idle_sessions_pass,
    start_session,
    store_memories,
    touch_session,
)
from memory.sessions.summaries import extractive_summary
from tenancy.models import Agent
from tests.factories import make_agent

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def fill(session, *contents):
    return store_memories(
        agent=session.agent,
        items=[MemoryInput(content=c, session_id=session.pk) for c in contents],
    )


def reload(session):
    return Session.objects.get(pk=session.pk)


def later(delta):
    return timezone.now() + delta


def numbered_summary(texts):
    """A summariser for tests: its output is known from its input."""
    return f"{len(texts)} turns: " + " / ".join(texts)


def test_a_session_ends_idle_after_the_default_four_hours(agent, settings):
    settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS = 4 * 3600
    session = start_session(agent=agent)

    early = idle_sessions_pass(now=later(3 * HOUR + timedelta(minutes=59)))
    assert (early.counts.get("ended", 0), reload(session).state) == (0, "active")

    result = idle_sessions_pass(now=later(4 * HOUR + timedelta(minutes=1)))
    session = reload(session)
    assert (session.state, session.ended_reason, session.summary) == ("ended", "idle", "")
    assert session.ended_at is not None
    assert result.counts["ended"] == 1
    assert result.by_workspace[agent.workspace_id]["ended"] == 1


def test_a_sessions_own_timeout_overrides_the_default(agent, settings):
    settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS = 4 * 3600
    short = start_session(agent=agent, idle_timeout_secs=600)
    long = start_session(agent=agent, idle_timeout_secs=8 * 3600)
    default = start_session(agent=agent)

    idle_sessions_pass(now=later(timedelta(minutes=11)))
    assert [reload(s).state for s in (short, long, default)] == ["ended", "active", "active"]

    idle_sessions_pass(now=later(5 * HOUR))
    assert [reload(s).state for s in (long, default)] == ["active", "ended"]

    idle_sessions_pass(now=later(9 * HOUR))
    assert reload(long).ended_reason == "idle"


def test_a_timeout_of_zero_means_never(agent, settings):
    never = start_session(agent=agent, idle_timeout_secs=0)
    idle_sessions_pass(now=later(timedelta(days=1000)))
    assert reload(never).state == "active"

    settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS = 0
    default = start_session(agent=agent)
    idle_sessions_pass(now=later(timedelta(days=1000)))
    assert reload(default).state == "active"


def test_a_session_of_more_than_three_memories_gets_a_summary_memory(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.numbered_summary"
    session = start_session(agent=agent)
    turns = fill(session, "Ann asked about tea.", "We have green tea.", "She ordered two.", "Bye.")
    last_activity = reload(session).last_activity_at

    result = idle_sessions_pass(now=later(5 * HOUR))

    expected = "4 turns: Ann asked about tea. / We have green tea. / She ordered two. / Bye."
    session = reload(session)
    assert (session.state, session.ended_reason, session.summary) == ("ended", "idle", expected)
    # Storing the summary after the end is not activity: the session keeps its last one.
    assert session.last_activity_at == last_activity
    summary = Memory.objects.get(session=session, tag_rows__name=SUMMARY_TAG)
    assert (summary.content, summary.memory_type, summary.agent) == (expected, "semantic", agent)
    assert summary.source_refs == [f"session:{session.pk}"] + [f"memory:{m.pk}" for m in turns]
    assert summary.embedding is not None
    assert (result.touched, result.counts["summaries"], result.counts["ended"]) == (1, 1, 1)


def test_the_default_summary_is_made_of_the_sessions_own_sentences(agent):
    session = start_session(agent=agent)
    turns = [
        "Ann wants to change her delivery address.",
        "Her new address is 12 Rue Lepic in Paris.",
        "The parcel should go to Rue Lepic from now on.",
        "Ann also asked whether we sell green tea.",
        "Deliveries to Paris take two days.",
    ]
    fill(session, *turns)
    idle_sessions_pass(now=later(5 * HOUR))
    summary = Memory.objects.get(session=session, tag_rows__name=SUMMARY_TAG).content
    picked = [t for t in turns if t in summary]
    # Five one-sentence turns: three of them, in the order they were said.
    assert len(picked) == 3
    assert summary == " ".join(picked)
    assert reload(session).summary == summary


def test_the_summary_memory_can_be_recalled(agent):
    session = start_session(agent=agent)
    fill(
        session,
        "Ann wants a refund for the blue kettle.",
        "The blue kettle leaks water.",
        "Ann sent a photo of the leaking kettle.",
        "A refund for the kettle was approved.",
    )
    idle_sessions_pass(now=later(5 * HOUR))
    hits = recall(agent=agent, request=RecallRequest(query="kettle refund", top_k=10)).hits
    assert any(SUMMARY_TAG in [t.name for t in h.memory.tag_rows.all()] for h in hits)


def test_three_memories_or_fewer_end_without_a_summary(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.numbered_summary"
    session = start_session(agent=agent)
    fill(session, "one turn here", "two turns here", "three turns here")
    result = idle_sessions_pass(now=later(5 * HOUR))
    session = reload(session)
    assert (session.state, session.ended_reason, session.summary) == ("ended", "idle", "")
    assert Memory.objects.filter(session=session).count() == 3
    assert (result.touched, result.counts.get("summaries", 0)) == (0, 0)


def summary_without_text(texts):
    return None


def summary_with_a_nul(texts):
    return "Ann likes tea\x00 and jazz"


@pytest.mark.parametrize(
    ("summariser", "expected"),
    [
        # Not text: the extractive summary stands in.
        ("summary_without_text", None),
        # A NUL no database column accepts: dropped.
        ("summary_with_a_nul", "Ann likes tea and jazz"),
    ],
)
def test_a_summariser_answering_nonsense_does_not_keep_sessions_open(
    agent, settings, summariser, expected
):
    settings.DEWEE_SESSION_SUMMARISER = f"tests.memory.test_sessions_idle.{summariser}"
    first, second = start_session(agent=agent), start_session(agent=agent)
    for session in (first, second):
        fill(session, "Ann likes green tea", "Ann plays jazz piano", "Ann lives in Porto", "Bye")
    result = idle_sessions_pass(now=later(5 * HOUR))
    assert result.counts["summaries"] == 2
    for session in (first, second):
        session = reload(session)
        assert session.state == "ended"
        assert session.summary == (
            expected
            or extractive_summary(
                ["Ann likes green tea", "Ann plays jazz piano", "Ann lives in Porto", "Bye"]
            )
        )


def test_a_session_that_cannot_end_is_counted_and_the_rest_still_end(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.numbered_summary"
    other = make_agent(agent.workspace, "other-bot")
    broken, fine = start_session(agent=other), start_session(agent=agent)
    fill(broken, "a turn", "b turn", "c turn", "d turn")
    fill(fine, "e turn", "f turn", "g turn", "h turn")
    # Its vectors now claim another model: the summary memory cannot be stored there.
    Agent.objects.filter(pk=other.pk).update(embedding_model="someone-else/another-model")
    result = idle_sessions_pass(now=later(5 * HOUR))
    assert result.counts["failed"] == 1
    assert reload(broken).state == "active"  # untouched, tried again next pass
    assert reload(fine).state == "ended"


def test_a_session_the_client_ended_is_left_alone(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.numbered_summary"
    session = start_session(agent=agent)
    fill(session, "a turn", "b turn", "c turn", "d turn")
    end_session(session=session, summary="the client's own summary")
    ended = reload(session)

    result = idle_sessions_pass(now=later(5 * HOUR))

    session = reload(session)
    assert (session.ended_reason, session.summary, session.ended_at) == (
        "client",
        "the client's own summary",
        ended.ended_at,
    )
    # The one summary memory is the client's, stored when it ended the session.
    summaries = Memory.objects.filter(tag_rows__name=SUMMARY_TAG)
    assert [m.content for m in summaries] == ["the client's own summary"]
    assert result.counts.get("ended", 0) == 0


def ending_summariser(texts):
    """Stands for a client that ends the session while the pass is summarising it."""
    session = Session.objects.get(memories__content=texts[0])
    end_session(session=session, summary="ended by the client meanwhile")
    return numbered_summary(texts)


def using_summariser(texts):
    """Stands for a client that stores into the session while the pass is summarising it."""
    session = Session.objects.get(memories__content=texts[0])
    fill(session, "one more question")
    return numbered_summary(texts)


def test_a_client_ending_the_session_during_the_pass_wins(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.ending_summariser"
    session = start_session(agent=agent)
    fill(session, "race turn a", "race turn b", "race turn c", "race turn d")

    result = idle_sessions_pass(now=timezone.now() + 5 * HOUR)

    session = reload(session)
    assert (session.ended_reason, session.summary) == ("client", "ended by the client meanwhile")
    summaries = Memory.objects.filter(tag_rows__name=SUMMARY_TAG)
    assert [m.content for m in summaries] == ["ended by the client meanwhile"]
    assert (result.counts.get("ended", 0), result.counts["skipped"]) == (0, 1)


def test_activity_during_the_pass_keeps_the_session_open(agent, settings):
    settings.DEWEE_SESSION_SUMMARISER = "tests.memory.test_sessions_idle.using_summariser"
    session = start_session(agent=agent)
    fill(session, "busy turn a", "busy turn b", "busy turn c", "busy turn d")
    Session.objects.filter(pk=session.pk).update(last_activity_at=timezone.now() - 5 * HOUR)

    result = idle_sessions_pass()

    assert reload(session).state == "active"
    assert result.counts["skipped"] == 1


def test_dry_run_counts_without_ending(agent):
    session = start_session(agent=agent)
    fill(session, "w turn", "x turn", "y turn", "z turn")
    result = idle_sessions_pass(now=later(5 * HOUR), dry_run=True)
    assert result.counts["ended"] == 1
    assert result.touched == 0
    assert reload(session).state == "active"
    assert Memory.objects.count() == 4


def test_only_the_given_agents_sessions_end(agent, workspace):
    other = make_agent(workspace, "other-bot")
    mine, theirs = start_session(agent=agent), start_session(agent=other)
    idle_sessions_pass(agents=type(agent).objects.filter(pk=agent.pk), now=later(5 * HOUR))
    assert (reload(mine).state, reload(theirs).state) == ("ended", "active")


def test_touching_an_ended_session_changes_nothing(agent):
    session = start_session(agent=agent)
    end_session(session=session)
    before = reload(session).last_activity_at
    touch_session(session=reload(session))
    assert reload(session).last_activity_at == before


# --- what counts as activity ---


def _store(api, session):
    response = api.post(
        "/v1/memories", {"agent_id": "support-bot", "content": "later", "session_id": session.pk}
    )
    assert response.status_code == 201


def _recall_in_session(api, session):
    response = api.post(
        "/v1/memory/recall",
        {"agent_id": "support-bot", "query": "green tea", "session_id": session.pk},
    )
    assert response.status_code == 200


def _list_session(api, session):
    assert api.get(f"/v1/sessions/{session.pk}/memories").status_code == 200


def _touch(api, session):
    assert api.post(f"/v1/sessions/{session.pk}/touch").json()["state"] == "active"


def _context_for_the_session(api, session):
    response = api.post(
        "/v1/context",
        {"agent_id": "support-bot", "query": "what does Ann drink", "session_id": session.pk},
    )
    assert response.status_code == 200


def _edit_a_memory(api, session):
    memory = Memory.objects.filter(session=session).first()
    assert memory is not None
    response = api.client.patch(
        f"/v1/memories/{memory.pk}",
        data={"importance": 0.9},
        content_type="application/json",
        headers=api.headers,
    )
    assert response.status_code == 200


def _recall_elsewhere(api, session):
    """Not activity: a recall over the whole agent names no session."""
    response = api.post("/v1/memory/recall", {"agent_id": "support-bot", "query": "green tea"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("activity", "stays_open"),
    [
        (_store, True),
        (_recall_in_session, True),
        (_list_session, True),
        (_touch, True),
        (_context_for_the_session, True),
        (_edit_a_memory, True),
        (_recall_elsewhere, False),
    ],
)
def test_activity_postpones_the_idle_end(api, agent, settings, activity, stays_open):
    settings.DEWEE_SESSION_IDLE_TIMEOUT_SECS = 4 * 3600
    session = start_session(agent=agent)
    fill(session, "Ann likes green tea")
    # Idle for five hours: the next pass would end it, unless something happens first.
    Session.objects.filter(pk=session.pk).update(last_activity_at=timezone.now() - 5 * HOUR)

    activity(api, session)
    idle_sessions_pass()

    expected = SessionState.ACTIVE if stays_open else SessionState.ENDED
    assert reload(session).state == expected
