"""Point in time: an as-of list shows each fact with the status it had then (transaction
time); valid_at and /v1/context use valid time."""

import importlib
import json
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from dewee.cli import main
from facts.models import Fact
from facts.queries import FactFilters, fact_to_dict, filter_facts, status_counts
from facts.services import delete_fact, resolve_fact
from tenancy.models import AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db


def then(agent, moment, **filters):
    facts = filter_facts(agent, FactFilters(as_of=moment, **filters)).order_by("id")
    return [(f.value, fact_to_dict(f)["status"]) for f in facts]


def test_a_superseded_fact_was_current_then_and_is_history_now(agent):
    state(agent, "Acme")
    while_acme = timezone.now()
    state(agent, "Globex")
    assert then(agent, while_acme) == [("Acme", "current")]
    assert then(agent, timezone.now()) == [("Acme", "history"), ("Globex", "current")]


def test_a_dispute_shows_while_it_waited_and_not_after_it_was_settled(agent):
    state(agent, "Acme")
    accepted = state(agent, "Globex", verification="inferred").fact
    rejected = state(agent, "Initech", verification="inferred").fact
    while_waiting = timezone.now()
    resolve_fact(fact=rejected, action="reject", actor="x")
    resolve_fact(fact=accepted, action="accept", actor="x")
    assert then(agent, while_waiting) == [
        ("Acme", "current"),
        ("Globex", "disputed"),
        ("Initech", "disputed"),
    ]
    assert then(agent, timezone.now()) == [
        ("Acme", "history"),
        ("Globex", "current"),
        ("Initech", "rejected"),
    ]
    assert refreshed(accepted).disputed_until == refreshed(accepted).believed_from
    assert refreshed(rejected).disputed_until is not None


def test_a_deleted_fact_was_current_until_its_deletion(agent):
    fact = state(agent, "Acme").fact
    before = timezone.now()
    delete_fact(fact=fact, actor="x")
    assert then(agent, before) == [("Acme", "current")]
    assert then(agent, timezone.now()) == [("Acme", "deleted")]


def test_a_fact_recorded_after_the_moment_is_not_listed(agent):
    before = timezone.now()
    state(agent, "Acme")
    assert then(agent, before) == []


def test_the_status_filter_and_the_counts_use_the_status_then(agent):
    state(agent, "Acme")
    state(agent, "Globex", verification="inferred")
    moment = timezone.now()
    state(agent, "Initech", verification="confirmed")  # supersedes Acme; Globex still waits
    filters = FactFilters(as_of=moment, statuses=["current"])
    assert [f.value for f in filter_facts(agent, filters)] == ["Acme"]
    counts = status_counts(agent, filters)
    assert (counts["current"], counts["disputed"], counts["history"]) == (1, 1, 0)
    now_counts = status_counts(agent, FactFilters())
    assert (now_counts["current"], now_counts["history"]) == (1, 1)


def test_valid_at_keeps_only_facts_true_then(agent):
    now = timezone.now()
    state(agent, "Google", valid_to=now - timedelta(days=1000))
    state(agent, "Jakarta", predicate="city")
    state(agent, "Canva", predicate="next_employer", valid_from=now + timedelta(days=30))
    valid_now = filter_facts(agent, FactFilters(valid_at=now))
    assert sorted(f.value for f in valid_now) == ["Jakarta"]
    later = filter_facts(agent, FactFilters(valid_at=now + timedelta(days=31)))
    assert sorted(f.value for f in later) == ["Canva", "Jakarta"]
    long_ago = filter_facts(agent, FactFilters(valid_at=now - timedelta(days=2000)))
    assert sorted(f.value for f in long_ago) == ["Google", "Jakarta"]


def test_api_as_of_gives_the_status_then_and_now(api, agent):
    state(agent, "Acme")
    moment = timezone.now()
    state(agent, "Globex")
    body = api.get("/v1/facts", agent_id="support-bot", as_of=moment.isoformat()).json()
    assert [(f["value"], f["status"], f["status_now"]) for f in body["items"]] == [
        ("Acme", "current", "history")
    ]
    current_then = api.get(
        "/v1/facts", agent_id="support-bot", as_of=moment.isoformat(), status="history"
    ).json()
    assert current_then["items"] == []


def test_api_valid_at_filters_and_rejects_a_bad_time(api, agent):
    state(agent, "Google", valid_to=timezone.now() - timedelta(days=1000))
    state(agent, "Jakarta", predicate="city")
    body = api.get("/v1/facts", agent_id="support-bot", valid_at=timezone.now().isoformat()).json()
    assert [f["value"] for f in body["items"]] == ["Jakarta"]
    bad = api.get("/v1/facts", agent_id="support-bot", valid_at="whenever")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_time"


