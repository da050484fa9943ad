"""Forgiving filters (prefix, any case) and their suggestions, the one search box, and the
lists' "all agents" default: scoping, isolation, reads that write nothing, flat query
counts."""

import re

import pytest

from facts.models import Fact
from facts.queries import (
    FactFilters,
    filter_facts,
    list_facts,
    plan_prefix_filters,
    status_counts,
    suggest_keys,
)
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tenancy.access import Access
from tenancy.models import Agent, AuditEvent, MemberRole
from tests.dashboard.conftest import app, member, signed_in
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

LIST = "/dashboard/facts/"
SUGGEST = "/dashboard/facts/suggest/"
SEARCH = "/dashboard/search/"
MEMORIES = "/dashboard/memory/"
SESSIONS = "/dashboard/memory/sessions/"
HTMX = {"HX-Request": "true"}


def remember(agent: Agent, *contents: str, **fields) -> list[Memory]:
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


def users_listed(response) -> set[str]:
    return {row["user"] for row in response.context["rows"]}


@pytest.fixture
def people(agent):
    for user in ("ana", "andre", "Anouk", "bob"):
        state(agent, f"Employer of {user}", user=user)
    state(agent, "Lisbon", user="ana", subject="Acme", predicate="headquarters")


# Forgiving filters: queries


def test_prefix_filter_matches_the_start_in_any_case(agent, people):
    found = filter_facts(agent, FactFilters(user="AN", prefix=True))
    assert {f.user_ref for f in found} == {"ana", "andre", "Anouk"}
    by_subject = filter_facts(agent, FactFilters(subject="ac", prefix=True))
    assert [f.value for f in by_subject] == ["Lisbon"]
    by_predicate = filter_facts(agent, FactFilters(predicate="EMPL", prefix=True))
    assert by_predicate.count() == 4


def test_exact_value_still_matches_with_prefix(agent, people):
    found = filter_facts(agent, FactFilters(user="bob", prefix=True))
    assert [f.value for f in found] == ["Employer of bob"]


def test_api_filters_stay_exact(agent, people):
    # An agent asking for "an"'s facts must not get "ana"'s.
    assert not filter_facts(agent, FactFilters(user="an")).exists()
    assert not filter_facts(agent, FactFilters(user="ANA")).exists()
    assert filter_facts(agent, FactFilters(user="ana")).count() == 2


def test_empty_user_means_no_particular_user_even_with_prefix(agent, people):
    state(agent, "Paris", user="", subject="acme", predicate="city")
    found = filter_facts(agent, FactFilters(user="", prefix=True))
    assert [f.value for f in found] == ["Paris"]


def test_facts_list_filters_by_prefix(staff_client, agent, people):
    response = staff_client.get(LIST, {"agent": "acme/support-bot", "user": "an"})
    assert users_listed(response) == {"ana", "andre", "Anouk"}
    response = staff_client.get(LIST, {"agent": "acme/support-bot", "predicate": "HEAD"})
    assert [row["value"] for row in response.context["rows"]] == ["Lisbon"]


# Suggestions


def test_suggestions_are_distinct_values_starting_with_the_text(staff_client, agent, people):
    response = staff_client.get(
        SUGGEST, {"field": "user", "q": "an", "agent": "acme/support-bot"}, headers=HTMX
    )
    assert response.status_code == 200
    assert response.text.count("<option") == 3
    for user in ("ana", "andre", "Anouk"):
        assert f'<option value="{user}">' in response.text
    assert "bob" not in response.text


def test_suggestions_take_the_inputs_own_name(staff_client, agent, people):
    # htmx sends the filter's input as user=an, with field=user from hx-vals.
    response = staff_client.get(SUGGEST, {"field": "user", "user": "bo"}, headers=HTMX)
    assert '<option value="bob">' in response.text


def test_suggestions_are_bounded(agent):
    for i in range(15):
        state(agent, f"v{i}", user=f"user-{i:02d}")
    assert suggest_keys(agent, field="user", prefix="user") == [f"user-{i:02d}" for i in range(10)]
    assert suggest_keys(agent, field="user", prefix="") == []


