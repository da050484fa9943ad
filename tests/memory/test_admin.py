"""Memories and sessions in the Django admin: records to look up, by workspace, agent, type
and session, read-only (no add, no Save, no Delete), with flat lists and readable names."""

import pytest

from memory.models import Memory, Session
from memory.services import MemoryInput, store_memories
from memory.services.sessions import start_session
from tests.factories import make_agent

pytestmark = pytest.mark.django_db
MEMORIES = "/admin/memory/memory/"
SESSIONS = "/admin/memory/session/"


def remember(agent, content, **fields) -> Memory:
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=content, **fields)])
    return memory


def test_memories_filter_by_workspace_agent_type_and_session(admin_client, agent, other_agent):
    session = start_session(agent=agent, user="ana")
    remember(agent, "Ana likes tea", session_id=session.pk)
    remember(agent, "How to reset a password", memory_type="procedural")
    remember(other_agent, "Globex ships on Fridays")

    def listed(**query) -> str:
        response = admin_client.get(MEMORIES, query)
        assert response.status_code == 200
        return response.content.decode()

    assert "Globex ships" not in listed(workspace=agent.workspace_id)
    assert "Ana likes tea" not in listed(agent=other_agent.pk)
    by_type = listed(memory_type__exact="procedural")
    assert "reset a password" in by_type
    assert "Ana likes tea" not in by_type
    in_session = listed(session__id__exact=session.pk)
    assert "Ana likes tea" in in_session
    assert "reset a password" not in in_session
    assert "Ana likes tea" not in listed(q="globex")
    # The filters name agents by workspace, since ids repeat across workspaces.
    assert "acme/support-bot" in listed()


def test_sessions_filter_by_agent_and_state_and_lead_to_their_memories(admin_client, agent):
    session = start_session(agent=agent, user="ana")
    page = admin_client.get(SESSIONS, {"agent": agent.pk, "state__exact": "active"})
    body = page.content.decode()
    assert f'href="{MEMORIES}?session__id__exact={session.pk}"' in body
    assert "session" in body
    assert (
        admin_client.get(SESSIONS, {"state__exact": "ended"})
        .content.decode()
        .count(f"?session__id__exact={session.pk}")
        == 0
    )


def test_memory_and_session_pages_are_read_only(admin_client, agent):
    session = start_session(agent=agent, user="ana")
    memory = remember(agent, "Ana likes tea", session_id=session.pk)
    for url in (f"{MEMORIES}{memory.pk}/change/", f"{SESSIONS}{session.pk}/change/"):
        page = admin_client.get(url).content.decode()
        assert 'name="_save"' not in page
        assert 'name="_continue"' not in page
        assert "deletelink" not in page
    assert 'name="content"' not in admin_client.get(f"{MEMORIES}{memory.pk}/change/").text
    assert admin_client.get(f"{MEMORIES}add/").status_code == 403
    posted = admin_client.post(f"{MEMORIES}{memory.pk}/change/", {"content": "changed"})
    assert posted.status_code == 403
    assert Memory.objects.get(pk=memory.pk).content == "Ana likes tea"


@pytest.mark.parametrize("url", [MEMORIES, SESSIONS])
def test_the_lists_stay_flat_as_they_grow(admin_client, agent, django_assert_max_num_queries, url):
    others = [make_agent(agent.workspace) for _ in range(3)]

    def add(count: int) -> None:
        for n in range(count):
            owner = others[n % 3]
            session = start_session(agent=owner, user=f"u{n}")
            remember(owner, f"memory {n}", session_id=session.pk)

    add(3)
    with django_assert_max_num_queries(20) as few:
        admin_client.get(url)
    add(12)
    with django_assert_max_num_queries(len(few.captured_queries)):
        admin_client.get(url)


def test_names_read_as_what_they_are(agent):
    session = start_session(agent=agent, user="ana")
    memory = remember(agent, "x" * 100, session_id=session.pk)
    assert str(agent) == "acme/support-bot"
    assert str(Session.objects.get(pk=session.pk)) == f"session {session.pk} with ana (active)"
    assert str(memory) == f"episodic memory {memory.pk}: {'x' * 59}…"