def test_api_valid_at_lists_no_refused_fact_and_a_replaced_value_only_until_replaced(api, agent):
    state(agent, "Acme")
    while_acme = timezone.now()
    state(agent, "Dropbox", valid_from=timezone.now())  # Acme is history from now on
    resolve_fact(
        fact=state(agent, "Initech", verification="inferred").fact, action="reject", actor="x"
    )
    state(agent, "Globex", verification="inferred")  # waits for review
    delete_fact(fact=state(agent, "Lisbon", predicate="city").fact, actor="x")
    # Google is replaced by a value that holds only from next month: it holds until then.
    state(agent, "Google", user="u2")
    next_month = timezone.now() + timedelta(days=30)
    state(agent, "Canva", user="u2", valid_from=next_month)

    def valid(moment, **params):
        response = api.get(
            "/v1/facts", agent_id="support-bot", valid_at=moment.isoformat(), **params
        )
        assert response.status_code == 200, response.content
        return sorted(f["value"] for f in response.json()["items"])

    assert valid(timezone.now()) == ["Dropbox", "Globex", "Google"]
    assert valid(while_acme) == ["Acme", "Globex", "Google"]
    assert valid(next_month + timedelta(days=1)) == ["Canva", "Dropbox", "Globex"]
    assert valid(timezone.now(), status="history,rejected,deleted") == ["Google"]
    # As believed at a time: each fact judged by the status it had then.
    assert valid(while_acme, as_of=while_acme.isoformat()) == ["Acme"]


def test_api_isolation_with_as_of(other_api, agent):
    state(agent, "Acme")
    response = other_api.get("/v1/facts", agent_id="support-bot", as_of=timezone.now().isoformat())
    assert response.status_code == 404


def test_context_uses_only_facts_valid_now(api, agent):
    state(agent, "Google", valid_to=timezone.now() - timedelta(days=1000))
    state(agent, "Jakarta", predicate="city")
    body = api.post("/v1/context", {"agent_id": "support-bot", "user": "u1", "query": ""}).json()
    assert [f["value"] for f in body["facts"]] == ["Jakarta"]
    assert "Google" not in body["prompt"]


@pytest.mark.django_db(transaction=True)
def test_cli_lists_as_of_and_valid_at(capsys, agent):
    state(agent, "Acme", valid_to=timezone.now() + timedelta(days=1))
    moment = timezone.now()
    state(agent, "Globex", valid_from=timezone.now() + timedelta(days=2))
    args = ["memory", "facts", "list", "--agent", "support-bot", "--json"]
    assert main([*args, "--as-of", moment.isoformat()]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [(f["value"], f["status"]) for f in items] == [("Acme", "current")]
    assert main([*args, "--valid-at", timezone.now().isoformat()]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [f["value"] for f in items] == ["Acme"]
    assert main([*args, "--valid-at", "nope"]) != 0
    assert "valid_at" in capsys.readouterr().err
    # An operator's reads are not the agent's: they count no access.
    assert set(Fact.objects.values_list("access_count", flat=True)) == {0}


def test_migration_backfills_when_disputes_were_settled(agent):
    """The backfill of migration 0005, on facts as they were before it (no disputed_until)."""
    migration = importlib.import_module("facts.migrations.0005_freshness_and_dispute_time")
    state(agent, "Acme")
    accepted = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=accepted, action="accept", actor="x")
    rejected = state(agent, "Initech", verification="inferred", confidence=0.5).fact
    resolve_fact(fact=rejected, action="reject", actor="x")
    unaudited = state(agent, "Umbrella", verification="inferred", confidence=0.5).fact
    resolve_fact(fact=unaudited, action="reject", actor="x")
    rejected_at = refreshed(rejected).disputed_until
    assert rejected_at is not None
    AuditEvent.objects.filter(target_id=str(unaudited.pk)).delete()
    Fact.objects.update(disputed_until=None)

    migration.backfill_disputed_until(apps, None)

    assert refreshed(accepted).disputed_until == refreshed(accepted).believed_from
    backfilled = refreshed(rejected).disputed_until
    assert backfilled is not None
    assert abs(backfilled - rejected_at) < timedelta(seconds=1)
    assert refreshed(unaudited).disputed_until == refreshed(unaudited).recorded_at
    assert Fact.objects.get(value="Acme").disputed_until is None