def test_suggestions_keep_to_the_picked_agent_and_the_viewers_workspace(
    django_user_model, workspace, agent, other_agent, people
):
    state(other_agent, "Globex", user="anastasia")
    state(make_agent(workspace, "sales-bot"), "Initech", user="annie")
    assert suggest_keys(agent, field="user", prefix="an") == ["ana", "andre", "Anouk"]
    theirs = signed_in(member(django_user_model, other_agent.workspace, MemberRole.VIEWER, "gus"))
    response = theirs.get(app(SUGGEST), {"field": "user", "q": "an"})
    assert re.findall(r'<option value="([^"]*)">', response.text) == ["anastasia"]
    # Another workspace's agent named by hand: a 404, exactly like a missing one.
    assert (
        theirs.get(app(SUGGEST), {"field": "user", "q": "an", "agent": "support-bot"}).status_code
        == 404
    )


def test_suggestions_refuse_an_unknown_field(staff_client, agent):
    assert staff_client.get(SUGGEST, {"field": "value", "q": "a"}).status_code == 400


# The search page


@pytest.fixture
def findable(agent, other_agent, people):
    remember(agent, "Ana prefers green tea in the morning", user="ana")
    start_session(agent=agent, user="anabel")
    state(other_agent, "Globex", user="anastasia")
    remember(other_agent, "Anastasia prefers green tea too", user="anastasia")


def test_search_finds_users_agents_facts_and_memories(staff_client, agent, findable):
    response = staff_client.get(SEARCH, {"q": "an"})
    assert response.status_code == 200
    results = response.context["results"]
    assert results.users == ["ana", "anabel", "anastasia", "andre", "Anouk"]
    assert response.context["users"][0]["url"] == "/dashboard/memory/people/?user=ana"
    assert staff_client.get(SEARCH, {"q": "support"}).context["results"].agents[0]["ref"] == (
        "acme/support-bot"
    )
    facts = staff_client.get(SEARCH, {"q": "lisbon"}).context["results"].facts
    assert [f["value"] for f in facts] == ["Lisbon"]
    assert (
        f'href="/dashboard/facts/{facts[0]["id"]}/"'
        in staff_client.get(SEARCH, {"q": "lisbon"}).text
    )
    memories = staff_client.get(SEARCH, {"q": "green tea"}).context["results"].memories
    assert len(memories) == 2


def test_search_finds_whole_words_and_puts_the_persons_own_facts_first(staff_client, agent):
    state(agent, "Germany", predicate="country", user="zoe")
    state(agent, "Anna", predicate="spouse", user="zoe")
    state(agent, "an apple a day", predicate="motto", user="zoe")
    older = state(agent, "Lisbon", predicate="city", user="ana").fact
    state(agent, "Ana Lima", predicate="friend", user="zoe")  # newer, someone else's
    facts = staff_client.get(SEARCH, {"q": "an"}).context["results"].facts
    assert "Germany" not in [f["value"] for f in facts]  # "an" inside a word is no match
    assert {"Anna", "an apple a day"} <= {f["value"] for f in facts}
    ana = staff_client.get(SEARCH, {"q": "ana"}).context["results"].facts
    # The person searched for first, though another user's fact naming them is newer.
    assert [f["id"] for f in ana][:2] == [older.pk, ana[1]["id"]]
    assert ana[1]["value"] == "Ana Lima"


def test_a_memory_is_found_once(staff_client, agent):
    remember(agent, "Tea, green tea and more green tea", tags=["tea", "green"], user="ana")
    memories = staff_client.get(SEARCH, {"q": "green tea"}).context["results"].memories
    assert len(memories) == 1


