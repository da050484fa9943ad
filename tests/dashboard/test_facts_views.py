"""The dashboard's Facts pages: scoping by role, htmx fragments, filters, pagination and
actions that go through the services."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact, Status
from tenancy.models import AuditEvent, ErasureReceipt
from tenancy.receipts import user_digest
from tests.dashboard.conftest import app
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db

LIST = "/dashboard/facts/"
HTMX = {"HX-Request": "true"}


def detail_url(fact: Fact) -> str:
    return f"/dashboard/facts/{fact.pk}/"


def app_detail_url(item) -> str:
    return app(detail_url(item))


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get(LIST)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_sign_in_page_sends_to_the_root_which_picks_the_mount(client, staff):
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "ops", "password": "pw"})
    assert response["Location"] == "/"
    assert client.get("/")["Location"] == "/dashboard/"


def test_staff_sees_facts_of_every_workspace(staff_client, agent, other_agent):
    state(agent, "Acme")
    secret = state(other_agent, "Globex").fact
    assert "Acme" in staff_client.get(LIST, {"agent": "support-bot"}).text
    assert "Globex" in staff_client.get(LIST, {"agent": "globex-bot"}).text
    assert staff_client.get(detail_url(secret)).status_code == 200


def test_manager_gets_404_for_another_workspace(manager_client, agent, other_agent):
    theirs = state(other_agent, "Globex").fact
    assert manager_client.get(app_detail_url(theirs)).status_code == 404
    assert manager_client.get(app(LIST), {"agent": "globex-bot"}).status_code == 404
    page = manager_client.get(app(LIST)).text
    assert "support-bot" in page
    assert "globex-bot" not in page
    response = manager_client.post(f"{app_detail_url(theirs)}delete/", {"reason": "mine now"})
    assert response.status_code == 404
    assert refreshed(theirs).status == Status.CURRENT


def test_full_page_without_htmx_and_only_the_table_with_it(staff_client, agent):
    state(agent, "Acme")
    page = staff_client.get(LIST)
    assert "<html" in page.text
    assert 'id="facts-table"' in page.text
    assert "Acme" in page.text
    assert "HX-Request" in page["Vary"]
    fragment = staff_client.get(LIST, headers=HTMX)
    assert "<html" not in fragment.text
    assert "<form" not in fragment.text
    assert "Acme" in fragment.text


def test_status_counts_and_filter(staff_client, agent):
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    state(agent, "Paris", predicate="city")
    response = staff_client.get(LIST, {"status": "disputed"})
    assert "Globex" in response.text
    assert "Acme" not in response.text
    tabs = {v: n for v, _label, n in response.context["status_tabs"]}
    assert (tabs["current"], tabs["disputed"], response.context["total"]) == (2, 1, 3)
    assert response.context["review_count"] == 1


def test_value_search_and_slot_filters(staff_client, agent):
    state(agent, "Acme")
    state(agent, "Paris", predicate="city", user="u2")
    assert [r["value"] for r in staff_client.get(LIST, {"q": "par"}).context["rows"]] == ["Paris"]
    by_user = staff_client.get(LIST, {"user": "u1"}).context["rows"]
    assert [r["value"] for r in by_user] == ["Acme"]


def test_as_of_shows_what_was_believed_then(staff_client, agent):
    state(agent, "Acme")
    Fact.objects.update(believed_from=timezone.now() - timedelta(days=10))
    state(agent, "Globex")
    Fact.objects.filter(status=Status.HISTORY).update(
        believed_until=timezone.now() - timedelta(days=5)
    )
    Fact.objects.filter(value="Globex").update(believed_from=timezone.now() - timedelta(days=5))
    before = (timezone.now() - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    after = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    then = staff_client.get(LIST, {"as_of": before}).context["rows"]
    assert [(r["value"], r["status"]) for r in then] == [("Acme", "current")]
    later = staff_client.get(LIST, {"as_of": after}).context["rows"]
    assert [(r["value"], r["status"]) for r in later] == [
        ("Globex", "current"),
        ("Acme", "history"),
    ]


def test_bad_filter_shows_the_error(staff_client, agent):
    response = staff_client.get(LIST, {"as_of": "soon", "cursor": "nonsense"})
    assert response.status_code == 200
    assert response.context["form"].errors.keys() == {"as_of", "cursor"}
    assert "Fix the highlighted filters" in response.text


def test_next_page_keeps_the_filters(staff_client, agent):
    for i in range(30):
        state(agent, f"city-{i}", predicate="city", user=f"u{i}")
    state(agent, "Acme")
    first = staff_client.get(LIST, {"predicate": "city"})
    assert len(first.context["rows"]) == 25
    cursor = first.context["page"].next_cursor
    assert f"predicate=city&amp;cursor={cursor}" in first.text
    rest = staff_client.get(LIST, {"predicate": "city", "cursor": cursor}, headers=HTMX)
    assert [r["value"] for r in rest.context["rows"]] == [f"city-{i}" for i in range(4, -1, -1)]
    assert rest.context["page"].next_cursor is None


@pytest.mark.parametrize("n", [5, 50])
def test_list_queries_do_not_grow_with_facts(staff_client, agent, django_assert_num_queries, n):
    for i in range(n):
        state(agent, f"v{i}", predicate="city", user=f"u{i}", verification="inferred")
    # session, user, agents for the form, the agent, the page, status counts, the count in
    # force now, review badge, the saved views of the page
    with django_assert_num_queries(13):
        assert staff_client.get(LIST).status_code == 200


def test_empty_states_say_what_to_do(staff_client, manager_client, agent):
    assert "No facts match" in manager_client.get(app(LIST)).text
    Fact.objects.all().delete()
    agent.delete()
    assert "No agents yet" in staff_client.get(LIST).text


def test_detail_shows_sources_history_and_events(staff_client, agent):
    state(agent, "Acme")
    newer = state(agent, "Globex").fact
    page = staff_client.get(detail_url(newer)).text
    assert "said so" in page  # the source excerpt
    assert "conv-1" in page
    assert page.index("Acme") < page.index("Globex", page.index("History of the slot"))


def test_viewer_sees_no_actions_and_forged_posts_change_nothing(viewer_client, agent):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    page = viewer_client.get(app_detail_url(disputed)).text
    assert "Accept disputed value" not in page
    assert "Delete fact" not in page
    assert "Forget" not in page
    url = app_detail_url(disputed)
    assert viewer_client.post(f"{url}resolve/", {"action": "accept"}).status_code == 403
    assert viewer_client.post(f"{url}delete/", {"reason": "x"}).status_code == 403
    forget = {"agent": "support-bot", "user": "u1", "confirmation": "u1"}
    assert viewer_client.post("/app/facts/forget/", forget).status_code == 403
    assert refreshed(disputed).status == Status.DISPUTED
    assert Fact.objects.count() == 2


def test_accept_shows_both_values_then_makes_the_disputed_one_current(manager_client, agent):
    current = state(agent, "Acme").fact
    disputed = state(agent, "Globex", verification="inferred").fact
    page = manager_client.get(app_detail_url(disputed))
    assert page.context["current"]["value"] == "Acme"
    assert "Accept disputed value" in page.text
    response = manager_client.post(f"{app_detail_url(disputed)}resolve/", {"action": "accept"})
    assert response.status_code == 302
    assert (refreshed(disputed).status, refreshed(current).status) == ("current", "history")
    event = AuditEvent.objects.get(target_id=str(disputed.pk))
    assert (event.actor, event.details["action"]) == ("operator:mia", "accept")


def test_reject_with_htmx_returns_the_detail_fragment(manager_client, agent):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    response = manager_client.post(
        f"{app_detail_url(disputed)}resolve/", {"action": "reject", "reason": "no"}, headers=HTMX
    )
    assert response.status_code == 200
    assert "<html" not in response.text
    assert 'id="fact-detail"' in response.text
    assert "Value rejected." in response.text
    assert refreshed(disputed).status == Status.REJECTED


def test_resolving_a_fact_that_is_not_disputed_says_why(manager_client, agent):
    fact = state(agent, "Acme").fact
    url = f"{app_detail_url(fact)}resolve/"
    response = manager_client.post(url, {"action": "accept"}, follow=True)
    assert "is current, not disputed" in response.text
    assert refreshed(fact).status == Status.CURRENT


def test_delete_requires_a_reason(manager_client, agent):
    fact = state(agent, "Acme").fact
    for headers in ({}, HTMX):
        response = manager_client.post(
            f"{app_detail_url(fact)}delete/", {"reason": ""}, headers=headers
        )
        assert response.status_code == 200
        assert "This field is required." in response.text
    assert refreshed(fact).status == Status.CURRENT
    response = manager_client.post(f"{app_detail_url(fact)}delete/", {"reason": "user asked"})
    assert response.status_code == 302
    fact = refreshed(fact)
    assert (fact.status, fact.status_reason, fact.status_changed_by) == (
        "deleted",
        "user asked",
        "operator:mia",
    )


def test_actions_are_post_only(manager_client, agent):
    fact = state(agent, "Acme").fact
    assert manager_client.get(f"{app_detail_url(fact)}delete/").status_code == 405
    assert manager_client.get(f"{app_detail_url(fact)}resolve/").status_code == 405


def test_forget_previews_counts_and_needs_the_typed_confirmation(manager_client, agent):
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    kept = state(agent, "Paris", predicate="city", user="u2").fact
    url = "/app/facts/forget/"
    preview = manager_client.get(url, {"agent": "support-bot", "user": "u1"})
    assert preview.context["counts"]["facts"] == 2
    assert "Type <code>u1</code> to confirm" in preview.text

    wrong = manager_client.post(url, {"agent": "support-bot", "user": "u1", "confirmation": "u"})
    assert "Type &#x27;u1&#x27; exactly to erase." in wrong.text
    assert Fact.objects.count() == 3
    assert not ErasureReceipt.objects.exists()

    done = manager_client.post(
        url, {"agent": "support-bot", "user": "u1", "confirmation": "u1"}, headers=HTMX
    )
    receipt = ErasureReceipt.objects.get()
    assert (receipt.scope, receipt.counts["facts"]) == ({"user_hmac": user_digest("u1")}, 2)
    assert done["HX-Redirect"] == f"/app/receipts/{receipt.id}/"
    assert list(Fact.objects.all()) == [kept]


def test_forget_by_subject_and_bad_scopes(manager_client, agent, other_agent):
    state(agent, "Acme", subject="acme-corp", user="")
    url = "/app/facts/forget/"
    assert manager_client.get(url, {"agent": "support-bot"}).status_code == 400
    both = {"agent": "support-bot", "user": "u1", "subject": "acme-corp"}
    assert manager_client.get(url, both).context["counts"]["facts"] == 0  # not u1's
    assert manager_client.get(url, {"agent": "globex-bot", "user": "u1"}).status_code == 404
    manager_client.post(
        url, {"agent": "support-bot", "subject": "acme-corp", "confirmation": "acme-corp"}
    )
    assert not Fact.objects.filter(agent=agent).exists()


def forget_links(page: str) -> list[str]:
    return re.findall(r'href="/app/facts/forget/\?([^"]*)"', page)


def test_the_subject_user_is_offered_for_the_facts_own_user_only(manager_client, agent):
    """ "user" stands for each fact's own user: forgetting it across users would erase
    every user's facts about themselves, behind typing the word "user"."""
    fact = state(agent, "Acme").fact
    state(agent, "Paris", predicate="city")
    state(agent, "Tea", subject="drinks", predicate="likes")  # u1's, another subject
    for other in ("u2", "u3"):
        state(agent, "Hooli", user=other)
    for headers in ({}, HTMX):
        page = manager_client.get(app_detail_url(fact), headers=headers).text
        assert forget_links(page) == [
            "agent=support-bot&amp;user=u1",
            "agent=support-bot&amp;user=u1&amp;subject=user",
        ]
        assert "Forget user “u1” (3 facts)…" in page
        assert "3 facts about user “u1”, whatever their subject." in page
        assert "Forget subject “user” of user “u1” only (2 facts)…" in page
        assert "2 facts with subject “user” about user “u1” only." in page

    url = "/app/facts/forget/"
    scope = {"agent": "support-bot", "user": "u1", "subject": "user"}
    preview = manager_client.get(url, scope)
    assert preview.context["counts"]["facts"] == 2
    assert "<h1>Forget subject “user” of user “u1” only</h1>" in preview.text
    assert "erases for good 2 facts with subject “user” about user “u1” only" in preview.text
    assert "Type <code>u1</code> to confirm" in preview.text
    manager_client.post(url, {**scope, "confirmation": "u1"})
    receipt = ErasureReceipt.objects.get()
    assert (receipt.scope, receipt.counts["facts"]) == (
        {"user_hmac": user_digest("u1"), "subject": "user"},
        2,
    )
    assert sorted(Fact.objects.values_list("user_ref", "value")) == [
        ("u1", "Tea"),
        ("u2", "Hooli"),
        ("u3", "Hooli"),
    ]
    shown = manager_client.get(f"/app/receipts/{receipt.id}/").text
    # The receipt names the user only by the keyed hash it holds.
    assert "subject <strong>user</strong> of one user is gone" in shown
    assert user_digest("u1") in shown


