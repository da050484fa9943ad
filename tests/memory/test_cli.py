"""`dewee memory search|index-all|export|import` through the CLI's entry point."""

import json

import numpy as np
import pytest

from dewee.cli import main
from memory.models import Memory, Session
from memory.services import (
    MemoryInput,
    end_session,
    record_access,
    set_memory_policy,
    start_session,
    store_memories,
)
from memory.services.indexing import CHECKPOINT_KEY, reindex_agent
from memory.services.sessions import SUMMARY_MAX_CHARS
from tenancy.models import Agent
from tenancy.services import create_agent

pytestmark = pytest.mark.django_db(transaction=True)


def norm(vector) -> float:
    assert vector is not None
    return float(np.linalg.norm(vector))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stocked(agent):
    session = start_session(agent=agent, user="u1", metadata={"channel": "chat"})
    memories = store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content="Ann booked the Lisbon offsite venue",
                tags=["travel"],
                session_id=session.pk,
                source_refs=["msg-1"],
                importance=0.8,
            ),
            MemoryInput(
                content="Ann asked for a vegetarian menu",
                session_id=session.pk,
                metadata={"k": [1, 2]},
                ttl_seconds=3600,
                memory_type="semantic",
            ),
            MemoryInput(content="Deploy freeze starts Friday"),
        ],
    )
    end_session(session=session, summary="offsite planning")
    record_access([memories[0].pk])
    return memories


def test_search_prints_ranked_results_and_json(capsys, stocked):
    code, out, _ = run(
        capsys,
        "memory",
        "search",
        "--agent",
        "support-bot",
        "--query",
        "offsite venue",
        "--top-k",
        "2",
        "--user",
        "u1",
    )
    assert code == 0
    assert "Lisbon offsite venue" in out.splitlines()[2]
    code, out, _ = run(
        capsys,
        "memory",
        "search",
        "--agent",
        "support-bot",
        "--query",
        "deploy freeze",
        "--json",
        "--explain",
    )
    data = json.loads(out)
    assert data["items"][0]["content"] == "Deploy freeze starts Friday"
    assert "keyword" in data["items"][0]["explanation"]


ACCESS = ("access_count", "last_accessed_at", "decay_base", "decay_from", "expires_at")


def test_search_changes_no_memory(capsys, stocked):
    """An operator's search is a read: no access, no decay restart, no expiry moved."""
    before = sorted(Memory.objects.values_list("pk", *ACCESS))
    args = (
        "memory",
        "search",
        "--agent",
        "support-bot",
        "--query",
        "Ann offsite menu",
        "--all-users",
    )
    assert run(capsys, *args)[0] == 0
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    assert sorted(Memory.objects.values_list("pk", *ACCESS)) == before
    shown = {item["id"]: item["access_count"] for item in json.loads(out)["items"]}
    assert {stocked[0].pk, stocked[1].pk} <= set(shown)
    assert shown == {pk: count for pk, count, *_ in before if pk in shown}


def test_search_keeps_to_the_user_asked_for(capsys, stocked):
    """u1's memories come back for u1 (with the shared ones), never without a user or for
    another user; asking for every user and a user at once is refused."""

    def found(*extra):
        code, out, err = run(
            capsys, "memory", "search", "--agent", "support-bot", "--query", "Ann", "--json", *extra
        )
        assert code == 0, err
        return {item["id"] for item in json.loads(out)["items"]}

    u1 = {stocked[0].pk, stocked[1].pk}
    shared = stocked[2].pk
    assert u1 <= found("--user", "u1")
    assert not u1 & found()
    assert not u1 & found("--user", "u2")
    assert shared in found("--user", "u2", "--query", "deploy freeze")
    assert u1 <= found("--all-users")
    with pytest.raises(SystemExit):
        run(
            capsys,
            "memory",
            "search",
            "--agent",
            "support-bot",
            "--query",
            "x",
            "--user",
            "u1",
            "--all-users",
        )


