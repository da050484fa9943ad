"""The erasure scan: after a person's erasure and the documented compaction step, no table
(full-text and vector tables, task payloads, the audit log and receipts included) and no
database file holds anything of them, on either edition (docs/PRIVACY.md).

The person has facts, memories naming them, a session with an email in its metadata, its
turns and the summary the idle pass wrote from them, entity tags and feedback. Another
person's memories, stored before and after on the same pages, stay."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from knowledge.services import erase_person
from memory.models import Memory, Session
from memory.services import (
    MemoryInput,
    idle_sessions_pass,
    record_feedback,
    start_session,
    store_memories,
)
from privacy.compaction import compact_storage
from tests.factories import make_agent, make_workspace, state
from tests.leftovers import rows_holding
from tests.privacy.test_compaction import (
    _found,
    _marker,
    _needle,
    _postgres_database_files,
    _sqlite_files,
    compact_postgres,
    fts_without_automerge,  # noqa: F401  (a fixture, used below)
    leaf_tables,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _a_person_held_everywhere(agent, other_agent) -> tuple[str, dict[str, str]]:
    """Their user id (itself a marker) and kind -> needle for what is held about them."""
    needles = {kind: _needle() for kind in ("user", "email", "turn", "fact", "tag", "note")}
    user = _marker(needles["user"])
    live = [
        MemoryInput(content=f"the weather on day {i} was mild", user="someone-else")
        for i in range(6)
    ]
    store_memories(agent=agent, items=live)
    session = start_session(
        agent=agent,
        user=user,
        metadata={"email": f"{_marker(needles['email'])}@example.org"},
        idle_timeout_secs=60,
    )
    turns = [
        f"My locker code is {_marker(needles['turn'])} and I keep it there.",
        "I moved to Porto last spring with my two cats.",
        "I am allergic to penicillin and carry an epipen.",
        "Call me in the morning before nine, please.",
    ]
    stored = store_memories(
        agent=agent,
        items=[MemoryInput(content=turn, session_id=session.pk, user=user) for turn in turns],
    )
    # Memories outside the session: one tagged, one naming them in another agent.
    (tagged,) = store_memories(
        agent=agent,
        items=[MemoryInput(content="a note", user=user, tags=[_marker(needles["tag"])])],
    )
    store_memories(agent=other_agent, items=[MemoryInput(content=f"Ticket opened by {user}")])
    record_feedback(memory=stored[1], kind="flag", note=_marker(needles["note"]), actor="test")
    state(agent, _marker(needles["fact"]), user=user)
    store_memories(agent=agent, items=live)
    # The idle pass ends the session and writes its summary from the turns.
    idle_sessions_pass(now=timezone.now() + timedelta(hours=1))
    assert Session.objects.get(pk=session.pk).summary
    assert tagged.pk
    return user, needles


def _database_files() -> list:
    if connection.vendor == "sqlite":
        return _sqlite_files()
    return _postgres_database_files()


@pytest.fixture
def quiet_full_text_index(request):
    """SQLite's full-text index must not merge its segments on its own during the test
    (see fts_without_automerge); PostgreSQL's has no such step."""
    if connection.vendor == "sqlite":
        request.getfixturevalue("fts_without_automerge")


@pytest.mark.usefixtures("quiet_full_text_index")
@pytest.mark.parametrize("full", [False, True], ids=["default", "full"])
def test_after_a_persons_erasure_and_compaction_no_row_and_no_file_holds_them(full):
    workspace = make_workspace()
    agent, other_agent = make_agent(workspace, "support-bot"), make_agent(workspace, "sales-bot")
    user, needles = _a_person_held_everywhere(agent, other_agent)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CHECKPOINT")
    # The scans see them before.
    assert rows_holding(*needles.values())
    assert _found(_database_files(), needles)

    erased = erase_person(workspace=workspace, user=user, actor="test")
    assert erased.receipt.counts["sessions"] == 1
    # The scheduled (default) compaction as much as the full one: on PostgreSQL the
    # default rewrites the tables small enough (all of them here), so that what VACUUM
    # leaves in their pages' free space goes too.
    if connection.vendor == "postgresql":
        report = compact_postgres(_database_files, needles, full=full)
    else:
        report = compact_storage(full=full)

    assert rows_holding(user, *needles.values()) == []
    assert _found(_database_files(), needles) == {}
    # Nobody else's memories went with them.
    assert Memory.objects.filter(agent=agent, content__contains="weather").count() == 12
    if connection.vendor == "postgresql" and not full:
        rewritten = {s["table"] for s in report["steps"] if s["step"] == "rewrite (small table)"}
        assert {"memory_session", *leaf_tables("facts_fact"), *leaf_tables("memory_memory")} <= (
            rewritten
        )
