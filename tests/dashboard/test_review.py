"""The review queue: disputed facts beside their slot's current value, settled in place."""

import pytest

from facts.models import Fact, Status
from facts.queries import FactFilters, disputed_count, status_counts
from tenancy.access import Access
from tenancy.models import AuditEvent
from tests.factories import refreshed, source, state

pytestmark = pytest.mark.django_db

QUEUE = "/app/review/"  # members use the app; staff the dashboard
STAFF_QUEUE = "/dashboard/review/"
HTMX = {"HX-Request": "true"}


def resolve_url(fact: Fact) -> str:
    return f"/app/review/{fact.pk}/resolve/"


def dispute(agent, value: str, **overrides) -> Fact:
    return state(agent, value, verification="inferred", **overrides).fact


def test_status_counts_cover_every_status_one_bounded_query_each(agent, django_assert_num_queries):
    state(agent, "Acme")
    dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    with django_assert_num_queries(len(Status.values)):
        counts = status_counts(agent, FactFilters(statuses=["history"]))
    assert counts == {"current": 2, "disputed": 1, "history": 0, "rejected": 0, "deleted": 0}
    assert status_counts(agent, FactFilters(predicate="city"))["current"] == 1


def test_disputed_count_is_scoped_by_workspace(
    agent, other_agent, workspace, django_assert_num_queries
):
    state(agent, "Acme")
    dispute(agent, "Globex")
    state(other_agent, "Acme")
    dispute(other_agent, "Initech")
    dispute(other_agent, "Umbrella")
    with django_assert_num_queries(1):
        assert disputed_count(Access(actor="t", workspace=workspace)) == 1
    assert disputed_count(Access(actor="t")) == 3


def test_queue_shows_disputed_facts_oldest_first_beside_the_current_value(manager_client, agent):
    state(agent, "Acme")
    first = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    second = dispute(agent, "Rome", predicate="city", source=source(reference="conv-2"))
    response = manager_client.get(QUEUE)
    items = [item for group in response.context["groups"] for item in group["items"]]
    assert [i["id"] for i in items] == [first.pk, second.pk]
    assert (items[0]["current"]["value"], items[1]["current"]["value"]) == ("Acme", "Paris")
    assert [s["reference"] for s in items[0]["sources"]] == ["conv-1"]
    assert [s["reference"] for s in items[0]["current"]["sources"]] == ["conv-1"]
    assert [s["reference"] for s in items[1]["sources"]] == ["conv-2"]
    page = response.text
    assert page.index("Acme") < page.index("Globex") < page.index("Paris") < page.index("Rome")
    assert page.count("Accept disputed value") == 2
    assert "dewee/review.js" in page
    assert 'href="/app/review/"' in page  # the nav badge's link
    assert 'id="review-badge"' in page


def test_other_pages_do_not_load_the_review_script(manager_client, agent):
    assert "review.js" not in manager_client.get("/app/facts/").text


def test_queue_shows_only_visible_workspaces(manager_client, staff_client, agent, other_agent):
    state(other_agent, "Acme")
    theirs = dispute(other_agent, "Initech")
    assert "Initech" not in manager_client.get(QUEUE).text
    assert "Initech" in staff_client.get(STAFF_QUEUE).text
    assert manager_client.post(resolve_url(theirs), {"action": "accept"}).status_code == 404
    assert refreshed(theirs).status == Status.DISPUTED


@pytest.mark.parametrize("n", [3, 30])
def test_queue_queries_do_not_grow_with_disputes(
    staff_client, agent, django_assert_max_num_queries, n
):
    for i in range(n):
        state(agent, f"c{i}", predicate="city", user=f"u{i}")
        dispute(agent, f"d{i}", predicate="city", user=f"u{i}")
    # session, user, the filter's agents, whether any dispute is snoozed, the count, the
    # disputed facts, their sources, their assignees and snoozes, the current facts, theirs,
    # the badge, then for the re-confirmation section the agents and their stale facts
    with django_assert_max_num_queries(13):
        response = staff_client.get(STAFF_QUEUE)
    assert len(response.context["groups"]) == n


