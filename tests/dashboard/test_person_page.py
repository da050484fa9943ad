"""The person page: what the agents a viewer sees hold about one user id, at a glance, for
staff (every workspace, grouped), managers (with the export and the erasure) and viewers
(reading only); bounded, flat in queries, and writing nothing."""

import re
from urllib.parse import quote_plus

import pytest
from django.apps import apps
from django.urls import reverse

from facts.models import Fact
from facts.services import delete_fact
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tests.dashboard.conftest import app
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/memory/people/"
USER = "ana/7 ü"  # a '/' and non-ASCII: ids are query parameters, never path segments
OTHER = "bob"


def dispute(agent, value: str, **overrides) -> Fact:
    return state(agent, value, verification="inferred", **overrides).fact


@pytest.fixture
def person(agent, workspace):
    """Ana in acme: two agents' facts, a dispute, memories, a session, an audit event."""
    employer = state(agent, "Acme", user=USER).fact
    state(agent, "Porto", user=USER, predicate="city", category="location")
    state(agent, "Lisbon", user=OTHER, predicate="city")
    disputed = dispute(agent, "Globex", user=USER)
    sales = make_agent(workspace, "sales-bot")
    state(sales, "tea", user=USER, predicate="drink", category="preference")
    old = state(sales, "old value", user=USER, predicate="nickname").fact
    delete_fact(fact=old, actor="operator:ops", reason="typo in nickname")
    session = start_session(agent=agent, user=USER)
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Ana asked about invoices", session_id=session.pk),
            MemoryInput(content="Bob likes trains", user=OTHER),
        ],
    )
    store_memories(agent=sales, items=[MemoryInput(content="Ana wants a quote", user=USER)])
    return {"employer": employer, "disputed": disputed, "session": session, "deleted": old}


def page_of(client, url=PAGE, user=USER, **headers):
    return client.get(url, {"user": user}, headers=headers)


def test_the_url_takes_the_user_as_a_query_parameter():
    assert reverse("knowledge:person") == PAGE
    assert reverse("app-knowledge:person") == app(PAGE)


def test_without_a_user_the_page_asks_for_one(staff_client):
    response = staff_client.get(PAGE)
    assert response.status_code == 200
    assert 'id="person-ask"' in response.text
    assert '<form class="filters" id="person-form" method="get"' in response.text
    assert 'name="user"' in response.text


def test_a_manager_sees_every_section_of_their_workspace(manager_client, person):
    response = page_of(manager_client, app(PAGE))
    assert response.status_code == 200
    overview = response.context["overview"]
    (part,) = overview.workspaces
    assert part.workspace.slug == "acme"
    facts = {g.agent.agent_id: [f["value"] for f in g.facts] for g in part.agent_facts}
    assert facts == {"sales-bot": ["tea"], "support-bot": ["Porto", "Acme"]}
    freshness = {f["value"]: f["freshness_label"] for g in part.agent_facts for f in g.facts}
    assert freshness == {"tea": "fresh", "Acme": "fresh", "Porto": "fresh"}
    assert [(d["value"], d["current_value"]) for d in part.disputes] == [("Globex", "Acme")]
    assert [m["content"] for m in part.memories] == [
        "Ana wants a quote",
        "Ana asked about invoices",
    ]
    assert [(s["id"], s["memory_count"]) for s in part.sessions] == [(person["session"].pk, 1)]
    # The deletion of a fact of theirs is audited; the fact itself is no longer current.
    assert [(e["action"], e["target_id"]) for e in part.events] == [
        ("fact.delete", str(person["deleted"].pk))
    ]
    page = response.text
    assert "Bob likes trains" not in page
    assert "Lisbon" not in page
    assert f'href="/app/facts/{person["employer"].pk}/"' in page
    assert f'href="/app/facts/{person["disputed"].pk}/#review"' in page
    assert "(now Acme)" in page
    assert "typo in nickname" in page
    assert 'class="fresh fresh-fresh"' in page
    # The lists hold the rest, filtered by agent and user (the user id URL-encoded).
    assert 'href="/app/facts/?agent=support-bot&amp;user=ana/7%20%C3%BC"' in page