def test_export_then_import_loses_nothing(capsys, tmp_path, stocked):
    path = tmp_path / "export.jsonl"
    assert run(capsys, "memory", "export", "--agent", "support-bot", "-o", str(path))[0] == 0
    code, out, err = run(capsys, "memory", "import", str(path), "--agent", "copy-bot", "--json")
    assert code == 0, err
    assert json.loads(out)["memories"] == 3

    def snapshot(agent_id):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        copy = tmp_path / f"{agent_id}.jsonl"
        run(capsys, "memory", "export", "--agent", agent_id, "-o", str(copy))
        return [json.loads(line) for line in copy.read_text().splitlines()], records

    copied, original = snapshot("copy-bot")
    strip = lambda r: {k: v for k, v in r.items() if k not in ("id", "session", "agent_id")}  # noqa: E731
    assert [strip(r) for r in copied] == [strip(r) for r in original]
    old_sessions = {r["id"]: i for i, r in enumerate(r for r in original if r["kind"] == "session")}
    new_sessions = {r["id"]: i for i, r in enumerate(r for r in copied if r["kind"] == "session")}
    for before, after in zip(original, copied, strict=True):
        if before["kind"] == "memory" and before["session"] is not None:
            assert old_sessions[before["session"]] == new_sessions[after["session"]]
    copy = Agent.objects.get(agent_id="copy-bot")
    assert Session.objects.get(agent=copy).state == "ended"


def test_an_import_does_not_give_memories_an_expiry_they_did_not_have(
    capsys, tmp_path, agent, stocked
):
    path = tmp_path / "export.jsonl"
    run(capsys, "memory", "export", "--agent", "support-bot", "-o", str(path))
    copy = create_agent(workspace=agent.workspace, agent_id="copy-bot")
    set_memory_policy(agent=copy, policy={"default_ttl_seconds": {"episodic": 3600}}, actor="test")
    assert run(capsys, "memory", "import", str(path), "--agent", "copy-bot")[0] == 0

    def deadlines(of):
        return dict(Memory.objects.filter(agent=of).values_list("content", "expires_at"))

    assert deadlines(copy) == deadlines(agent)  # the ones without an expiry still have none
    assert None in deadlines(copy).values()


def test_import_of_a_broken_file_names_the_line_and_keeps_nothing(capsys, tmp_path, agent):
    path = tmp_path / "broken.jsonl"
    path.write_text(
        '{"kind": "memory", "content": "fine"}\n'
        '{"kind": "memory", "content": "bad", "importance": 7}\n'
    )
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "support-bot")
    assert code == 1
    assert "line 2" in err
    assert not Memory.objects.exists()
    path.write_text("{not json\n")
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "support-bot")
    assert (code, "line 1" in err) == (1, True)


def test_a_refused_import_into_a_new_agent_leaves_no_agent(capsys, tmp_path, workspace):
    path = tmp_path / "broken.jsonl"
    path.write_text(
        '{"kind": "memory", "content": "fine"}\n'
        '{"kind": "memory", "content": "bad", "importance": 7}\n'
    )
    argv = ["memory", "import", str(path), "--agent", "new-bot", "--workspace", "acme"]
    code, _, err = run(capsys, *argv)
    assert (code, "line 2" in err) == (1, True)
    assert not Agent.objects.filter(agent_id="new-bot").exists()
    assert not Memory.objects.exists()
    path.write_text('{"kind": "memory", "content": "fine"}\n')
    assert run(capsys, *argv)[0] == 0
    assert Agent.objects.get(agent_id="new-bot").workspace == workspace


