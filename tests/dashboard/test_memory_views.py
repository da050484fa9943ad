"""The dashboard's Memories and Sessions pages: scoping by role, recall search with its
scores, htmx fragments, the delete confirmation, the second mount and query counts."""

import pytest

from facts.models import Fact
from memory.models import Memory, Session
from memory.services import (
    MemoryInput,
    end_session,
    record_feedback,
    start_session,
    store_memories,
)
from tenancy.models import Agent
from tests.dashboard.conftest import app
from tests.factories import source, state

pytestmark = pytest.mark.django_db

LIST = "/dashboard/memory/"
SESSIONS = "/dashboard/memory/sessions/"
HTMX = {"HX-Request": "true"}
CONFIRMED = {"confirm": "on"}


def remember(agent: Agent, *contents: str, **fields) -> list[Memory]:
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


def detail_url(memory: Memory) -> str:
    return f"/dashboard/memory/{memory.pk}/"


def app_detail_url(item) -> str:
    return app(detail_url(item))


def test_staff_sees_memories_of_every_workspace(staff_client, agent, other_agent):
    remember(agent, "The user likes green tea")
    (secret,) = remember(other_agent, "Globex launches in May")
    assert "green tea" in staff_client.get(LIST, {"agent": "support-bot"}).text
    assert "Globex launches" in staff_client.get(LIST, {"agent": "globex-bot"}).text
    assert staff_client.get(detail_url(secret)).status_code == 200


def test_manager_gets_404_for_another_workspace(manager_client, agent, other_agent):
    (theirs,) = remember(other_agent, "Globex launches in May")
    assert manager_client.get(app_detail_url(theirs)).status_code == 404
    assert manager_client.get(app(LIST), {"agent": "globex-bot"}).status_code == 404
    assert manager_client.get(app(SESSIONS), {"agent": "globex-bot"}).status_code == 404
    response = manager_client.post(f"{app_detail_url(theirs)}delete/", CONFIRMED)
    assert response.status_code == 404
    assert Memory.objects.filter(pk=theirs.pk).exists()
    page = manager_client.get(app(LIST)).text
    assert "support-bot" in page
    assert "globex-bot" not in page


def test_list_is_newest_first_with_filters(staff_client, agent):
    session = start_session(agent=agent, user="u1")
    remember(agent, "old chat", session_id=session.pk, importance=0.9)
    remember(agent, "a procedure", memory_type="procedural", tags=["howto"], importance=0.2)
    remember(agent, "newest note", importance=0.6)

    def contents(**params):
        return [r["content"] for r in staff_client.get(LIST, params).context["rows"]]

    assert contents() == ["newest note", "a procedure", "old chat"]
    assert contents(memory_type="procedural") == ["a procedure"]
    assert contents(tag="howto") == ["a procedure"]
    assert contents(session=session.pk) == ["old chat"]
    assert contents(min_importance="0.5") == ["newest note", "old chat"]
    assert contents(max_importance="0.6") == ["newest note", "a procedure"]
    assert contents(min_importance="0.5", max_importance="0.6") == ["newest note"]
    assert contents(min_importance="0.6", max_importance="0.6") == ["newest note"]


def test_search_keeps_to_the_importance_range(staff_client, agent):
    remember(agent, "Tea: the user likes green tea", importance=0.9)
    remember(agent, "Tea: the user dislikes black tea", importance=0.3)
    rows = staff_client.get(
        LIST, {"agent": agent.agent_id, "q": "tea", "max_importance": "0.5"}
    ).context["rows"]
    assert [r["content"] for r in rows] == ["Tea: the user dislikes black tea"]


def test_next_page_keeps_the_filters(staff_client, agent):
    remember(agent, *[f"note {i}" for i in range(30)], memory_type="semantic")
    first = staff_client.get(LIST, {"memory_type": "semantic"})
    cursor = first.context["page"].next_cursor
    assert len(first.context["rows"]) == 25
    assert f"memory_type=semantic&amp;cursor={cursor}" in first.text
    rest = staff_client.get(LIST, {"memory_type": "semantic", "cursor": cursor}, headers=HTMX)
    assert [r["content"] for r in rest.context["rows"]] == [f"note {i}" for i in range(4, -1, -1)]
    assert rest.context["page"].next_cursor is None


def test_search_ranks_the_answering_memory_first_with_its_scores(staff_client, agent):
    remember(agent, "The weather was rainy on Monday", "We talked about football results")
    remember(agent, "The user's favourite programming language is Haskell")
    remember(agent, "Lunch was a sandwich")
    response = staff_client.get(
        LIST, {"agent": agent.agent_id, "q": "favourite programming language"}
    )
    rows = response.context["rows"]
    assert rows[0]["content"] == "The user's favourite programming language is Haskell"
    assert rows[0]["score"] > 0
    assert "page" not in response.context  # ranked, not paged
    assert "<details" in response.text
    assert "Keyword" in response.text