def test_managers_get_the_export_and_the_erasure_of_their_workspace(manager_client, person):
    page = page_of(manager_client, app(PAGE)).text
    assert 'href="/app/memory/people/export/?agent=sales-bot&amp;user=ana/7%20%C3%BC"' in page
    assert 'href="/app/memory/people/forget/?agent=sales-bot&amp;user=ana/7%20%C3%BC"' in page


def test_viewers_read_everything_but_get_no_actions(viewer_client, person):
    response = page_of(viewer_client, app(PAGE))
    assert response.status_code == 200
    assert "Ana wants a quote" in response.text
    assert "person-export" not in response.text
    assert "person-forget" not in response.text


def test_a_member_of_another_workspace_sees_nothing_of_a_namesake(
    django_user_model, person, other_agent
):
    from tenancy.models import MemberRole
    from tests.dashboard.conftest import member, signed_in

    state(other_agent, "Initech", user=USER)
    globex = signed_in(member(django_user_model, other_agent.workspace, MemberRole.MANAGER, "g"))
    overview = page_of(globex, app(PAGE)).context["overview"]
    assert [p.workspace.slug for p in overview.workspaces] == ["globex"]
    page = page_of(globex, app(PAGE)).text
    assert "Initech" in page
    assert "Acme" not in page
    assert "Ana wants a quote" not in page
    assert "Globex" not in page


def test_an_unknown_user_and_another_workspaces_user_get_the_same_empty_page(
    django_user_model, person, other_workspace
):
    from tenancy.models import MemberRole
    from tests.dashboard.conftest import member, signed_in

    globex = signed_in(member(django_user_model, other_workspace, MemberRole.MANAGER, "g"))
    theirs = page_of(globex, app(PAGE))
    unknown = page_of(globex, app(PAGE), user="nobody-at-all")
    assert theirs.status_code == unknown.status_code == 200
    assert 'id="person-empty"' in theirs.text

    def same(page: str, user: str) -> str:
        # Apart from what differs per response: the CSP nonce and the CSRF token.
        page = re.sub(
            r'nonce="[^"]*"|"X-CSRFToken": "[^"]*"|csrfmiddlewaretoken" value="[^"]*"', "", page
        )
        return page.replace(user, "X").replace(quote_plus(user), "X")

    assert same(theirs.text, USER) == same(unknown.text, "nobody-at-all")


def test_staff_see_every_workspace_grouped_with_actions_per_workspace(
    staff_client, person, other_agent
):
    state(other_agent, "Initech", user=USER)
    response = page_of(staff_client)
    parts = response.context["overview"].workspaces
    assert [p.workspace.slug for p in parts] == ["acme", "globex"]
    assert [f["value"] for g in parts[1].agent_facts for f in g.facts] == ["Initech"]
    page = response.text
    # Agent ids are qualified for staff, so each workspace's actions reach its own agents.
    assert "/dashboard/memory/people/export/?agent=acme/sales-bot&amp;" in page
    assert "/dashboard/memory/people/export/?agent=globex/globex-bot&amp;" in page
    assert 'id="person-workspace-acme"' in page
    assert 'id="person-workspace-globex"' in page


def test_htmx_gets_the_person_partial_only(staff_client, person):
    response = page_of(staff_client, **{"HX-Request": "true"})
    assert response.status_code == 200
    assert "<h1>Person “ana/7 ü”</h1>" in response.text
    assert "<html" not in response.text
    assert 'id="person-form"' not in response.text
    assert "HX-Request" in response["Vary"]


def test_a_user_id_too_long_is_a_bad_request(staff_client):
    assert staff_client.get(PAGE, {"user": "x" * 10_000}).status_code == 400


def test_signed_out_people_are_sent_to_sign_in(client):
    response = client.get(PAGE, {"user": USER})
    assert response.status_code == 302
    assert "login" in response["Location"]


