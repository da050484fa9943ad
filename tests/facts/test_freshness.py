"""Freshness: the full score, days until stale, access counting, per-agent half-lives,
re-confirming and ending facts, and the pass that ends expired facts."""

import math
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dewee.errors import InvalidInput
from facts.exceptions import FactNotCurrent
from facts.models import Fact, Status, Verification
from facts.queries import fact_detail
from facts.rules import days_until_stale, freshness
from facts.services import end_expired_facts_pass, end_fact, reconfirm_fact
from memory.exceptions import InvalidMemoryPolicy
from memory.models import MaintenanceRun
from memory.services.maintenance import run_maintenance
from memory.services.policy import clean_policy, get_memory_policy, set_memory_policy
from tenancy.models import AuditAction, AuditEvent
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def aged(fact: Fact, days: float) -> Fact:
    Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=timezone.now() - timedelta(days=days))
    return refreshed(fact)


def test_the_score_adds_use_to_age_and_is_capped():
    decay = 0.5 ** (1 / 180)
    score = freshness(
        "employment",
        NOW - timedelta(days=90),
        NOW,
        access_count=4,
        last_accessed_at=NOW - timedelta(days=10),
    )
    assert score == pytest.approx(decay**90 + math.log(5) * 0.05 + 0.1 * decay**10)
    assert freshness("employment", NOW, NOW, access_count=100, last_accessed_at=NOW) == 1.0
    assert freshness("employment", NOW - timedelta(days=180), NOW) == pytest.approx(0.5)


def test_days_until_stale_is_when_the_score_crosses_aging():
    assert days_until_stale("employment", NOW, NOW) == pytest.approx(180, abs=0.1)
    assert days_until_stale("employment", NOW - timedelta(days=200), NOW) == 0
    left = days_until_stale("employment", NOW, NOW, access_count=9, last_accessed_at=NOW)
    assert left is not None
    assert left > 180
    after = NOW + timedelta(days=left)
    score = freshness("employment", NOW, after, access_count=9, last_accessed_at=NOW)
    assert score == pytest.approx(0.5, abs=1e-3)
    assert days_until_stale("employment", NOW, NOW, access_count=30_000) is None


def test_the_fact_shape_carries_score_label_and_days_left(agent):
    fact = aged(state(agent, "Acme").fact, 90)
    detail = fact_detail(fact)
    assert detail["freshness"] == pytest.approx(0.5**0.5, abs=1e-3)
    assert detail["freshness_label"] == "aging"
    assert detail["days_until_stale"] == pytest.approx(90, abs=0.2)


def test_api_reads_count_an_access_once_a_minute(api, agent):
    fact = state(agent, "Acme").fact
    api.get("/v1/facts", agent_id="support-bot")
    first = refreshed(fact)
    assert (first.access_count, first.last_accessed_at is not None) == (1, True)
    api.get(f"/v1/facts/{fact.pk}")
    assert refreshed(fact).access_count == 1  # within the minute
    Fact.objects.update(last_accessed_at=timezone.now() - timedelta(minutes=2))
    body = api.get(f"/v1/facts/{fact.pk}").json()
    assert body["access_count"] == 1  # what it was when read
    assert refreshed(fact).access_count == 2


def test_api_list_writes_one_update_for_the_page(api, agent):
    for i in range(5):
        state(agent, f"v{i}", predicate=f"p{i}")
    api.get("/v1/facts", agent_id="support-bot")  # authentication caches warm up
    Fact.objects.update(last_accessed_at=None)
    with CaptureQueriesContext(connection) as queries:
        api.get("/v1/facts", agent_id="support-bot")
    # One UPDATE statement for the page (on PostgreSQL after locking its rows in id order).
    updates = [
        q
        for q in queries.captured_queries
        if q["sql"].startswith("UPDATE") and "facts_fact" in q["sql"]
    ]
    assert len(updates) == 1
    assert set(Fact.objects.values_list("access_count", flat=True)) == {2}


def test_context_counts_an_access_and_shows_freshness(api, agent):
    fact = aged(state(agent, "Acme").fact, 300)
    body = api.post("/v1/context", {"agent_id": "support-bot", "user": "u1", "query": ""}).json()
    served = body["facts"][0]
    assert (served["freshness_label"], served["freshness"] < 0.5) == ("stale", True)
    assert "stale 0.3" in body["prompt"]
    assert refreshed(fact).access_count == 1


def test_policy_half_lives_are_validated(agent):
    assert clean_policy({"fact_half_life_days": {"employment": 30}}) == {
        "fact_half_life_days": {"employment": 30}
    }
    for bad, field in [
        ({"fact_half_life_days": {"jobs": 30}}, "fact_half_life_days.jobs"),
        ({"fact_half_life_days": {"employment": 0}}, "fact_half_life_days.employment"),
        ({"fact_half_life_days": {"employment": 1.5}}, "fact_half_life_days.employment"),
        ({"fact_half_life_days": [30]}, "fact_half_life_days"),
        ({"end_expired_facts": "yes"}, "end_expired_facts"),
    ]:
        with pytest.raises(InvalidMemoryPolicy) as error:
            set_memory_policy(agent=agent, policy=bad, actor="x")
        assert error.value.field == field
    assert refreshed_agent(agent).memory_policy == {}


def refreshed_agent(agent):
    agent.refresh_from_db()
    return agent


