"""Quotas of agents and workspaces: hard refuses and writes nothing, soft writes and warns
and flags, none only shows; every path that adds or grows memories is checked; usage is
shown by the API and the CLI; isolation; audit."""

import json

import pytest

from dewee.cli import main
from memory.models import Memory
from memory.quotas import agent_usage, memory_size, quota_report, workspace_usage
from memory.services import (
    MemoryInput,
    consolidate_memories,
    end_session,
    start_session,
    store_memories,
    update_memory,
)
from memory.services.idle_sessions import idle_sessions_pass
from tenancy.models import Agent, AuditAction, AuditEvent, QuotaKind
from tenancy.quotas import QuotaLimit, quota_limits, set_quotas
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db


def put(api, path, body):
    return api.client.put(
        path, data=json.dumps(body), content_type="application/json", headers=api.headers
    )


def patch(api, path, body):
    return api.client.patch(
        path, data=json.dumps(body), content_type="application/json", headers=api.headers
    )


def store(api, content="Ann likes green tea", agent_id="support-bot", **fields):
    return api.post("/v1/memories", {"agent_id": agent_id, "content": content, **fields})


def limit_agent(agent, mode="hard", **limits):
    set_quotas(
        workspace=agent.workspace,
        agent=agent,
        limits={kind: QuotaLimit(limit, mode) for kind, limit in limits.items()},
        actor="test",
    )


def remember(agent, *contents, **fields):
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


# What is measured


def test_a_memory_is_measured_by_everything_its_client_gave_it():
    size = memory_size(
        content="héllo",  # 6 bytes of UTF-8
        metadata={"k": "v"},  # {"k": "v"}: 10 bytes
        tags=["ab", "c"],
        source_refs=["x"],  # ["x"]: 5 bytes
        user="u1",
        speaker="Ann",
    )
    assert (size.memories, size.metadata_bytes, size.storage_bytes) == (1, 10, 6 + 10 + 3 + 5 + 5)


def test_usage_sums_the_agents_memories_and_the_workspace_sums_its_agents(agent, workspace):
    from tests.factories import make_agent

    second = make_agent(workspace, "second-bot")
    remember(agent, "abc", metadata={"k": "v"})
    remember(agent, "defg", tags=["x"])
    remember(second, "hi")
    assert agent_usage(agent).as_dict() == {
        "memories": 2,
        "storage_bytes": 3 + 10 + 4 + 1,
        "metadata_bytes": 10,
        "sessions": 0,
        "facts": 0,
        "entities": 0,
    }
    assert workspace_usage(workspace).as_dict() == {
        "memories": 3,
        "storage_bytes": 20,
        "metadata_bytes": 10,
        "sessions": 0,
        "facts": 0,
        "entities": 0,
    }


# Hard


def test_a_hard_agent_quota_refuses_the_write_that_would_go_over_and_writes_nothing(api, agent):
    limit_agent(agent, memories=2)
    assert store(api, "one").status_code == 201
    assert store(api, "two").status_code == 201
    refused = store(api, "three")
    error = assert_error(refused, 413, "quota_exceeded")
    assert error["details"] == {
        "quota": "memories",
        "scope": "agent",
        "workspace": "acme",
        "agent_id": "support-bot",
        "limit": 2,
        "usage": 2,
        "requested": 1,
    }
    assert sorted(Memory.objects.filter(agent=agent).values_list("content", flat=True)) == [
        "one",
        "two",
    ]


def test_a_batch_that_would_go_over_a_hard_quota_is_refused_whole(api, agent):
    limit_agent(agent, memories=3)
    remember(agent, "one")
    batch = api.post(
        "/v1/memories/batch",
        {
            "agent_id": "support-bot",
            "items": [{"content": "two"}, {"content": "three"}, {"content": "four"}],
        },
    )
    assert_error(batch, 413, "quota_exceeded")
    assert Memory.objects.filter(agent=agent).count() == 1
    fits = api.post(
        "/v1/memories/batch",
        {"agent_id": "support-bot", "items": [{"content": "two"}, {"content": "three"}]},
    )
    assert fits.status_code == 201
    assert fits.json()["warnings"] == []
    assert Memory.objects.filter(agent=agent).count() == 3