def grow(agent, n: int) -> None:
    """``n`` more facts, disputes, memories (in sessions) and audit events for the person."""
    for i in range(n):
        fact = state(agent, f"v{i}", user=USER, predicate=f"p{i}").fact
        dispute(agent, f"d{i}", user=USER, predicate=f"p{i}")
        if i % 2:
            delete_fact(fact=fact, actor="operator:ops", reason="")
        session = start_session(agent=agent, user=USER)
        store_memories(
            agent=agent,
            items=[MemoryInput(content=f"m{i} {j}", session_id=session.pk) for j in range(2)],
        )


@pytest.mark.parametrize("n", [2, 30])
def test_queries_stay_flat_however_much_the_person_holds(
    staff_client, person, agent, django_assert_max_num_queries, n
):
    grow(agent, n)
    # session, user, the badge; facts, disputes (current value by subquery), memories,
    # sessions, their turn counts, audit events (of facts; of memories and sessions), the
    # agents of what was found; the saved views of the page
    with django_assert_max_num_queries(12):
        response = page_of(staff_client)
    part = response.context["overview"].workspaces[0]
    assert len(part.memories) == min(2 + 2 * n, 10)
    assert len(part.sessions) == min(1 + n, 10)
    assert len(part.disputes) == min(n + 1, 25)


@pytest.mark.parametrize("n", [2, 30])
def test_a_members_queries_stay_flat_too(
    manager_client, person, agent, django_assert_max_num_queries, n
):
    grow(agent, n)
    # the membership besides
    with django_assert_max_num_queries(13):
        assert page_of(manager_client, app(PAGE)).status_code == 200


def test_bounded_parts_say_so(staff_client, person, agent):
    grow(agent, 12)
    response = page_of(staff_client)
    overview = response.context["overview"]
    assert overview.more_memories
    assert overview.more_sessions
    assert 'id="person-bounded"' in response.text


def snapshot() -> dict[str, list[tuple]]:
    """Every row of every table of the project's apps."""
    rows = {}
    for label in ("facts", "memory", "tenancy", "privacy"):
        for model in apps.get_app_config(label).get_models():
            rows[model._meta.label] = sorted(
                tuple(str(v) for v in row)
                for row in model._default_manager.values_list(
                    *[f.attname for f in model._meta.concrete_fields]
                )
            )
    return rows


def test_reading_the_page_writes_nothing(staff_client, viewer_client, person):
    before = snapshot()
    page_of(staff_client)
    page_of(viewer_client, app(PAGE))
    page_of(staff_client, user="nobody")
    staff_client.get(PAGE)
    assert snapshot() == before
    assert Fact.objects.filter(access_count__gt=0).count() == 0
    assert Memory.objects.filter(access_count__gt=0).count() == 0
    assert Session.objects.count() == 1


def test_every_place_that_shows_the_user_links_to_their_page(
    manager_client, staff_client, person, agent
):
    link = 'href="/app/memory/people/?user=ana/7%20%C3%BC"'
    memory = Memory.objects.get(content="Ana asked about invoices")
    pages = {
        "fact": f"/app/facts/{person['employer'].pk}/",
        "facts": f"/app/facts/?agent={agent.agent_id}",
        "memory": f"/app/memory/{memory.pk}/",
        "memories": f"/app/memory/?agent={agent.agent_id}",
        "sessions": f"/app/memory/sessions/?agent={agent.agent_id}",
        "review": "/app/review/",
    }
    missing = [name for name, url in pages.items() if link not in manager_client.get(url).text]
    assert missing == []
    # Staff follow it in their own mount.
    staff_page = staff_client.get(f"/dashboard/facts/{person['employer'].pk}/").text
    assert link.replace("/app/", "/dashboard/") in staff_page


def test_the_memories_list_filters_by_user_as_the_person_page_links_it(
    manager_client, person, agent
):
    rows = manager_client.get(app("/dashboard/memory/"), {"agent": agent.agent_id, "user": USER})
    assert [r["content"] for r in rows.context["rows"]] == ["Ana asked about invoices"]
    searched = manager_client.get(
        app("/dashboard/memory/"), {"agent": agent.agent_id, "user": OTHER, "q": "likes trains"}
    )
    assert [r["content"] for r in searched.context["rows"]] == ["Bob likes trains"]
