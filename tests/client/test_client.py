"""The sync and async clients against a live server: what an agent developer does with them."""

import asyncio

import pytest

from dewee_client import AsyncDewee, Dewee, errors, models
from tests.event_loop import in_own_thread
from tests.factories import make_key, make_workspace


def test_an_agent_turn_stores_recalls_and_assembles_context(dewee):
    session = dewee.start_session(user="u7", metadata={"channel": "chat"})
    assert isinstance(session, models.Session)
    assert (session.user, session.state, session.memory_count) == ("u7", "active", 0)

    stored = dewee.remember(
        "Ana is allergic to penicillin",
        session_id=session.id,
        memory_type="semantic",
        importance=0.9,
        tags=["health"],
    )
    assert isinstance(stored, models.StoredMemory)
    assert (stored.user, stored.session_id, stored.tags) == ("u7", session.id, ["health"])
    assert stored.warnings == []

    recalled = dewee.recall("Which medicine should we avoid for Ana?", user="u7", explain=True)
    assert isinstance(recalled, models.RecallResult)
    [hit] = recalled.items
    assert isinstance(hit, models.RecallHit)
    assert (hit.id, hit.content) == (stored.id, "Ana is allergic to penicillin")
    assert hit.score > 0
    assert hit.explanation is not None

    context = dewee.context("What should we avoid for Ana?", user="u7", session_id=session.id)
    assert isinstance(context, models.Context)
    assert "penicillin" in context.prompt
    assert 0 < context.used_tokens <= context.budget_tokens

    ended = dewee.end_session(session.id, summary="Talked about Ana's allergy")
    assert (ended.state, ended.summary, ended.ended_reason) == (
        "ended",
        "Talked about Ana's allergy",
        "client",
    )
    with pytest.raises(errors.SessionEnded) as ended_again:
        dewee.end_session(session.id)
    assert ended_again.value.status == 409
    assert ended_again.value.code == "session_ended"
    assert isinstance(ended_again.value, errors.Conflict)


def test_a_users_memories_are_not_recalled_for_another_user(dewee):
    dewee.store("My locker code is 4471", user="u1")
    dewee.store("The office closes at 6 pm")  # shared: the agent's own knowledge

    for_u2 = [hit.content for hit in dewee.recall("locker code office", user="u2").items]
    for_u1 = [hit.content for hit in dewee.recall("locker code office", user="u1").items]

    assert for_u2 == ["The office closes at 6 pm"]
    assert set(for_u1) == {"My locker code is 4471", "The office closes at 6 pm"}
    with pytest.raises(errors.ConflictingScope):
        dewee.recall("locker", user="u1", scope="all_users")


def test_iterators_follow_the_cursor_through_every_page(dewee):
    stored = dewee.store_batch([{"content": f"note {n}", "user": "u1"} for n in range(7)])
    assert [item.content for item in stored.items] == [f"note {n}" for n in range(7)]
    dewee.store("shared note")

    everything = list(dewee.memories(user="u1", page_size=3))
    assert sorted(memory.content for memory in everything) == sorted(f"note {n}" for n in range(7))
    assert len({memory.id for memory in everything}) == 7
    assert [memory.content for memory in dewee.memories(shared=True)] == ["shared note"]

    sessions = [dewee.start_session(user=f"u{n}").id for n in range(5)]
    listed = [session.id for session in dewee.sessions(page_size=2)]
    assert sorted(listed) == sorted(sessions)
    [only] = dewee.sessions(user="u3")
    assert only.user == "u3"


def test_memories_are_read_changed_and_forgotten(dewee):
    stored = dewee.store("Desk 14 is by the window", tags=["office"])
    assert dewee.get_memory(stored.id).content == "Desk 14 is by the window"

    patched = dewee.update_memory(stored.id, content="Desk 14 is by the door", importance=0.8)
    assert isinstance(patched, models.PatchedMemory)
    assert (patched.content, patched.importance) == ("Desk 14 is by the door", 0.8)

    other = dewee.store("Desk 9 is free")
    assert dewee.forget(ids=[other.id]) == models.ForgetResult(memories=1, facts=0)
    assert dewee.delete_memory(stored.id, reason="moved").memories == 1
    with pytest.raises(errors.MemoryNotFound) as missing:
        dewee.get_memory(stored.id)
    assert (missing.value.status, missing.value.code) == (404, "memory_not_found")
    assert list(dewee.memories()) == []


