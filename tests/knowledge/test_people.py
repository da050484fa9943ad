"""Erasing a person, and exporting what is held about them: the service, the REST API and
the session delete; after an erasure nothing of the person is left in any row."""

import hashlib
import json
from datetime import timedelta

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.utils import timezone

from facts.models import Fact
from knowledge.people import find_person
from knowledge.services import erase_person
from memory.models import Entity, Memory, MemoryEdge, MemoryFeedback, Session
from memory.services import (
    MemoryInput,
    idle_sessions_pass,
    link_memories,
    record_feedback,
    start_session,
    store_memories,
)
from tenancy.models import AuditEvent, ErasureReceipt
from tenancy.receipts import user_digest
from tests.factories import make_agent, state
from tests.leftovers import rows_holding

pytestmark = pytest.mark.django_db

USER = "dana-3f9"
EMAIL = "dana.lopez@example.org"
TURNS = [
    "Dana moved to Porto last spring with her two cats.",
    "Dana is allergic to penicillin and carries an epipen.",
    "Dana's daughter starts school at Colegio Ribeira in September.",
    "Dana prefers to be called in the morning before nine.",
]


def summarised_session(api, agent_id="support-bot"):
    """A session of ``USER`` with an email in its metadata, four turns, and the summary the
    idle pass wrote (a session summary and a summary memory quoting the turns)."""
    session = api.post(
        "/v1/sessions",
        {"agent_id": agent_id, "user": USER, "metadata": {"email": EMAIL}, "idle_timeout_secs": 60},
    ).json()
    for turn in TURNS:
        stored = api.post(
            "/v1/memories", {"agent_id": agent_id, "content": turn, "session_id": session["id"]}
        )
        assert stored.status_code == 201, stored.content
    idle_sessions_pass(now=timezone.now() + timedelta(hours=1))
    return session["id"]


def test_after_forgetting_a_person_nothing_of_them_is_left_in_any_row(api, agent):
    session_id = summarised_session(api)
    ended = api.get(f"/v1/sessions/{session_id}").json()
    assert ended["ended_reason"] == "idle"
    assert ended["metadata"] == {"email": EMAIL}
    assert any(turn.split(" with")[0] in ended["summary"] for turn in TURNS)
    fact = api.post(
        "/v1/facts",
        {
            "agent_id": "support-bot",
            "user": USER,
            "subject": "user",
            "predicate": "lives_in",
            "value": "Porto",
            "source": {"kind": "channel_message", "reference": "msg-1", "excerpt": TURNS[0]},
        },
    ).json()["fact"]
    deleted = api.delete(f"/v1/facts/{fact['id']}", reason=f"{USER} asked to be left alone")
    assert deleted.status_code == 200
    memory_id = Memory.objects.filter(content=TURNS[1]).get().pk
    assert api.post(f"/v1/memories/{memory_id}/feedback", {"kind": "upvote"}).status_code == 201
    # Another user's memory that names the person, and one that does not.
    other = start_session(agent=agent, user="erin")
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"Erin said {USER} will call back", session_id=other.pk),
            MemoryInput(content="Erin likes green tea", session_id=other.pk),
        ],
    )

    held = "\n".join(rows_holding(USER, EMAIL, *TURNS))
    for where in ("memory.Session.metadata", "memory.Session.summary", "memory.Memory.content"):
        assert where in held
    assert "tenancy.AuditEvent.details" in held  # the deletion's reason quotes them

    preview = api.post("/v1/people/forget", {"user": USER})
    assert preview.status_code == 200, preview.content
    counts = preview.json()["counts"]
    assert preview.json()["dry_run"] is True
    # Four turns, the summary memory, the memory of Erin's that names them.
    assert (counts["memories"], counts["sessions"], counts["facts"]) == (6, 1, 1)
    assert counts["feedback"] == 1
    assert preview.json()["by_agent"]["support-bot"]["memories"] == 6
    assert api.get(f"/v1/sessions/{session_id}").status_code == 200  # the preview wrote nothing

    answer = api.post("/v1/people/forget", {"user": USER, "confirm": True})
    assert answer.status_code == 200, answer.content
    receipt = answer.json()
    assert receipt["counts"] == counts
    assert receipt["scope"] == {"user_hmac": user_digest(USER)}

    missing = api.get(f"/v1/sessions/{session_id}")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "session_not_found")
    assert rows_holding(USER, EMAIL, *TURNS) == []
    assert list(Memory.objects.values_list("content", flat=True)) == ["Erin likes green tea"]
    assert ErasureReceipt.objects.filter(pk=receipt["id"]).exists()
    assert AuditEvent.objects.filter(action="person.forget", target_id=receipt["id"]).exists()