def test_a_hard_workspace_quota_counts_every_agent_and_refuses_a_new_agent_too(api, workspace):
    put(api, "/v1/workspace/quota", {"memories": {"limit": 2, "mode": "hard"}})
    assert store(api, "one", agent_id="bot-a").status_code == 201
    assert store(api, "two", agent_id="bot-b").status_code == 201
    error = assert_error(store(api, "three", agent_id="bot-c"), 413, "quota_exceeded")
    assert (error["details"]["scope"], error["details"]["agent_id"]) == ("workspace", None)
    # The refused first memory of bot-c left no agent behind.
    assert not Agent.objects.filter(agent_id="bot-c").exists()
    assert Memory.objects.filter(agent__workspace=workspace).count() == 2


def test_a_hard_storage_quota_counts_bytes_and_an_edit_may_shrink_but_not_grow_over(api, agent):
    limit_agent(agent, storage_bytes=20)
    memory_id = store(api, "x" * 15).json()["id"]
    assert_error(store(api, "y" * 6), 413, "quota_exceeded")
    grown = patch(api, f"/v1/memories/{memory_id}", {"metadata": {"note": "too long"}})
    error = assert_error(grown, 413, "quota_exceeded")
    assert error["details"]["quota"] == "storage_bytes"
    assert Memory.objects.get(pk=memory_id).metadata == {}
    shrunk = patch(api, f"/v1/memories/{memory_id}", {"content": "short"})
    assert shrunk.status_code == 200
    assert agent_usage(agent).storage_bytes == 5
    assert store(api, "y" * 15).status_code == 201


def test_a_hard_metadata_quota_counts_the_metadata_of_all_memories(api, agent):
    limit_agent(agent, metadata_bytes=25)
    assert store(api, "a", metadata={"k": "v"}).status_code == 201  # 10 bytes
    assert store(api, "b", metadata={"k": "w"}).status_code == 201  # 20
    assert_error(store(api, "c", metadata={"k": "x"}), 413, "quota_exceeded")
    # Without metadata it adds nothing to the metadata quota.
    assert store(api, "c").status_code == 201


def test_a_limit_lowered_below_usage_refuses_growth_but_not_reads_or_deletes(api, agent):
    remember(agent, "one", "two", "three")
    limit_agent(agent, memories=1)
    assert_error(store(api, "four"), 413, "quota_exceeded")
    assert api.get("/v1/agents/support-bot/memories").status_code == 200
    first = Memory.objects.filter(agent=agent)[0]
    assert api.delete(f"/v1/memories/{first.pk}").status_code == 200


def test_a_hard_limit_below_usage_is_set_only_when_confirmed(api, agent, capsys):
    remember(agent, "one", "two", "three")
    hard_one = {"memories": {"limit": 1, "mode": "hard"}, "sessions": {"limit": 5}}
    error = assert_error(
        put(api, "/v1/agents/support-bot/quota", hard_one), 400, "confirmation_required"
    )
    assert error["details"]["below"] == [{"kind": "memories", "limit": 1, "usage": 3}]
    assert quota_limits(workspace=agent.workspace, agent=agent) == {}  # nothing set
    assert not AuditEvent.objects.filter(action=AuditAction.QUOTA_SET).exists()
    # Soft, or at the usage, needs no confirmation: writes are not refused by it.
    soft = {"memories": {"limit": 1, "mode": "soft"}}
    assert put(api, "/v1/agents/support-bot/quota", soft).status_code == 200
    at_usage = {"memories": {"limit": 3, "mode": "hard"}}
    assert put(api, "/v1/agents/support-bot/quota", at_usage).status_code == 200
    confirmed = {**hard_one, "confirm_below_usage": True}
    assert put(api, "/v1/agents/support-bot/quota", confirmed).status_code == 200
    assert quota_limits(workspace=agent.workspace, agent=agent)["memories"] == QuotaLimit(1)
    assert_error(store(api, "four"), 413, "quota_exceeded")
    # The CLI asks the same: --below-usage.
    workspace_flags = ["--workspace", agent.workspace.slug]
    assert main(["quota", "set", *workspace_flags, "--memories", "2"]) == 2
    assert "below what is already held" in capsys.readouterr().err
    assert main(["quota", "set", *workspace_flags, "--memories", "2", "--below-usage"]) == 0
    assert quota_limits(workspace=agent.workspace)["memories"] == QuotaLimit(2)


# Soft and none


