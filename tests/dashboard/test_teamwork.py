"""The review shared by a team: a dispute assigned to someone who may settle it, snoozed out
of the queue until a time, and a comment thread on a fact; the detail panel that shows them
with the evidence and the slot's history."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import DisputeTriage, Fact, FactComment
from facts.services import forget_facts, forget_scope
from facts.services.teamwork import snooze_dispute
from tenancy.models import AuditAction, AuditEvent, MemberRole
from tests.dashboard.conftest import member, signed_in
from tests.factories import state

pytestmark = pytest.mark.django_db

QUEUE = "/app/review/"
HTMX = {"HX-Request": "true"}


def dispute(agent, value: str, **overrides) -> Fact:
    """``value`` disputed: below a better-trusted current value (stated first if the slot
    has none)."""
    slot = Fact.objects.current().filter(
        agent=agent, predicate=overrides.get("predicate", "employer")
    )
    if not slot.exists():
        state(agent, "Held first", **overrides)
    fact = state(agent, value, verification="inferred", **overrides).fact
    assert fact.status == "disputed"
    return fact


def queued(response) -> list[int]:
    return [item["id"] for group in response.context["groups"] for item in group["items"]]


# --- assigning --------------------------------------------------------------------------


def test_a_dispute_is_assigned_to_a_manager_and_found_by_assigned_to_me(
    manager, manager_client, agent
):
    state(agent, "Acme")
    state(agent, "Paris", predicate="city")
    globex = dispute(agent, "Globex")
    rome = dispute(agent, "Rome", predicate="city")
    response = manager_client.post(f"/app/review/{globex.pk}/assign/", {"assignee": manager.pk})
    assert response.status_code == 302
    triage = DisputeTriage.objects.get(fact=globex)
    assert triage.assignee == manager
    assert triage.updated_by == "operator:mia"
    event = AuditEvent.objects.get(action=AuditAction.FACT_ASSIGN)
    assert (event.target_id, event.details["assignee"]) == (str(globex.pk), "mia")

    assert queued(manager_client.get(QUEUE, {"assigned": "me"})) == [globex.pk]
    assert queued(manager_client.get(QUEUE, {"assigned": "none"})) == [rome.pk]
    page = manager_client.get(QUEUE).text
    assert "→ mia" in page

    manager_client.post(f"/app/review/{globex.pk}/assign/", {"assignee": ""})
    assert DisputeTriage.objects.get(fact=globex).assignee is None
    assert queued(manager_client.get(QUEUE, {"assigned": "me"})) == []


def test_only_someone_who_may_settle_it_can_be_given_a_dispute(
    django_user_model, manager_client, agent, other_workspace
):
    globex = dispute(agent, "Globex")
    viewer = member(django_user_model, agent.workspace, MemberRole.VIEWER, "vic")
    outsider = member(django_user_model, other_workspace, MemberRole.MANAGER, "oscar")
    for who in (viewer, outsider):
        response = manager_client.post(
            f"/app/review/{globex.pk}/assign/", {"assignee": who.pk}, headers=HTMX
        )
        assert response.status_code == 200
        assert "Choose someone who may settle this dispute." in response.text
    assert not DisputeTriage.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_ASSIGN).exists()


def test_a_settled_fact_cannot_be_assigned_or_snoozed(manager, manager_client, agent):
    acme = state(agent, "Acme").fact
    response = manager_client.post(
        f"/app/review/{acme.pk}/assign/", {"assignee": manager.pk}, headers=HTMX
    )
    assert "only a dispute waits for review" in response.text
    response = manager_client.post(f"/app/review/{acme.pk}/snooze/", {"days": "1"}, headers=HTMX)
    assert "only a dispute waits for review" in response.text
    assert not DisputeTriage.objects.exists()


# --- snoozing ---------------------------------------------------------------------------


@pytest.fixture(params=["by id", "per dispute"])
def snooze_path(request, monkeypatch):
    """Both ways the queue leaves out disputes asleep: by their ids (the few), or by a test
    per dispute (beyond SNOOZED_BY_ID)."""
    if request.param == "per dispute":
        monkeypatch.setattr("facts.triage.SNOOZED_BY_ID", 0)


@pytest.mark.usefixtures("snooze_path")
def test_a_snoozed_dispute_leaves_the_queue_and_the_inbox_count_until_it_wakes(
    manager_client, agent
):
    state(agent, "Acme")
    state(agent, "Paris", predicate="city")
    globex = dispute(agent, "Globex")
    rome = dispute(agent, "Rome", predicate="city")
    before = timezone.now()
    response = manager_client.post(f"/app/review/{globex.pk}/snooze/", {"days": "7"}, headers=HTMX)
    assert response.status_code == 200
    # The panel's answer takes the dispute's line out of the queue on the page.
    assert f'<li id="review-{globex.pk}" hx-swap-oob="delete">' in response.text
    until = DisputeTriage.objects.get(fact=globex).snoozed_until
    assert until is not None
    assert timedelta(days=7) <= until - before < timedelta(days=7, minutes=1)

    assert queued(manager_client.get(QUEUE)) == [rome.pk]
    assert queued(manager_client.get(QUEUE, {"snoozed": "only"})) == [globex.pk]
    assert set(queued(manager_client.get(QUEUE, {"snoozed": "all"}))) == {globex.pk, rome.pk}
    inbox = manager_client.get("/app/inbox/").context["inbox"]
    assert (inbox.disputes_total, inbox.snoozed) == (1, 1)

    # Its time passed: back in the queue, without anyone waking it.
    DisputeTriage.objects.update(snoozed_until=timezone.now() - timedelta(seconds=1))
    assert set(queued(manager_client.get(QUEUE))) == {globex.pk, rome.pk}


def test_wake_now_puts_a_snoozed_dispute_back(manager_client, agent):
    globex = dispute(agent, "Globex")
    manager_client.post(f"/app/review/{globex.pk}/snooze/", {"days": "30"})
    assert queued(manager_client.get(QUEUE)) == []
    manager_client.post(f"/app/review/{globex.pk}/snooze/", {"wake": "on"})
    assert queued(manager_client.get(QUEUE)) == [globex.pk]
    assert DisputeTriage.objects.get(fact=globex).snoozed_until is None
    assert AuditEvent.objects.filter(action=AuditAction.FACT_SNOOZE).count() == 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Choose how long to snooze"),
        ({"days": "2"}, "Select a valid choice"),
        ({"until": "2001-01-01 10:00"}, "must be later than now"),
        ({"until": "2999-01-01 10:00"}, "within 365 days"),
        ({"until": "next tuesday"}, "Enter a date and time"),
        ({"days": "1", "wake": "on"}, "Choose how long to snooze"),
    ],
)
def test_a_snooze_out_of_range_is_refused_and_writes_nothing(manager_client, agent, data, message):
    globex = dispute(agent, "Globex")
    response = manager_client.post(f"/app/review/{globex.pk}/snooze/", data)
    assert response.status_code == 400
    assert message in response.text
    assert not DisputeTriage.objects.exists()
    assert not AuditEvent.objects.filter(action=AuditAction.FACT_SNOOZE).exists()


def test_a_typed_snooze_time_is_read_in_the_viewers_zone(manager_client, agent):
    globex = dispute(agent, "Globex")
    manager_client.cookies["tz"] = "Europe/Paris"
    when = (timezone.now() + timedelta(days=3)).astimezone().strftime("%Y-%m-%d")
    manager_client.post(f"/app/review/{globex.pk}/snooze/", {"until": f"{when} 10:00"})
    until = DisputeTriage.objects.get(fact=globex).snoozed_until
    assert until is not None
    assert until.strftime("%Y-%m-%d %H:%M") in (f"{when} 09:00", f"{when} 08:00")  # CET / CEST


# --- comments ---------------------------------------------------------------------------


def test_a_comment_thread_on_a_fact_in_order_with_its_authors(
    django_user_model, manager, manager_client, agent
):
    acme = state(agent, "Acme").fact
    second = member(django_user_model, agent.workspace, MemberRole.MANAGER, "max")
    manager_client.post(f"/app/facts/{acme.pk}/comment/", {"body": "  Asked the user.  "})
    signed_in(second).post(f"/app/facts/{acme.pk}/comment/", {"body": "They said <b>yes</b>"})
    assert list(FactComment.objects.values_list("author_name", "body")) == [
        ("mia", "Asked the user."),
        ("max", "They said <b>yes</b>"),
    ]
    page = manager_client.get(f"/app/review/{acme.pk}/").text
    assert page.index("Asked the user.") < page.index("They said &lt;b&gt;yes&lt;/b&gt;")
    assert "<b>yes</b>" not in page


@pytest.mark.parametrize("body", ["", "   ", "x" * 5001])
def test_an_empty_or_oversize_comment_is_refused_and_kept_in_the_form(manager_client, agent, body):
    acme = state(agent, "Acme").fact
    response = manager_client.post(f"/app/facts/{acme.pk}/comment/", {"body": body})
    assert response.status_code == 400
    assert not FactComment.objects.exists()
    if body.strip():
        assert body in response.text  # what was typed is not lost


def test_viewers_read_the_panel_but_cannot_comment_assign_or_snooze(viewer_client, manager, agent):
    globex = dispute(agent, "Globex")
    FactComment.objects.create(
        fact=globex,
        agent=agent,
        author=manager,
        author_name="mia",
        body="Checking",
        created_at=timezone.now(),
    )
    page = viewer_client.get(f"/app/review/{globex.pk}/")
    assert page.status_code == 200
    assert "Checking" in page.text
    assert 'id="comment-form"' not in page.text
    assert 'id="assign-form"' not in page.text
    for path, data in [
        ("comment", {"body": "mine"}),
        ("assign", {"assignee": manager.pk}),
        ("snooze", {"days": "1"}),
    ]:
        url = (
            f"/app/facts/{globex.pk}/comment/"
            if path == "comment"
            else (f"/app/review/{globex.pk}/{path}/")
        )
        assert viewer_client.post(url, data).status_code == 403
    assert FactComment.objects.count() == 1
    assert not DisputeTriage.objects.exists()


def test_another_workspaces_fact_is_not_found(manager_client, other_agent, manager):
    theirs = dispute(other_agent, "Globex")
    assert manager_client.get(f"/app/review/{theirs.pk}/").status_code == 404
    for url, data in [
        (f"/app/facts/{theirs.pk}/comment/", {"body": "hi"}),
        (f"/app/review/{theirs.pk}/assign/", {"assignee": manager.pk}),
        (f"/app/review/{theirs.pk}/snooze/", {"days": "1"}),
    ]:
        assert manager_client.post(url, data).status_code == 404
    assert not FactComment.objects.exists()
    assert not DisputeTriage.objects.exists()


def test_reading_the_panel_writes_nothing(manager_client, agent):
    globex = dispute(agent, "Globex")
    before = Fact.objects.get(pk=globex.pk)
    events = AuditEvent.objects.count()
    manager_client.get(f"/app/review/{globex.pk}/", headers=HTMX)
    after = Fact.objects.get(pk=globex.pk)
    assert (after.access_count, after.last_accessed_at) == (
        before.access_count,
        before.last_accessed_at,
    )
    assert AuditEvent.objects.count() == events
    assert not DisputeTriage.objects.exists()


def test_forgetting_the_user_erases_comments_and_triage_with_the_facts(manager, agent):
    globex = dispute(agent, "Globex")
    FactComment.objects.create(
        fact=globex,
        agent=agent,
        author=manager,
        author_name="mia",
        body="about u1",
        created_at=timezone.now(),
    )
    snooze_dispute(fact=globex, until=timezone.now() + timedelta(days=1), actor="operator:mia")
    forget_facts(agent=agent, scope=forget_scope(user="u1"), actor="operator:mia")
    assert not FactComment.objects.exists()
    assert not DisputeTriage.objects.exists()


def test_the_panel_shows_evidence_history_and_who_has_it(manager, manager_client, agent):
    state(agent, "Acme")
    globex = dispute(agent, "Globex")
    manager_client.post(f"/app/review/{globex.pk}/assign/", {"assignee": manager.pk})
    response = manager_client.get(f"/app/review/{globex.pk}/", headers=HTMX)
    assert "<html" not in response.text
    panel = response.text
    assert "Assigned to <strong>mia</strong>" in panel
    history = panel.split("History of the slot")[1]
    assert history.index("Acme") < history.index("Globex")
    assert "Evidence" in panel


def test_a_facts_page_leads_to_its_comment_thread_with_the_count(manager, manager_client, agent):
    acme = state(agent, "Acme").fact
    page = manager_client.get(f"/app/facts/{acme.pk}/").text
    assert f'href="/app/review/{acme.pk}/#comments-title">Start a thread about this fact' in page
    manager_client.post(f"/app/facts/{acme.pk}/comment/", {"body": "Confirmed by phone"})
    manager_client.post(f"/app/facts/{acme.pk}/comment/", {"body": "And by email"})
    page = manager_client.get(f"/app/facts/{acme.pk}/").text
    assert "Read the 2 comments or add one" in page


def test_without_javascript_a_comment_redirects_back_to_the_thread(manager_client, agent):
    acme = state(agent, "Acme").fact
    response = manager_client.post(f"/app/facts/{acme.pk}/comment/", {"body": "Noted"})
    assert (response.status_code, response["Location"]) == (302, f"/app/review/{acme.pk}/")
    assert "Comment added." in manager_client.get(response["Location"]).text