def test_the_same_user_id_in_another_workspace_is_untouched(api, other_api, agent, other_agent):
    summarised_session(api)
    theirs = summarised_session(other_api, agent_id="globex-bot")
    state(other_agent, "Globex", user=USER)
    before = (Memory.objects.filter(agent=other_agent).count(), Fact.objects.count())

    assert api.post("/v1/people/forget", {"user": USER, "confirm": True}).status_code == 200

    kept = other_api.get(f"/v1/sessions/{theirs}").json()
    assert (kept["user"], kept["metadata"], kept["summary"] is not None) == (
        USER,
        {"email": EMAIL},
        True,
    )
    assert (Memory.objects.filter(agent=other_agent).count(), Fact.objects.count()) == before
    assert not Memory.objects.filter(agent=agent).exists()
    preview = other_api.post("/v1/people/forget", {"user": USER}).json()
    assert preview["counts"]["memories"] == 5


def test_a_person_is_erased_in_every_agent_of_the_workspace(agent, workspace):
    second = make_agent(workspace, "sales-bot")
    for each in (agent, second):
        store_memories(agent=each, items=[MemoryInput(content="Asked about pricing", user=USER)])
        state(each, "Acme", user=USER)
    erased = erase_person(workspace=workspace, user=USER, actor="operator:ann")
    assert erased.data.by_agent().keys() == {"support-bot", "sales-bot"}
    assert (erased.receipt.counts["memories"], erased.receipt.counts["facts"]) == (2, 2)
    assert not Memory.objects.exists()
    assert not Fact.objects.exists()
    assert (erased.receipt.agent, erased.receipt.agent_ref) == (None, "")


def test_the_receipt_holds_a_keyed_hash_not_a_plain_one(agent, workspace, settings):
    state(agent, "Acme", user=USER)
    receipt = erase_person(workspace=workspace, user=USER, actor="x").receipt
    digest = receipt.scope["user_hmac"]
    assert digest != hashlib.sha256(USER.encode()).hexdigest()
    assert USER not in json.dumps(receipt.scope)
    settings.SECRET_KEY = "another-secret-of-enough-length-for-django-checks"
    assert user_digest(USER) != digest


def test_entities_graph_edges_and_feedback_of_the_person_go_and_others_stay(agent, workspace):
    mine = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Met Ana Silva at Lisbon airport", user=USER),
            MemoryInput(content="Shipped the order to Lisbon", user=USER),
        ],
    )
    theirs = store_memories(
        agent=agent, items=[MemoryInput(content="Ana Silva signed the contract", user="erin")]
    )
    link_memories(agent=agent, source=mine[0], target=mine[1], actor="x")
    record_feedback(memory=theirs[0], kind="upvote", actor="x")
    record_feedback(memory=mine[0], kind="flag", actor="x")

    erase_person(workspace=workspace, user=USER, actor="x")

    names = set(Entity.objects.filter(agent=agent).values_list("name", flat=True))
    assert "Ana Silva" in names
    assert "Lisbon" not in names
    assert list(MemoryFeedback.objects.values_list("memory_id", flat=True)) == [theirs[0].pk]
    assert Entity.objects.get(name="Ana Silva").mention_count == 1
    assert not MemoryEdge.objects.filter(source_id__in=[m.pk for m in mine]).exists()


def test_a_memory_that_names_the_user_as_a_whole_word_only_is_theirs(agent, workspace):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="u1 asked for a refund"),
            MemoryInput(content="u12 asked for a refund"),
            MemoryInput(content="Call U1 back tomorrow"),
        ],
    )
    assert find_person(workspace=workspace, user="u1").totals()["memories"] == 2


def test_a_shared_session_keeps_its_other_turns_and_loses_its_summary(agent, workspace):
    # A conversation of no one user, in which the person spoke twice: its summary is shared,
    # so it is made of the shared turns only.
    shared = start_session(agent=agent, metadata={"with": f"{USER} and erin"})
    store_memories(
        agent=agent,
        items=[MemoryInput(content=t, session_id=shared.pk, user=USER) for t in TURNS[:2]]
        + [MemoryInput(content=f"Erin note {n}.", session_id=shared.pk) for n in range(4)],
    )
    idle_sessions_pass(now=timezone.now() + timedelta(days=1))
    summary = Session.objects.get(pk=shared.pk).summary
    assert summary
    assert not any(turn[:20] in summary for turn in TURNS[:2])

    erase_person(workspace=workspace, user=USER, actor="x")

    # Still cleared: a client's own summary may quote the person, and erasure cannot tell.
    kept = Session.objects.get(pk=shared.pk)
    assert (kept.summary, kept.metadata) == ("", {})
    # The four shared turns, and the summary memory made of them alone.
    assert Memory.objects.filter(session=kept, user_ref__isnull=True).count() == 5
    assert not Memory.objects.filter(session=kept, user_ref=USER).exists()