def test_a_soft_quota_writes_warns_and_flags(api, agent):
    limit_agent(agent, mode="soft", memories=1)
    assert store(api, "one").json()["warnings"] == []
    over = store(api, "two")
    assert over.status_code == 201
    (warning,) = over.json()["warnings"]
    assert warning == {
        "code": "quota_warning",
        "message": "agent 'support-bot' is over its memories quota: 2 of 1",
        "quota": "memories",
        "scope": "agent",
        "workspace": "acme",
        "agent_id": "support-bot",
        "limit": 1,
        "usage": 2,
        "mode": "soft",
    }
    assert over["Dewee-Quota-Warning"] == "agent memories 2/1"
    assert Memory.objects.filter(agent=agent).count() == 2
    report = api.get("/v1/agents/support-bot/quota").json()
    assert report["flagged"] is True
    assert report["quotas"]["memories"] == {"limit": 1, "mode": "soft", "usage": 2, "over": True}
    overview = api.get("/v1/quotas").json()
    assert [a["agent_id"] for a in overview["agents"] if a["flagged"]] == ["support-bot"]


def test_a_soft_quota_warns_on_batches_and_edits(api, agent):
    limit_agent(agent, mode="soft", storage_bytes=10)
    batch = api.post(
        "/v1/memories/batch",
        {"agent_id": "support-bot", "items": [{"content": "abcdef"}, {"content": "ghijkl"}]},
    )
    assert batch.status_code == 201
    assert [w["quota"] for w in batch.json()["warnings"]] == ["storage_bytes"]
    memory_id = batch.json()["items"][0]["id"]
    edited = patch(api, f"/v1/memories/{memory_id}", {"content": "abcdefgh"})
    assert edited.status_code == 200
    assert edited.json()["warnings"][0]["usage"] == 14
    assert edited["Dewee-Quota-Warning"] == "agent storage_bytes 14/10"


def test_a_none_quota_only_tracks_and_shows(api, agent):
    limit_agent(agent, mode="none", memories=1)
    assert store(api, "one").status_code == 201
    over = store(api, "two")
    assert over.status_code == 201
    assert over.json()["warnings"] == []
    assert "Dewee-Quota-Warning" not in over
    report = api.get("/v1/agents/support-bot/quota").json()
    assert report["flagged"] is False
    assert report["quotas"]["memories"] == {"limit": 1, "mode": "none", "usage": 2, "over": True}


def test_without_quotas_usage_is_still_shown(api, agent):
    remember(agent, "one", metadata={"k": "v"})
    report = api.get("/v1/workspace/quota").json()
    assert report == {
        "scope": "workspace",
        "workspace": "acme",
        "agent_id": None,
        "flagged": False,
        "usage": {
            "memories": 1,
            "storage_bytes": 13,
            "metadata_bytes": 10,
            "sessions": 0,
            "facts": 0,
            "entities": 0,
        },
        "quotas": dict.fromkeys(QuotaKind.values),
    }


# Other paths


def test_a_client_ending_a_session_is_refused_over_a_hard_quota_but_the_idle_pass_is_not(agent):
    session = start_session(agent=agent, user="u1")
    # A session of more than three memories ends with a summary memory.
    remember(agent, "one", "two", "three", "four", session_id=session.pk)
    limit_agent(agent, memories=4)
    from memory.exceptions import QuotaExceeded

    with pytest.raises(QuotaExceeded):
        end_session(session=session, summary="They talked about tea.")
    session.refresh_from_db()
    assert session.state == "active"
    assert Memory.objects.filter(agent=agent).count() == 4
    # The worker's pass ends it with its summary: counted, not refused.
    from datetime import timedelta

    from django.utils import timezone

    session.summary = ""
    session.save(update_fields=["summary"])
    idle_sessions_pass(now=timezone.now() + timedelta(days=2))
    session.refresh_from_db()
    assert session.state == "ended"
    assert Memory.objects.filter(agent=agent).count() == 5


def test_a_consolidation_that_frees_memories_is_not_refused_by_a_memories_quota(agent):
    originals = remember(agent, "Ann likes tea", "Ann likes green tea")
    limit_agent(agent, memories=1)  # already over: a merge only lowers the count
    merged = consolidate_memories(agent=agent, memory_ids=[m.pk for m in originals], actor="test")
    assert list(Memory.objects.filter(agent=agent)) == [merged]


