"""The Sessions list's filters (user, state) and a session's own page: its user, state,
times, summary and turns in order, paged; isolation; reading writes nothing; flat queries."""

import pytest

from memory.models import Memory, Session
from memory.services import MemoryInput, end_session, start_session, store_memories
from tenancy.models import Agent
from tests.dashboard.conftest import app

pytestmark = pytest.mark.django_db

SESSIONS = "/dashboard/memory/sessions/"
HTMX = {"HX-Request": "true"}


def remember(agent: Agent, *contents: str, **fields) -> list[Memory]:
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


def page_url(session: Session) -> str:
    return f"{SESSIONS}{session.pk}/"


def test_sessions_filter_by_user_and_state(staff_client, agent):
    ana_ended = start_session(agent=agent, user="ana")
    end_session(session=ana_ended, summary="done")
    ana_active = start_session(agent=agent, user="ana")
    bob_active = start_session(agent=agent, user="bob")

    def ids(**params) -> list[int]:
        response = staff_client.get(SESSIONS, params)
        assert response.status_code == 200
        return [row["id"] for row in response.context["rows"]]

    assert ids() == [bob_active.pk, ana_active.pk, ana_ended.pk]
    assert ids(user="ana") == [ana_active.pk, ana_ended.pk]
    assert ids(state="active") == [bob_active.pk, ana_active.pk]
    assert ids(user="ana", state="ended") == [ana_ended.pk]
    assert ids(user="AN") == [ana_active.pk, ana_ended.pk]  # the start of an id, any case
    assert ids(user="b") == [bob_active.pk]
    empty = staff_client.get(SESSIONS, {"user": "carol", "agent": "support-bot"}).text
    assert "No session of support-bot matches these filters" in empty
    everyone = staff_client.get(SESSIONS, {"user": "carol"}).text
    assert "No session of all agents of all workspaces matches these filters" in everyone


def test_sessions_filters_are_a_get_form_and_bad_state_is_an_error(staff_client, agent):
    start_session(agent=agent, user="ana")
    page = staff_client.get(SESSIONS).text
    assert 'method="get"' in page
    assert 'name="user"' in page
    assert '<select name="state"' in page
    response = staff_client.get(SESSIONS, {"state": "sleeping"})
    assert "rows" not in response.context
    assert "Fix the highlighted filters" in response.text


def test_sessions_htmx_filter_returns_the_table_only(staff_client, agent):
    start_session(agent=agent, user="ana")
    response = staff_client.get(SESSIONS, {"user": "ana"}, headers=HTMX)
    assert "<html" not in response.text
    assert "sessions-table" in response.text


def test_rows_link_to_the_session_page(staff_client, agent):
    session = start_session(agent=agent, user="ana")
    page = staff_client.get(SESSIONS).text
    assert f'href="/dashboard/memory/sessions/{session.pk}/"' in page
    assert "user=ana" in page


def test_session_page_shows_user_state_summary_and_turns_in_order(staff_client, agent):
    session = start_session(agent=agent, user="ana", idle_timeout_secs=0)
    first, second = remember(agent, "Hello, I'm Ana", "I like green tea", session_id=session.pk)
    remember(agent, "Another conversation")
    end_session(session=session, summary="Ana said hello and likes tea", reason="client")
    response = staff_client.get(page_url(session))
    assert response.status_code == 200
    text = response.text
    assert [m.pk for m in response.context["turns"]] == [first.pk, second.pk]
    assert text.index("Hello, I&#x27;m Ana") < text.index("I like green tea")
    assert "Another conversation" not in text
    assert "Ana said hello and likes tea" in text
    assert "ended" in text
    assert "(client)" in text
    assert "never ends by itself" in text
    assert "support-bot" in text
    assert f'href="/dashboard/memory/{first.pk}/"' in text
    assert "/dashboard/facts/?agent=acme/support-bot&amp;user=ana" in text


def test_session_turns_are_paged_in_order(staff_client, agent, monkeypatch):
    monkeypatch.setattr("memory.views.sessions.TURNS_PAGE_SIZE", 3)
    session = start_session(agent=agent)
    turns = remember(agent, *[f"turn {i}" for i in range(7)], session_id=session.pk)
    first = staff_client.get(page_url(session))
    assert [m.pk for m in first.context["turns"]] == [m.pk for m in turns[:3]]
    cursor = first.context["page"].next_cursor
    second = staff_client.get(page_url(session), {"cursor": cursor}, headers=HTMX)
    assert "<html" not in second.text
    assert [m.pk for m in second.context["turns"]] == [m.pk for m in turns[3:6]]
    third = staff_client.get(page_url(session), {"cursor": second.context["page"].next_cursor})
    assert [m.pk for m in third.context["turns"]] == [turns[6].pk]
    assert third.context["page"].next_cursor is None
    assert staff_client.get(page_url(session), {"cursor": "nonsense"}).status_code == 400


def test_reading_a_session_writes_nothing(staff_client, agent):
    session = start_session(agent=agent, user="ana")
    remember(agent, "Hello", session_id=session.pk)
    before = Session.objects.values_list("last_activity_at", "state").get(pk=session.pk)
    counters = sorted(Memory.objects.values_list("pk", "access_count", "last_accessed_at"))
    staff_client.get(page_url(session))
    assert Session.objects.values_list("last_activity_at", "state").get(pk=session.pk) == before
    assert sorted(Memory.objects.values_list("pk", "access_count", "last_accessed_at")) == counters


def test_another_workspace_session_is_a_404(manager_client, viewer_client, agent, other_agent):
    theirs = start_session(agent=other_agent, user="ana")
    ours = start_session(agent=agent, user="ana")
    for client in (manager_client, viewer_client):
        assert client.get(app(page_url(theirs))).status_code == 404
        assert client.get(app(page_url(ours))).status_code == 200
    assert manager_client.get(app(page_url(Session(pk=10**6)))).status_code == 404
    listed = manager_client.get(app(SESSIONS), {"user": "ana"})
    assert [row["id"] for row in listed.context["rows"]] == [ours.pk]


def test_app_mount_session_page_keeps_its_links(manager_client, agent):
    session = start_session(agent=agent, user="ana")
    remember(agent, "Hello", session_id=session.pk)
    page = manager_client.get(app(page_url(session))).text
    assert "/dashboard/" not in page
    assert 'href="/app/memory/sessions/?agent=support-bot"' in page


@pytest.mark.parametrize("n", [2, 20])
def test_sessions_list_queries_do_not_grow(staff_client, agent, django_assert_max_num_queries, n):
    for i in range(n):
        session = start_session(agent=agent, user=f"u{i % 3}")
        remember(agent, f"m{i}", session_id=session.pk)
    # session, user, agents of the picker, the agent, the page of sessions, the badge
    with django_assert_max_num_queries(7):
        response = staff_client.get(SESSIONS, {"state": "active"})
    assert len(response.context["rows"]) == n


@pytest.mark.parametrize("n", [2, 40])
def test_session_page_queries_do_not_grow(staff_client, agent, django_assert_max_num_queries, n):
    session = start_session(agent=agent, user="ana")
    remember(agent, *[f"turn {i}" for i in range(n)], session_id=session.pk, tags=["t"])
    # session, user, the session with its agent, its memory count, the turns, the badge
    with django_assert_max_num_queries(6):
        response = staff_client.get(page_url(session))
    assert len(response.context["turns"]) == n