ACCESS = ("access_count", "last_accessed_at", "decay_base", "decay_from", "expires_at")


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "htmx"])
def test_searching_changes_no_memory_nor_session(staff_client, agent, headers):
    """An operator's search is a read: no access, no decay restart, no expiry moved by
    spaced repetition, no session activity."""
    session = start_session(agent=agent, user="u1")
    remember(
        agent,
        "The user's favourite tea is sencha",
        "The user drinks tea every morning",
        session_id=session.pk,
        ttl_seconds=3600,
    )
    memories = Memory.objects.filter(agent=agent)
    before = sorted(memories.values_list("pk", *ACCESS))
    active = Session.objects.get(pk=session.pk).last_activity_at
    for params in ({"q": "favourite tea"}, {"q": "tea", "session": session.pk}):
        # Recall ranks one agent's memories: the list searches the agent picked.
        response = staff_client.get(LIST, {"agent": agent.agent_id, **params}, headers=headers)
        assert response.status_code == 200
        rows = response.context["rows"]
        assert rows
        # Each row shows the memory as it is stored.
        assert {row["access_count"] for row in rows} == {0}
    assert sorted(memories.values_list("pk", *ACCESS)) == before
    assert Session.objects.get(pk=session.pk).last_activity_at == active


def test_full_page_without_htmx_and_only_the_table_with_it(staff_client, agent):
    remember(agent, "The user likes green tea")
    page = staff_client.get(LIST)
    assert "<html" in page.text
    assert 'id="memories-table"' in page.text
    assert "green tea" in page.text
    assert "HX-Request" in page["Vary"]
    fragment = staff_client.get(LIST, headers=HTMX)
    assert "<html" not in fragment.text
    assert "<form" not in fragment.text
    assert "green tea" in fragment.text
    sessions = staff_client.get(SESSIONS, headers=HTMX)
    assert "<html" not in sessions.text
    assert "<html" in staff_client.get(SESSIONS).text


def test_bad_filter_shows_the_error(staff_client, agent):
    response = staff_client.get(LIST, {"min_importance": "lots", "cursor": "nonsense"})
    assert response.status_code == 200
    assert response.context["form"].errors.keys() == {"min_importance", "cursor"}
    assert "Fix the highlighted filters" in response.text


def test_max_importance_below_min_is_an_error_next_to_the_field(staff_client, agent):
    remember(agent, "The user likes green tea", importance=0.5)
    params = {"min_importance": "0.7", "max_importance": "0.2"}
    response = staff_client.get(LIST, params)
    assert response.context["form"].errors == {
        "max_importance": ["Must not be below the min importance."]
    }
    assert "green tea" not in response.text
    fragment = staff_client.get(LIST, params, headers=HTMX).text
    assert "Max importance: Must not be below the min importance." in fragment


def test_detail_shows_tags_refs_session_and_the_facts_learned_from_it(staff_client, agent):
    session = start_session(agent=agent)
    (memory,) = remember(
        agent,
        "Alice Smith joined Acme",
        tags=["hr"],
        source_refs=["msg-7"],
        session_id=session.pk,
    )
    fact = state(agent, "Acme", source=source(memory_id=memory.pk)).fact
    page = staff_client.get(detail_url(memory))
    assert page.context["memory"]["tags"] == ["hr"]
    assert "msg-7" in page.text
    assert f"session={session.pk}" in page.text
    assert f'href="/dashboard/facts/{fact.pk}/"' in page.text
    assert "Delete memory" in page.text


def test_viewer_sees_no_delete_and_a_forged_post_deletes_nothing(viewer_client, agent):
    (memory,) = remember(agent, "The user likes green tea")
    state(agent, "Acme", source=source(memory_id=memory.pk))
    page = viewer_client.get(app_detail_url(memory))
    assert page.status_code == 200
    assert "Delete memory" not in page.text
    assert viewer_client.post(f"{app_detail_url(memory)}delete/", CONFIRMED).status_code == 403
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert Fact.objects.count() == 1


def test_delete_without_the_checkbox_deletes_nothing(manager_client, agent):
    (memory,) = remember(agent, "The user likes green tea")
    state(agent, "Acme", source=source(memory_id=memory.pk))
    response = manager_client.post(f"{app_detail_url(memory)}delete/", {"reason": "wrong"})
    assert response.status_code == 200
    assert "Tick the box" in response.text
    assert Memory.objects.filter(pk=memory.pk).exists()
    assert Fact.objects.count() == 1
    fragment = manager_client.post(f"{app_detail_url(memory)}delete/", {}, headers=HTMX)
    assert "<html" not in fragment.text
    assert "Tick the box" in fragment.text


def test_delete_erases_the_memory_and_the_fact_learned_only_from_it(manager_client, agent):
    (memory, other) = remember(agent, "The user works at Acme", "Paris is home")
    only_here = state(agent, "Acme", source=source(memory_id=memory.pk)).fact
    elsewhere = state(agent, "Paris", predicate="city", source=source(memory_id=memory.pk)).fact
    state(agent, "Paris", predicate="city", source=source(memory_id=other.pk))
    response = manager_client.post(f"{app_detail_url(memory)}delete/", CONFIRMED)
    assert response.status_code == 302
    assert response["Location"] == "/app/memory/?agent=support-bot"
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert not Fact.objects.filter(pk=only_here.pk).exists()
    assert Fact.objects.filter(pk=elsewhere.pk).exists()
    after = manager_client.get(response["Location"]).text
    assert f"Memory {memory.pk} deleted, with 1 fact learned only from it." in after