def test_a_consolidation_over_a_hard_workspace_storage_quota_is_refused_and_sized(api, agent):
    originals = remember(agent, "Ann likes tea", "Ann likes green tea")
    ids = [m.pk for m in originals]
    used = workspace_usage(agent.workspace).storage_bytes
    # The merged memory holds a new text and keeps the originals' texts (merged_from): more
    # than they took, which a workspace at its limit has no room for.
    put(api, "/v1/workspace/quota", {"storage_bytes": {"limit": used + 10, "mode": "hard"}})
    body = {"agent_id": "support-bot", "memory_ids": ids, "content": "Ann drinks tea"}
    error = assert_error(api.post("/v1/memories/consolidate", body), 413, "quota_exceeded")
    assert (error["details"]["scope"], error["details"]["quota"]) == ("workspace", "storage_bytes")
    assert sorted(Memory.objects.filter(agent=agent).values_list("pk", flat=True)) == ids
    assert workspace_usage(agent.workspace).storage_bytes == used
    # With room, it merges, and usage is what the merged memory measures, absorbed texts and
    # all, so the quota sees what is stored.
    put(api, "/v1/workspace/quota", {"storage_bytes": {"limit": used * 10, "mode": "hard"}})
    response = api.post("/v1/memories/consolidate", body)
    assert response.status_code == 201
    merged = Memory.objects.get(pk=response.json()["id"])
    measured = memory_size(
        content=merged.content,
        metadata=merged.metadata,
        tags=[],
        source_refs=merged.source_refs,
        user=merged.user_ref,
        speaker=merged.speaker,
    )
    assert workspace_usage(agent.workspace).storage_bytes == measured.storage_bytes > used


def test_an_autopilot_consolidation_over_a_hard_storage_quota_is_skipped(agent):
    from memory.services.autopilot import autopilot_consolidate_pass

    remember(agent, "alpha one", "alpha two", "alpha three", importance=0.1, tags=["a", "b"])
    used = agent_usage(agent).storage_bytes
    limit_agent(agent, storage_bytes=used)
    result = autopilot_consolidate_pass(agents=Agent.objects.filter(pk=agent.pk))
    assert (result.counts.get("merged", 0), result.counts["skipped"]) == (0, 1)
    assert Memory.objects.filter(agent=agent).count() == 3
    assert agent_usage(agent).storage_bytes == used


def test_an_edit_through_the_service_is_checked_too(agent):
    (memory,) = remember(agent, "abc")
    limit_agent(agent, storage_bytes=5)
    from memory.exceptions import QuotaExceeded

    with pytest.raises(QuotaExceeded):
        update_memory(memory=memory, tags=["long-tag"])
    assert Memory.objects.get(pk=memory.pk).tag_rows.count() == 0


# Setting quotas


def test_put_replaces_the_scopes_quotas_and_is_audited(api, agent):
    body = {"memories": {"limit": 10}, "storage_bytes": {"limit": 1000, "mode": "soft"}}
    first = put(api, "/v1/agents/support-bot/quota", body)
    assert first.status_code == 200
    assert first.json()["quotas"]["memories"] == {
        "limit": 10,
        "mode": "hard",
        "usage": 0,
        "over": False,
    }
    second = put(api, "/v1/agents/support-bot/quota", {"metadata_bytes": {"limit": 5}})
    assert second.json()["quotas"]["memories"] is None
    assert second.json()["quotas"]["storage_bytes"] is None
    event = AuditEvent.objects.filter(action=AuditAction.QUOTA_SET).first()
    assert event is not None
    assert (event.agent, event.target_type) == (agent, "agent")
    assert event.details["before"]["storage_bytes"] == {"limit": 1000, "mode": "soft"}
    assert event.details["after"] == {"metadata_bytes": {"limit": 5, "mode": "hard"}}