def test_an_agents_half_life_changes_its_facts_freshness_and_is_audited(agent):
    fact = aged(state(agent, "Acme").fact, 60)
    assert fact_detail(fact)["freshness_label"] == "aging"
    set_memory_policy(agent=agent, policy={"fact_half_life_days": {"employment": 30}}, actor="ann")
    fact = refreshed(fact)
    assert fact_detail(fact)["freshness_label"] == "expired"
    event = AuditEvent.objects.get(action="policy.change")
    assert (event.actor, event.details["after"]) == (
        "ann",
        {"fact_half_life_days": {"employment": 30}},
    )
    effective = get_memory_policy(refreshed_agent(agent))
    assert effective.as_dict()["fact_half_life_days"]["employment"] == 30
    assert effective.as_dict()["fact_half_life_days"]["location"] == 365
    assert effective.as_dict()["end_expired_facts"] is False


def test_policy_api_accepts_the_fact_settings(api, agent):
    response = api.client.put(
        "/v1/agents/support-bot/memory_policy",
        data='{"fact_half_life_days": {"skill": 10}, "end_expired_facts": true}',
        content_type="application/json",
        headers=api.headers,
    )
    assert response.status_code == 200, response.content
    assert refreshed_agent(agent).memory_policy == {
        "fact_half_life_days": {"skill": 10},
        "end_expired_facts": True,
    }
    bad = api.client.put(
        "/v1/agents/support-bot/memory_policy",
        data='{"fact_half_life_days": {"skill": -1}}',
        content_type="application/json",
        headers=api.headers,
    )
    assert bad.status_code == 400


def test_reconfirm_resets_freshness_and_confirms(agent):
    fact = aged(state(agent, "Acme").fact, 400)
    reconfirm_fact(fact=fact, actor="ann", reason="asked them")
    fact = refreshed(fact)
    assert fact.verification == Verification.CONFIRMED
    assert timezone.now() - fact.last_confirmed_at < timedelta(seconds=5)
    assert fact_detail(fact)["freshness_label"] == "fresh"
    event = AuditEvent.objects.get(target_type="fact", target_id=str(fact.pk))
    assert (event.actor, event.details["action"], event.details["reason"]) == (
        "ann",
        "reconfirm",
        "asked them",
    )


def test_only_a_current_fact_can_be_reconfirmed_or_ended(agent):
    old = state(agent, "Acme").fact
    state(agent, "Globex")
    for service in (reconfirm_fact, end_fact):
        with pytest.raises(FactNotCurrent):
            service(fact=old, actor="x")
    assert refreshed(old).status == Status.HISTORY
    assert not AuditEvent.objects.exists()
    with pytest.raises(InvalidInput):
        reconfirm_fact(fact=refreshed(old), actor="x", reason="x" * 5000)


def test_end_makes_the_fact_history_valid_until_now(agent):
    fact = state(agent, "Dropbox").fact
    end_fact(fact=fact, actor="ann", reason="left")
    fact = refreshed(fact)
    assert fact.status == Status.HISTORY
    assert fact.valid_to is not None
    assert fact.believed_until is not None
    assert timezone.now() - fact.valid_to < timedelta(seconds=5)
    assert not Fact.objects.current().exists()
    event = AuditEvent.objects.get(target_type="fact", target_id=str(fact.pk))
    assert (event.action, event.details["reason"]) == (AuditAction.FACT_END, "left")


def test_end_keeps_an_earlier_end_and_an_ordered_window(agent):
    earlier = timezone.now() - timedelta(days=3)
    ended = state(agent, "Acme", valid_to=earlier).fact
    end_fact(fact=ended, actor="x")
    assert refreshed(ended).valid_to == earlier
    future = timezone.now() + timedelta(days=3)
    starts_later = state(agent, "Canva", predicate="city", valid_from=future).fact
    end_fact(fact=starts_later, actor="x")
    assert refreshed(starts_later).valid_to == future


def test_the_pass_ends_expired_facts_only_for_agents_that_ask(agent, other_agent):
    mine = aged(state(agent, "Acme").fact, 400)  # 400 days of a 180-day half-life: expired
    aging = aged(state(agent, "Paris", predicate="city").fact, 200)
    theirs = aged(state(other_agent, "Acme").fact, 400)
    set_memory_policy(agent=agent, policy={"end_expired_facts": True}, actor="x")

    assert end_expired_facts_pass(dry_run=True).counts["ended"] == 1
    assert refreshed(mine).status == Status.CURRENT

    result = end_expired_facts_pass()
    assert (result.touched, dict(result.by_workspace[agent.workspace_id])) == (
        1,
        {"touched": 1, "ended": 1},
    )
    assert refreshed(mine).status == Status.HISTORY
    assert refreshed(aging).status == Status.CURRENT
    assert refreshed(theirs).status == Status.CURRENT
    event = AuditEvent.objects.get(target_type="fact", target_id=str(mine.pk))
    assert (event.actor, event.action) == ("system:freshness", AuditAction.FACT_END)


def test_the_job_runs_through_maintenance_and_is_recorded(agent):
    fact = aged(state(agent, "Acme").fact, 400)
    set_memory_policy(agent=agent, policy={"end_expired_facts": True}, actor="x")
    run, _ = run_maintenance(job="fact_freshness", trigger="cli")
    assert MaintenanceRun.objects.get(pk=run.pk).counts == {"ended": 1}
    assert refreshed(fact).status == Status.HISTORY