def test_search_sections_are_bounded_with_a_see_all_link(staff_client, agent):
    for i in range(12):
        state(agent, f"Acme branch {i}", user=f"user-{i:02d}", predicate=f"branch{i}")
    response = staff_client.get(SEARCH, {"q": "user-"})
    assert len(response.context["results"].users) == 10
    assert 'href="/dashboard/facts/?user=user-"' in response.text
    response = staff_client.get(SEARCH, {"q": "branch"})
    assert len(response.context["results"].facts) == 10
    assert 'href="/dashboard/facts/?q=branch"' in response.text


def test_search_keeps_to_the_members_workspace(django_user_model, agent, other_agent, findable):
    theirs = signed_in(member(django_user_model, other_agent.workspace, MemberRole.VIEWER, "gus"))
    response = theirs.get(app(SEARCH), {"q": "an"})
    assert response.status_code == 200
    results = response.context["results"]
    assert results.users == ["anastasia"]
    assert theirs.get(app(SEARCH), {"q": "support"}).context["results"].agents == []
    assert theirs.get(app(SEARCH), {"q": "lisbon"}).context["results"].facts == []
    memories = theirs.get(app(SEARCH), {"q": "green tea"}).context["results"].memories
    assert [m["content"] for m in memories] == ["Anastasia prefers green tea too"]


def test_search_writes_nothing(staff_client, agent, findable):
    def snapshot():
        return (
            list(Fact.objects.values_list("id", "access_count", "last_accessed_at", "status")),
            list(
                Memory.objects.values_list("id", "access_count", "last_accessed_at", "importance")
            ),
            list(Session.objects.values_list("id", "last_activity_at")),
            AuditEvent.objects.count(),
        )

    before = snapshot()
    for q in ("an", "green tea", "lisbon", "support"):
        for headers in ({}, HTMX):
            assert staff_client.get(SEARCH, {"q": q}, headers=headers).status_code == 200
    assert snapshot() == before


def test_search_with_htmx_returns_the_results_only(staff_client, findable):
    response = staff_client.get(SEARCH, {"q": "an"}, headers=HTMX)
    assert 'id="search-users"' in response.text
    assert "<header" not in response.text


def test_every_page_has_the_search_box(manager_client, agent):
    assert 'action="/app/search/"' in manager_client.get(app(LIST)).text


@pytest.mark.parametrize("n", [2, 12])
def test_search_queries_do_not_grow_with_the_data(
    staff_client, agent, django_assert_max_num_queries, n
):
    for i in range(n):
        state(agent, f"Acme {i}", user=f"an-{i}", predicate=f"p{i}")
        remember(agent, f"Acme memory {i}", user=f"an-{i}")
        start_session(agent=agent, user=f"an-{i}")
    # session, user, badge; users (facts, memories, sessions); agents; facts (the ids by
    # value, by subject, then the facts and their agents); for each agent: its corpus
    # statistics and keyword match (on PostgreSQL also its words' lexemes, and the
    # statistics' first reading in a process); the memories.
    with django_assert_max_num_queries(20):
        response = staff_client.get(SEARCH, {"q": "acme"})
    assert len(response.context["results"].facts) == min(n, 10)


# "All agents": the lists' default


def test_staff_start_on_all_agents_of_all_workspaces(staff_client, agent, other_agent, people):
    state(other_agent, "Globex", user="gina")
    response = staff_client.get(LIST)
    assert response.context["agent"] is None
    assert users_listed(response) == {"ana", "andre", "Anouk", "bob", "gina"}
    assert '<option value="" selected>All agents of all workspaces</option>' in response.text
    # Each row names its agent, qualified.
    assert "acme/support-bot" in response.text
    assert "globex/globex-bot" in response.text


def test_members_start_on_all_agents_of_their_workspace(
    manager_client, workspace, agent, other_agent, people
):
    state(make_agent(workspace, "sales-bot"), "Initech", user="ivy")
    state(other_agent, "Globex", user="gina")
    response = manager_client.get(app(LIST))
    assert users_listed(response) == {"ana", "andre", "Anouk", "bob", "ivy"}
    assert "All agents of acme" in response.text
    counts = {value: n for value, _label, n in response.context["status_tabs"]}
    assert counts["current"] == 6