def test_empty_queue_points_to_the_facts_tab(manager_client, agent):
    page = manager_client.get(QUEUE).text
    assert "Nothing to review" in page
    assert 'href="/app/facts/"' in page


def test_accept_without_js_redirects_back_to_the_queue(manager_client, agent):
    current = state(agent, "Acme").fact
    disputed = dispute(agent, "Globex")
    response = manager_client.post(resolve_url(disputed), {"action": "accept"})
    assert (response.status_code, response["Location"]) == (302, f"{QUEUE}?undo={disputed.pk}")
    assert (refreshed(disputed).status, refreshed(current).status) == ("current", "history")
    event = AuditEvent.objects.get(target_id=str(disputed.pk))
    assert (event.actor, event.details["action"]) == ("operator:mia", "accept")
    queue = manager_client.get(QUEUE).text
    assert "Value “Globex” accepted." in queue
    assert "Nothing to review" in queue


def test_reject_with_htmx_replaces_the_slots_group_and_updates_the_badge(manager_client, agent):
    state(agent, "Acme")
    disputed = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    dispute(agent, "Rome", predicate="city")
    response = manager_client.post(resolve_url(disputed), {"action": "reject"}, headers=HTMX)
    assert response.status_code == 200
    assert "<html" not in response.text
    assert '<li class="review-group review-done" id="slot-' in response.text
    assert "Value “Globex” rejected." in response.text
    assert 'id="review-badge" class="badge badge-alert" hx-swap-oob="true"' in response.text
    assert ">1</span>" in response.text
    assert refreshed(disputed).status == Status.REJECTED


def test_settling_an_already_settled_fact_says_why(manager_client, agent):
    fact = state(agent, "Acme").fact
    response = manager_client.post(resolve_url(fact), {"action": "accept"}, headers=HTMX)
    assert "is current, not disputed" in response.text
    response = manager_client.post(resolve_url(fact), {"action": "accept"}, follow=True)
    assert "is current, not disputed" in response.text


def test_viewer_sees_the_queue_without_buttons_and_cannot_post(viewer_client, agent):
    state(agent, "Acme")
    disputed = dispute(agent, "Globex")
    page = viewer_client.get(QUEUE).text
    assert "Globex" in page
    assert "Accept disputed value" not in page
    assert "<kbd>j</kbd>" not in page  # no review keys for a viewer
    assert viewer_client.post(resolve_url(disputed), {"action": "accept"}).status_code == 403
    assert refreshed(disputed).status == Status.DISPUTED


def test_resolve_is_post_only_and_needs_a_known_action(manager_client, agent):
    state(agent, "Acme")
    disputed = dispute(agent, "Globex")
    assert manager_client.get(resolve_url(disputed)).status_code == 405
    assert manager_client.post(resolve_url(disputed), {"action": "maybe"}).status_code == 400


def test_resolve_needs_the_csrf_token(manager, agent):
    from tests.dashboard.conftest import signed_in

    state(agent, "Acme")
    disputed = dispute(agent, "Globex")
    client = signed_in(manager)
    client.handler.enforce_csrf_checks = True
    assert client.post(resolve_url(disputed), {"action": "accept"}).status_code == 403
    assert refreshed(disputed).status == Status.DISPUTED


def test_counts_stop_at_the_cap_and_say_so(agent, monkeypatch, staff_client):
    import facts.queries.counts

    monkeypatch.setattr(facts.queries.counts, "COUNT_CAP", 2)
    for i in range(3):
        state(agent, f"current {i}", predicate=f"q{i}")
    assert status_counts(agent, FactFilters())["current"] == 3  # cap + 1: "more than 2"
    assert facts.queries.count_label(3) == "2+"
    assert facts.queries.count_label(2) == "2"
    page = staff_client.get("/dashboard/facts/").content.decode()
    assert "2+" in page