def test_a_fact_of_subject_user_without_a_user_offers_no_subject_forget(manager_client, agent):
    fact = state(agent, "Acme", user="").fact
    state(agent, "Hooli", user="u2")
    page = manager_client.get(app_detail_url(fact)).text
    assert forget_links(page) == []
    assert "its subject is not offered here" in page


def test_forgetting_a_named_subject_names_its_count_and_its_users(manager_client, agent):
    fact = state(agent, "Blue", subject="acme-corp", predicate="colour").fact
    state(agent, "Red", subject="acme-corp", predicate="colour", user="u2")
    state(agent, "Big", subject="acme-corp", predicate="size", user="")
    page = manager_client.get(app_detail_url(fact)).text
    assert forget_links(page)[1] == "agent=support-bot&amp;subject=acme-corp"
    covers = "3 facts with subject “acme-corp”, across 2 users: u1, u2 and 1 fact about no "
    assert "Forget subject “acme-corp” (3 facts)…" in page
    assert covers + "particular user." in page
    preview = manager_client.get(
        "/app/facts/forget/", {"agent": "support-bot", "subject": "acme-corp"}
    )
    assert f"erases for good {covers}particular user" in preview.text
    assert "Type <code>acme-corp</code> to confirm" in preview.text


def test_a_hand_made_forget_of_subject_user_across_users_says_whom_it_covers(manager_client, agent):
    state(agent, "Acme")
    state(agent, "Hooli", user="u2")
    preview = manager_client.get("/app/facts/forget/", {"agent": "support-bot", "subject": "user"})
    assert "2 facts with subject “user”, across 2 users: u1, u2" in preview.text
    assert "this erases every user's facts about themselves" in preview.text