def test_memories_and_sessions_start_on_all_agents(manager_client, workspace, agent, other_agent):
    remember(agent, "mine")
    remember(make_agent(workspace, "sales-bot"), "my colleague's")
    remember(other_agent, "theirs")
    start_session(agent=agent, user="u1")
    start_session(agent=other_agent, user="u2")
    rows = manager_client.get(app(MEMORIES)).context["rows"]
    assert sorted(r["content"] for r in rows) == ["mine", "my colleague's"]
    rows = manager_client.get(app(SESSIONS)).context["rows"]
    assert [r["user"] for r in rows] == ["u1"]


def test_memory_search_without_an_agent_asks_for_one(staff_client, agent):
    remember(agent, "green tea")
    response = staff_client.get(MEMORIES, {"q": "tea"})
    assert response.status_code == 200
    assert "pick an agent to search them" in response.text
    assert 'href="/dashboard/search/?q=tea"' in response.text


def test_one_agent_can_still_be_picked(staff_client, agent, other_agent, people):
    state(other_agent, "Globex", user="gina")
    response = staff_client.get(LIST, {"agent": "globex/globex-bot"})
    assert users_listed(response) == {"gina"}


def test_clear_keeps_the_agent(staff_client, agent, people):
    response = staff_client.get(
        LIST, {"agent": "acme/support-bot", "user": "an", "status": "current"}
    )
    assert 'id="facts-clear" href="/dashboard/facts/?agent=acme/support-bot"' in response.text
    response = staff_client.get(LIST, {"user": "an"})
    assert 'id="facts-clear" href="/dashboard/facts/"' in response.text


@pytest.mark.parametrize("n", [2, 12])
def test_all_agents_lists_queries_do_not_grow(
    staff_client, workspace, other_agent, django_assert_max_num_queries, n
):
    for i in range(n):
        agent = make_agent(workspace, f"bot-{i}")
        state(agent, f"Acme {i}", user=f"u{i}")
        remember(agent, f"memory {i}")
        start_session(agent=agent, user=f"u{i}")
    # session, user, agents of the picker, the page, its agents, five bounded counts, badge,
    # the saved views of the page
    with django_assert_max_num_queries(13):
        assert len(staff_client.get(LIST).context["rows"]) == n
    # session, user, picker, the page, its agents, sessions, tags, badge, saved views
    with django_assert_max_num_queries(10):
        assert len(staff_client.get(MEMORIES).context["rows"]) == n
    with django_assert_max_num_queries(8):
        assert len(staff_client.get(SESSIONS).context["rows"]) == n


def test_everyone_scope_is_not_narrowed_for_staff(agent, other_agent, people):
    # Staff see every agent: no join or subquery, so the id index serves the page.
    sql = str(filter_facts(Access(actor="ops"), FactFilters()).query)
    assert "tenancy_agent" not in sql


def test_few_prefix_matches_are_sorted_and_give_the_same_page(agent, people, monkeypatch):
    # Whichever way the planner is led (few matches: sorted; many: walked newest first),
    # the page and the counts are the same.
    prefix = FactFilters(user="an", prefix=True)
    few = plan_prefix_filters(agent, prefix)
    assert few.few_by_prefix
    monkeypatch.setattr("facts.queries.filters.FEW_BY_PREFIX", 2)
    many = plan_prefix_filters(agent, prefix)
    assert not many.few_by_prefix
    pages = [list_facts(agent=agent, filters=f, limit=2) for f in (few, many)]
    assert [[f.pk for f in p.items] for p in pages] == [[f.pk for f in pages[1].items]] * 2
    assert pages[0].next_cursor == pages[1].next_cursor
    rest = [list_facts(agent=agent, filters=f, cursor=pages[0].next_cursor) for f in (few, many)]
    assert [f.pk for f in rest[0].items] == [f.pk for f in rest[1].items]
    assert status_counts(agent, few) == status_counts(agent, many)
    assert plan_prefix_filters(agent, FactFilters(user="an")) == FactFilters(user="an")