def test_forget_without_confirm_is_a_preview_that_writes_nothing(api, agent):
    state(agent, "Acme", user=USER)
    events = AuditEvent.objects.count()
    preview = api.post("/v1/people/forget", {"user": USER}).json()
    assert (preview["counts"]["facts"], preview["user"]) == (1, USER)
    assert (Fact.objects.count(), AuditEvent.objects.count()) == (1, events)
    assert not ErasureReceipt.objects.exists()


def test_forget_refuses_a_missing_or_blank_user(api):
    for body in ({}, {"user": "  "}, {"user": 7}):
        answer = api.post("/v1/people/forget", body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "invalid_input")
    assert not ErasureReceipt.objects.exists()


def test_forget_needs_a_key(client):
    answer = client.post("/v1/people/forget", {"user": USER}, content_type="application/json")
    assert answer.status_code == 401


def test_export_holds_everything_about_the_person_and_changes_nothing(api, agent):
    session_id = summarised_session(api)
    state(agent, "Acme", user=USER)
    current = state(agent, "Globex", user=USER).fact
    assert api.delete(f"/v1/facts/{current.pk}", reason="moved on").status_code == 200
    before = Session.objects.values_list("last_activity_at", flat=True).get(pk=session_id)
    events = AuditEvent.objects.count()

    answer = api.get(f"/v1/people/{USER}/export")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"
    data = json.loads(b"".join(answer.streaming_content))

    assert (data["user"], data["workspace"]) == (USER, "acme")
    assert [f["value"] for f in data["facts"]] == ["Acme", "Globex"]
    assert [f["status"] for f in data["facts"]] == ["history", "deleted"]
    assert data["facts"][0]["sources"][0]["excerpt"] == "said so"
    contents = [m["content"] for m in data["memories"]]
    assert contents[:4] == TURNS
    assert len(contents) == 5
    (session,) = data["sessions"]
    assert (session["id"], session["metadata"], len(session["turns"])) == (
        session_id,
        {"email": EMAIL},
        5,
    )
    assert session["summary"]
    assert [(e["action"], e["target_id"]) for e in data["audit_events"]] == [
        ("fact.delete", str(current.pk))
    ]
    assert Session.objects.values_list("last_activity_at", flat=True).get(pk=session_id) == before
    assert AuditEvent.objects.count() == events


def test_export_of_another_workspaces_person_is_empty(api, other_agent):
    state(other_agent, "Globex", user=USER)
    data = json.loads(b"".join(api.get(f"/v1/people/{USER}/export").streaming_content))
    assert (data["facts"], data["memories"], data["sessions"]) == ([], [], [])


def test_delete_session_needs_confirm_then_deletes_it_with_its_memories(api, agent):
    session_id = summarised_session(api)
    refused = api.delete(f"/v1/sessions/{session_id}")
    body = refused.json()["error"]
    assert (refused.status_code, body["code"]) == (400, "confirmation_required")
    assert body["details"]["counts"] == {"sessions": 1, "memories": 5}
    assert Memory.objects.count() == 5

    deleted = api.delete(f"/v1/sessions/{session_id}", confirm="true", reason="asked")
    assert deleted.json() == {"sessions": 1, "memories": 5, "facts": 0}
    assert api.get(f"/v1/sessions/{session_id}").status_code == 404
    assert not Memory.objects.exists()
    event = AuditEvent.objects.get(action="session.delete")
    assert (event.target_id, event.details["reason"]) == (str(session_id), "asked")


def test_delete_session_of_another_workspace_is_not_found(api, other_agent):
    theirs = start_session(agent=other_agent, user=USER)
    answer = api.delete(f"/v1/sessions/{theirs.pk}", confirm="true")
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "session_not_found")
    assert Session.objects.filter(pk=theirs.pk).exists()


def test_the_admins_log_entries_about_the_persons_facts_go_too(agent, workspace, admin_user):
    fact = state(agent, "Acme", user=USER).fact
    kept = state(agent, "Acme", user="erin").fact
    LogEntry.objects.log_actions(
        user_id=admin_user.pk, queryset=[fact, kept], action_flag=CHANGE, change_message="seen"
    )
    assert find_person(workspace=workspace, user=USER).totals()["admin_log_entries"] == 1

    erase_person(workspace=workspace, user=USER, actor="x")

    assert list(LogEntry.objects.values_list("object_id", flat=True)) == [str(kept.pk)]