def test_facts_are_stated_listed_checked_and_settled(dewee):
    assert dewee.create_agent(name="Help desk").agent_id == "helpdesk"
    with pytest.raises(errors.AgentExists):
        dewee.create_agent()
    stated = dewee.assert_fact(
        "employer",
        "Acme",
        user="u7",
        source={"kind": "channel_message", "reference": "msg-1", "excerpt": "I work at Acme"},
    )
    assert isinstance(stated, models.AssertResult)
    assert (stated.outcome, stated.fact.value, stated.fact.status) == (
        "created",
        "Acme",
        "current",
    )
    [listed] = dewee.facts(user="u7")
    assert isinstance(listed, models.Fact)
    assert listed.id == stated.fact.id

    check = dewee.check_facts("I moved to Lisbon last month", user="u7")
    assert isinstance(check, models.CheckResult)
    assert [(new.predicate, new.value) for new in check.new] == [("city", "Lisbon")]
    assert check.applied == []
    assert [fact.predicate for fact in dewee.facts(user="u7")] == ["employer"]

    applied = dewee.check_facts(
        "I moved to Lisbon last month", user="u7", apply=True, source="conversation_summary"
    )
    assert [(a.action, a.fact.value) for a in applied.applied] == [("ADD", "Lisbon")]
    assert sorted(fact.predicate for fact in dewee.facts(user="u7")) == ["city", "employer"]

    detail = dewee.get_fact(stated.fact.id)
    assert isinstance(detail, models.FactDetail)
    assert [source.reference for source in detail.sources] == ["msg-1"]
    with pytest.raises(errors.FactNotDisputed):
        dewee.resolve_fact(stated.fact.id, "accept")

    preview = dewee.forget_facts(user="u7")
    assert isinstance(preview, models.ForgetPreview)
    assert preview.counts["facts"] == 2
    receipt = dewee.forget_facts(user="u7", confirm=True)
    assert isinstance(receipt, models.ForgetReceipt)
    assert list(dewee.facts(user="u7")) == []


def test_each_refusal_raises_the_class_of_its_code(live):
    workspace = make_workspace()
    reader = Dewee(live.url, make_key(workspace, scopes=["read"]), agent_id="helpdesk")
    with pytest.raises(errors.InsufficientScope) as refused:
        reader.store("x")
    assert refused.value.status == 403
    assert "write" in refused.value.message

    stranger = Dewee(live.url, "dw_not-a-key", agent_id="helpdesk")
    with pytest.raises(errors.Unauthenticated):
        stranger.agents()

    writer = Dewee(live.url, make_key(workspace), agent_id="helpdesk")
    with pytest.raises(errors.InvalidInput) as invalid:
        writer.store("x", importance=3)
    assert invalid.value.details["errors"][0]["field"] == "importance"
    assert isinstance(invalid.value, errors.BadRequest)
    with pytest.raises(errors.FactNotFound):
        writer.get_fact(10**9)
    with pytest.raises(ValueError, match="agent_id"):
        Dewee(live.url, live.key).store("no agent")


def test_the_async_client_does_the_same(live):
    async def turn() -> None:
        async with AsyncDewee(live.url, live.key, agent_id="helpdesk") as dewee:
            session = await dewee.start_session(user="u7")
            stored = await dewee.remember("Ana prefers morning appointments", session_id=session.id)
            await dewee.store_batch([{"content": f"note {n}", "user": "u7"} for n in range(4)])
            hits = (await dewee.recall("When does Ana like appointments?", user="u7")).items
            assert hits[0].id == stored.id
            context = await dewee.context("Ana's appointments", session_id=session.id)
            assert "morning appointments" in context.prompt
            paged = [memory.id async for memory in dewee.memories(user="u7", page_size=2)]
            assert len(paged) == 5
            assert stored.id in paged
            in_session = [memory.id async for memory in dewee.session_memories(session.id)]
            assert in_session == [stored.id]
            assert [agent.agent_id for agent in await dewee.agents()] == ["helpdesk"]
            with pytest.raises(errors.MemoryNotFound):
                await dewee.get_memory(10**9)

    in_own_thread(asyncio.run, turn())
