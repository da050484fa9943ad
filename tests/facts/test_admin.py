"""Facts in the Django admin: filters, search, read-only history, and actions that go
through the same services as every other interface."""

import pytest

from facts.models import Fact, Status
from tenancy.models import AuditAction, AuditEvent
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/facts/fact/"


def test_changelist_filters_by_status_and_searches_values(admin_client, agent):
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    page = admin_client.get(CHANGELIST, {"status__exact": "disputed"})
    assert page.status_code == 200
    assert "Globex" in page.content.decode()
    assert "Acme" not in page.content.decode()
    found = admin_client.get(CHANGELIST, {"q": "acme"}).content.decode()
    assert "Acme" in found
    assert "Globex" not in found


def test_change_page_shows_sources_and_history_read_only(admin_client, agent):
    state(agent, "Acme")
    fact = state(agent, "Globex").fact
    page = admin_client.get(f"{CHANGELIST}{fact.pk}/change/").content.decode()
    assert "said so" in page  # the source excerpt
    assert "Acme" in page
    assert "history" in page
    assert 'name="value"' not in page  # nothing editable by hand


def test_accept_action_resolves_through_the_service(admin_client, agent, admin_user):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    admin_client.post(CHANGELIST, {"action": "accept_facts", "_selected_action": [disputed.pk]})
    assert Fact.objects.get(pk=disputed.pk).status == Status.CURRENT
    event = AuditEvent.objects.get(action=AuditAction.FACT_RESOLVE)
    assert event.actor == f"operator:{admin_user.username}"


def test_reject_action_on_a_current_fact_reports_the_error(admin_client, agent):
    fact = state(agent, "Acme").fact
    response = admin_client.post(
        CHANGELIST, {"action": "reject_facts", "_selected_action": [fact.pk]}, follow=True
    )
    assert "not disputed" in response.content.decode()
    assert Fact.objects.get(pk=fact.pk).status == Status.CURRENT


def test_delete_action_asks_for_a_reason_then_soft_deletes(admin_client, agent):
    fact = state(agent, "Acme").fact
    ask = admin_client.post(CHANGELIST, {"action": "delete_facts", "_selected_action": [fact.pk]})
    assert ask.status_code == 200
    assert "reason" in ask.content.decode()
    assert Fact.objects.get(pk=fact.pk).status == Status.CURRENT
    admin_client.post(
        CHANGELIST,
        {
            "action": "delete_facts",
            "_selected_action": [fact.pk],
            "confirm": "1",
            "reason": "duplicate entry",
        },
    )
    fact = Fact.objects.get(pk=fact.pk)
    assert (fact.status, fact.status_reason) == (Status.DELETED, "duplicate entry")


def test_admin_cannot_hard_delete_or_add_facts(admin_client, agent):
    fact = state(agent, "Acme").fact
    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert admin_client.get(f"{CHANGELIST}{fact.pk}/delete/").status_code == 403
    page = admin_client.get(CHANGELIST).content.decode()
    assert "delete_selected" not in page


def test_changelist_filters_by_workspace_and_agent(admin_client, agent, other_agent):
    state(agent, "Acme")
    state(other_agent, "Globex")
    by_workspace = admin_client.get(CHANGELIST, {"workspace": other_agent.workspace_id}).text
    assert "Globex" in by_workspace
    assert "= Acme" not in by_workspace
    by_agent = admin_client.get(CHANGELIST, {"agent": agent.pk}).text
    assert "Acme" in by_agent
    assert "Globex" not in by_agent
    assert "globex/globex-bot" in by_agent  # each agent named with its workspace


def test_a_facts_page_has_no_save_buttons_and_refuses_a_post(admin_client, agent):
    fact = state(agent, "Acme").fact
    url = f"{CHANGELIST}{fact.pk}/change/"
    page = admin_client.get(url).text
    assert 'name="_save"' not in page
    assert 'name="_continue"' not in page
    assert admin_client.post(url, {"value": "Globex"}).status_code == 403
    assert Fact.objects.get(pk=fact.pk).value == "Acme"


def test_the_changelist_stays_flat_as_it_grows(admin_client, agent, django_assert_max_num_queries):
    others = [make_agent(agent.workspace) for _ in range(3)]
    for n, owner in enumerate(others):
        state(owner, f"Value {n}", user=f"u{n}")
    with django_assert_max_num_queries(20) as few:
        admin_client.get(CHANGELIST)
    for n in range(12):
        state(others[n % 3], f"More {n}", user=f"v{n}")
    with django_assert_max_num_queries(len(few.captured_queries)):
        admin_client.get(CHANGELIST)


def test_a_fact_reads_as_what_it_says(agent):
    assert str(state(agent, "Acme", user="ana").fact) == "employer of ana = Acme (current)"
    about_a_thing = state(agent, "Lisbon", subject="acme", predicate="hq", qualifier="main")
    assert str(about_a_thing.fact) == "hq[main] of acme = Lisbon (current)"