ENDED = {
    "kind": "session",
    "id": 7,
    "state": "ended",
    "started_at": "2026-01-05T09:00:00+00:00",
    "last_activity_at": "2026-01-05T09:30:00+00:00",
    "ended_at": "2026-01-05T10:00:00+00:00",
    "ended_reason": "client",
    "summary": "Talked about tea.",
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"summary": "x" * (SUMMARY_MAX_CHARS + 1)}, "summary"),
        ({"ended_reason": "exploded"}, "ended_reason: must be client or idle"),
        ({"state": "paused"}, "state: must be active or ended"),
        ({"state": "active"}, "state: an active session has no end"),
        ({"idle_timeout_secs": -1}, "idle_timeout_secs"),
        ({"user": 42}, "user: must be a string"),
    ],
)
def test_an_imported_session_is_checked_as_the_sessions_own_writes_check_it(
    capsys, tmp_path, agent, change, message
):
    path = tmp_path / "sessions.jsonl"
    session = {**ENDED, **change}
    memory = {"kind": "memory", "content": "Ann likes tea", "session": 7}
    path.write_text(f"{json.dumps(session)}\n{json.dumps(memory)}\n")
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "support-bot")
    assert code == 1
    assert "line 1" in err
    assert message in err, err
    assert not Session.objects.exists()
    assert not Memory.objects.exists()


def test_an_imported_session_keeps_the_exports_times_and_gets_a_started_sessions_defaults(
    capsys, tmp_path, agent
):
    path = tmp_path / "sessions.jsonl"
    active = {"kind": "session", "id": 8, "last_activity_at": "2026-01-05T09:30:00+00:00"}
    memory = {"kind": "memory", "content": "Ann likes tea", "session": 8}
    lines = [ENDED, active, memory]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run(capsys, "memory", "import", str(path), "--agent", "support-bot")[0] == 0
    ended, open_ = Session.objects.filter(agent=agent).order_by("id")
    assert (ended.state, ended.ended_reason, ended.summary) == ("ended", "client", ENDED["summary"])
    assert ended.ended_at is not None
    assert ended.ended_at.isoformat() == ENDED["ended_at"]
    assert (open_.state, open_.user_ref, open_.metadata, open_.idle_timeout_secs) == (
        "active",
        "",
        {},
        None,
    )
    assert (open_.ended_at, open_.ended_reason, open_.summary) == (None, "", "")
    assert open_.last_activity_at.isoformat() == active["last_activity_at"]


def test_index_all_re_embeds_everything_and_reports(capsys, stocked):
    Memory.objects.update(embedding=np.zeros(384, dtype=np.float32))
    code, out, _ = run(capsys, "memory", "index-all", "--agent", "support-bot", "--json")
    assert code == 0
    assert json.loads(out)["reindexed"] == 3
    for memory in Memory.objects.all():
        assert norm(memory.embedding) == pytest.approx(1.0, abs=1e-3)


def test_index_all_resumes_after_an_interruption(stocked, agent):
    Memory.objects.update(embedding=np.zeros(384, dtype=np.float32))
    calls = []

    def crash_after_first_batch(progress):
        calls.append(progress.done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reindex_agent(agent=agent, force=True, batch_size=1, progress=crash_after_first_batch)
    agent.refresh_from_db()
    first = Memory.objects.order_by("id").first()
    assert first is not None
    assert agent.metadata[CHECKPOINT_KEY] == first.pk
    result = reindex_agent(agent=agent, force=True, batch_size=1)
    assert result.done == 2  # only what the interrupted run had not done
    agent.refresh_from_db()
    assert CHECKPOINT_KEY not in agent.metadata
    assert all(norm(m.embedding) > 0.99 for m in Memory.objects.all())


def test_export_holds_only_its_own_agents_memories(capsys, tmp_path, stocked, other_agent):
    store_memories(agent=other_agent, items=[MemoryInput(content="Globex secret plan")])
    path = tmp_path / "mine.jsonl"
    run(capsys, "memory", "export", "--agent", "support-bot", "-o", str(path))
    text = path.read_text()
    assert "Globex secret plan" not in text
    assert text.count('"kind": "memory"') == 3