@pytest.mark.parametrize(
    "body",
    [
        {"memories": {"limit": -1}},
        {"memories": {"limit": 5, "mode": "strict"}},
        {"memories": {"limit": "many"}},
        {"rows": {"limit": 5}},
    ],
)
def test_a_bad_quota_is_refused_and_changes_nothing(api, agent, body):
    limit_agent(agent, memories=3)
    response = put(api, "/v1/agents/support-bot/quota", body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"]
    assert quota_report(workspace=agent.workspace, agent=agent).status("memories").limit == 3


def test_another_workspaces_agent_quota_is_not_found(api, other_api, agent):
    assert_error(other_api.get("/v1/agents/support-bot/quota"), 404, "agent_not_found")
    refused = put(other_api, "/v1/agents/support-bot/quota", {"memories": {"limit": 0}})
    assert_error(refused, 404, "agent_not_found")
    assert quota_report(workspace=agent.workspace, agent=agent).has_limits is False
    assert other_api.get("/v1/quotas").json()["agents"] == []


def test_reading_usage_and_quotas_writes_nothing(api, agent):
    limit_agent(agent, memories=1, mode="soft")
    remember(agent, "one", "two")
    events = AuditEvent.objects.count()
    for path in ("/v1/quotas", "/v1/workspace/quota", "/v1/agents/support-bot/quota"):
        assert api.get(path).status_code == 200
    assert AuditEvent.objects.count() == events


# The CLI


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_sets_and_shows_quotas(capsys, agent):
    code, out, _ = run(
        capsys,
        "quota",
        "set",
        "--workspace",
        "acme",
        "--agent",
        "support-bot",
        "--memories",
        "1:soft",
        "--storage-bytes",
        "1_000",
    )
    assert code == 0, out
    remember(agent, "one", "two")
    code, out, _ = run(capsys, "quota", "show", "--workspace", "acme")
    assert code == 0
    lines = [line.split() for line in out.splitlines()]
    assert ["support-bot", "memories", "2", "1", "soft", "OVER"] in lines
    assert ["support-bot", "storage_bytes", "6", "1000", "hard"] in lines
    assert ["workspace", "acme", "memories", "2", "-", "-"] in lines
    code, out, _ = run(
        capsys, "quota", "show", "--workspace", "acme", "--agent", "support-bot", "--json"
    )
    assert json.loads(out)["quotas"]["memories"]["over"] is True
    code, out, _ = run(
        capsys, "quota", "set", "--workspace", "acme", "--agent", "support-bot", "--memories", "off"
    )
    assert code == 0
    assert quota_report(workspace=agent.workspace, agent=agent).status("memories").limit is None
    assert (
        quota_report(workspace=agent.workspace, agent=agent).status("storage_bytes").limit == 1000
    )


def test_cli_refuses_a_bad_quota(capsys, agent):
    code, _, err = run(capsys, "quota", "set", "--workspace", "acme", "--memories", "lots")
    assert code == 1
    assert "memories" in err
    code, _, err = run(capsys, "quota", "set", "--workspace", "acme", "--memories", "5:strict")
    assert code == 1
    assert "mode" in err
    assert quota_report(workspace=agent.workspace).has_limits is False


def test_cli_import_over_a_hard_quota_is_refused_whole(capsys, tmp_path, agent):
    set_quotas(
        workspace=agent.workspace,
        limits={QuotaKind.MEMORIES: QuotaLimit(2)},
        actor="test",
    )
    path = tmp_path / "three.jsonl"
    path.write_text("".join(f'{{"kind": "memory", "content": "m{n}"}}\n' for n in range(3)))
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "support-bot")
    assert code == 1
    assert "quota" in err
    assert not Memory.objects.exists()
    set_quotas(
        workspace=agent.workspace,
        limits={QuotaKind.MEMORIES: QuotaLimit(2, "soft")},
        actor="test",
    )
    code, _, err = run(capsys, "memory", "import", str(path), "--agent", "support-bot")
    assert code == 0
    assert "over its memories quota: 3 of 2" in err
    assert Memory.objects.count() == 3


# Counting: a quota's last count plus the memories stored since bounds the usage


def test_memories_deleted_after_a_refusal_make_room_again(api, agent):
    limit_agent(agent, memories=2)
    first = store(api, "one").json()["id"]
    store(api, "two")
    assert_error(store(api, "three"), 413, "quota_exceeded")
    assert api.delete(f"/v1/memories/{first}").status_code == 200
    assert store(api, "three").status_code == 201
    assert_error(store(api, "four"), 413, "quota_exceeded")


def test_growth_of_a_memory_already_counted_is_not_missed(agent):
    from memory.exceptions import QuotaExceeded

    (a,) = remember(agent, "a" * 10)
    limit_agent(agent, storage_bytes=20)
    remember(agent, "b" * 4)  # the quota's first count: a's 10 bytes
    update_memory(memory=a, content="a" * 16)  # a grows by 6 after it was counted
    assert agent_usage(agent).storage_bytes == 20
    with pytest.raises(QuotaExceeded):
        remember(agent, "c")
    assert agent_usage(agent).storage_bytes == 20