def test_delete_with_htmx_sends_the_browser_to_the_list(manager_client, agent):
    (memory,) = remember(agent, "The user likes green tea")
    response = manager_client.post(f"{app_detail_url(memory)}delete/", CONFIRMED, headers=HTMX)
    assert response["HX-Redirect"] == "/app/memory/?agent=support-bot"
    assert not Memory.objects.exists()


def test_sessions_show_state_counts_and_link_to_their_memories(staff_client, agent):
    ended = start_session(agent=agent, user="u1")
    remember(agent, "first", "second", session_id=ended.pk)
    end_session(session=ended, summary="Talked about tea", reason="client")
    active = start_session(agent=agent)
    response = staff_client.get(SESSIONS)
    rows = response.context["rows"]
    assert [(r["id"], r["state"], r["memory_count"]) for r in rows] == [
        (active.pk, "active", 0),
        (ended.pk, "ended", 2),
    ]
    assert "Talked about tea" in response.text
    assert f"/dashboard/memory/?agent=acme/support-bot&amp;session={ended.pk}" in response.text


def test_app_mount_keeps_its_links_and_redirects(manager_client, agent):
    (memory,) = remember(agent, "The user works at Acme")
    fact = state(agent, "Acme", source=source(memory_id=memory.pk)).fact
    for url in ("/app/memory/", "/app/memory/sessions/", f"/app/memory/{memory.pk}/"):
        page = manager_client.get(url).text
        assert "/dashboard/" not in page
    assert 'href="/app/facts/"' in page
    assert f'href="/app/facts/{fact.pk}/"' in page
    assert 'href="/app/memory/"' in manager_client.get("/app/facts/").text
    response = manager_client.post(f"/app/memory/{memory.pk}/delete/", CONFIRMED)
    assert response["Location"] == "/app/memory/?agent=support-bot"


@pytest.mark.parametrize("n", [3, 30])
def test_memory_list_queries_do_not_grow(staff_client, agent, django_assert_num_queries, n):
    session = start_session(agent=agent)
    remember(agent, *[f"note {i}" for i in range(n)], tags=["t"], session_id=session.pk)
    # session, user, agents for the form, the agent, the page, its tags, review badge, the
    # saved views of the page
    with django_assert_num_queries(8):
        assert staff_client.get(LIST).status_code == 200


@pytest.mark.parametrize("n", [3, 30])
def test_session_list_queries_do_not_grow(staff_client, agent, django_assert_num_queries, n):
    for i in range(n):
        remember(agent, f"note {i}", session_id=start_session(agent=agent).pk)
    # session, user, agents for the form, the agent, the page with its counts, review badge,
    # the saved views of the page
    with django_assert_num_queries(7):
        assert staff_client.get(SESSIONS).status_code == 200


def test_a_fact_page_links_its_source_to_the_memory_it_came_from(staff_client, agent):
    from facts.services import Claim, SourceInput, assert_fact
    from memory.services import MemoryInput, store_memories

    (memory,) = store_memories(agent=agent, items=[MemoryInput(content="Ann works at Acme")])
    fact = assert_fact(
        agent=agent,
        claim=Claim(user="u1", subject="user", predicate="employer", value="Acme"),
        source=SourceInput(kind="memory_document", memory_id=memory.pk),
        actor="t",
    ).fact
    page = staff_client.get(f"/dashboard/facts/{fact.pk}/").content.decode()
    assert f'href="/dashboard/memory/{memory.pk}/"' in page


def test_a_flagged_memory_says_so_in_the_list_and_on_its_page(staff_client, agent):
    flagged, plain = remember(agent, "The wifi password is on the fridge", "Lunch is at noon")
    record_feedback(memory=flagged, kind="flag", actor="agent")
    listing = staff_client.get("/dashboard/memory/", {"agent": agent.agent_id}).content.decode()
    assert listing.count(">flagged</span>") == 1
    assert ">flagged</span>" in staff_client.get(detail_url(flagged)).content.decode()
    assert ">flagged</span>" not in staff_client.get(detail_url(plain)).content.decode()


def test_the_user_filter_matches_the_start_of_an_id_in_any_case(staff_client, agent):
    remember(agent, "Ana's note", user="ana")
    remember(agent, "Anabel's note", user="Anabel")
    remember(agent, "Bob's note", user="bob")
    response = staff_client.get(LIST, {"agent": "support-bot", "user": "AN"})
    assert {r["content"] for r in response.context["rows"]} == {"Ana's note", "Anabel's note"}
    exact = staff_client.get(LIST, {"agent": "support-bot", "user": "bob"})
    assert [r["content"] for r in exact.context["rows"]] == ["Bob's note"]
    assert "Starts with, any case." in response.text
