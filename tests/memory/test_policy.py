"""An agent's memory policy: GET/PUT over the API, strict validation, isolation, audit,
default TTL per type at store, and spaced repetition on recall."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils.dateparse import parse_datetime as parse

from memory.models import EntityType, Memory
from memory.services import (
    MemoryInput,
    get_memory_policy,
    record_access,
    set_memory_policy,
    store_memories,
)
from tenancy.models import Agent, AuditAction, AuditEvent

POLICY_URL = "/v1/agents/support-bot/memory_policy"
DEFAULTS = {
    "strategy": {
        "episodic": "exponential",
        "semantic": "exponential",
        "procedural": "exponential",
        "working": "exponential",
    },
    "default_ttl_seconds": {
        "episodic": None,
        "semantic": None,
        "procedural": None,
        "working": None,
    },
    "spaced_repetition_factor": 1.0,
    "base_interval_seconds": 86400,
    "extract_facts": True,
    "extract_entities": True,
    "entity_types": list(EntityType.values),
    "fact_half_life_days": {
        "employment": 180,
        "location": 365,
        "contact": 730,
        "preference": 365,
        "relationship": 730,
        "skill": 1095,
        "belief": 365,
        "fact": 3650,
        "general": 365,
    },
    "end_expired_facts": False,
}
DAY = timedelta(days=1)
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def parse_datetime(text: str) -> datetime:
    value = parse(text)
    assert value is not None
    return value


def put(api, path, body):
    return api.client.put(
        path, data=json.dumps(body), content_type="application/json", headers=api.headers
    )


def assert_error(response, status, code, field=None):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    if field is not None:
        assert error["details"]["field"] == field


def stored_policy(agent) -> dict:
    return Agent.objects.get(pk=agent.pk).memory_policy


# --- the API ---


@pytest.mark.django_db
def test_an_agent_without_a_policy_has_the_server_defaults(api, agent):
    response = api.get(POLICY_URL)
    assert response.status_code == 200
    assert response.json() == DEFAULTS


@pytest.mark.django_db
def test_server_strategy_setting_is_the_default(api, agent, settings):
    settings.DEWEE_DECAY_STRATEGY = "linear"
    assert api.get(POLICY_URL).json()["strategy"]["semantic"] == "linear"


@pytest.mark.django_db
def test_put_replaces_the_policy_and_returns_the_effective_one(api, agent):
    body = {
        "strategy": {"working": "linear", "semantic": "flat"},
        "default_ttl_seconds": {"working": 86400},
        "spaced_repetition_factor": 2,
        "base_interval_seconds": 3600,
        "extract_facts": False,
    }
    response = put(api, POLICY_URL, body)
    assert response.status_code == 200
    expected = {
        "strategy": {
            "episodic": "exponential",
            "semantic": "flat",
            "procedural": "exponential",
            "working": "linear",
        },
        "default_ttl_seconds": {
            "episodic": None,
            "semantic": None,
            "procedural": None,
            "working": 86400,
        },
        "spaced_repetition_factor": 2.0,
        "base_interval_seconds": 3600,
        "extract_facts": False,
        "extract_entities": True,
        "entity_types": list(EntityType.values),
        "fact_half_life_days": DEFAULTS["fact_half_life_days"],
        "end_expired_facts": False,
    }
    assert response.json() == expected
    assert api.get(POLICY_URL).json() == expected

    # Full replace: what the next PUT leaves out goes back to the server defaults.
    response = put(api, POLICY_URL, {"spaced_repetition_factor": 0})
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, "spaced_repetition_factor": 0.0}
    assert stored_policy(agent) == {"spaced_repetition_factor": 0.0}


@pytest.mark.django_db
def test_a_policy_change_is_audited(api, agent):
    put(api, POLICY_URL, {"strategy": {"working": "linear"}})
    put(api, POLICY_URL, {"base_interval_seconds": 60})
    events = list(AuditEvent.objects.filter(action=AuditAction.POLICY_CHANGE).order_by("id"))
    assert len(events) == 2
    assert events[1].agent_id == agent.pk
    assert events[1].workspace_id == agent.workspace_id
    assert events[1].actor.startswith("key:test key#")
    assert events[1].target_type == "agent"
    assert events[1].details == {
        "before": {"strategy": {"working": "linear"}},
        "after": {"base_interval_seconds": 60},
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"decay": "fast"}, "decay"),
        ({"strategy": "linear"}, "strategy"),
        ({"strategy": {"dreams": "linear"}}, "strategy.dreams"),
        ({"strategy": {"working": "sideways"}}, "strategy.working"),
        ({"strategy": {"working": None}}, "strategy.working"),
        ({"default_ttl_seconds": {"working": 0}}, "default_ttl_seconds.working"),
        ({"default_ttl_seconds": {"working": 10 * 365 * 86400 + 1}}, "default_ttl_seconds.working"),
        ({"default_ttl_seconds": {"working": 3600.5}}, "default_ttl_seconds.working"),
        ({"default_ttl_seconds": {"working": True}}, "default_ttl_seconds.working"),
        ({"default_ttl_seconds": {"memo": 60}}, "default_ttl_seconds.memo"),
        ({"default_ttl_seconds": [60]}, "default_ttl_seconds"),
        ({"spaced_repetition_factor": -0.1}, "spaced_repetition_factor"),
        ({"spaced_repetition_factor": 100.5}, "spaced_repetition_factor"),
        ({"spaced_repetition_factor": "1"}, "spaced_repetition_factor"),
        ({"spaced_repetition_factor": None}, "spaced_repetition_factor"),
        ({"base_interval_seconds": 0}, "base_interval_seconds"),
        ({"base_interval_seconds": 365 * 86400 + 1}, "base_interval_seconds"),
        ({"base_interval_seconds": "86400"}, "base_interval_seconds"),
        ({"extract_facts": "yes"}, "extract_facts"),
        ({"extract_facts": 1}, "extract_facts"),
    ],
)
def test_a_bad_policy_is_refused_whole_and_nothing_is_written(api, agent, body, field):
    put(api, POLICY_URL, {"spaced_repetition_factor": 3})
    response = put(api, POLICY_URL, {"base_interval_seconds": 60, **body})
    assert_error(response, 400, "invalid_memory_policy", field)
    assert stored_policy(agent) == {"spaced_repetition_factor": 3.0}
    assert AuditEvent.objects.filter(action=AuditAction.POLICY_CHANGE).count() == 1


@pytest.mark.django_db
def test_the_limits_themselves_are_accepted(api, agent):
    body = {
        "default_ttl_seconds": {"working": 1, "semantic": 10 * 365 * 86400, "episodic": None},
        "spaced_repetition_factor": 100,
        "base_interval_seconds": 365 * 86400,
    }
    assert put(api, POLICY_URL, body).status_code == 200
    assert put(api, POLICY_URL, {"base_interval_seconds": 1}).status_code == 200


@pytest.mark.django_db
def test_a_body_that_is_not_an_object_is_refused(api, agent):
    response = api.client.put(
        POLICY_URL, data="[1]", content_type="application/json", headers=api.headers
    )
    assert_error(response, 400, "malformed_json")


@pytest.mark.django_db
def test_another_workspaces_agent_is_not_found(api, other_api, agent):
    put(api, POLICY_URL, {"spaced_repetition_factor": 3})
    assert_error(other_api.get(POLICY_URL), 404, "agent_not_found")
    assert_error(put(other_api, POLICY_URL, {"strategy": {}}), 404, "agent_not_found")
    assert stored_policy(agent) == {"spaced_repetition_factor": 3.0}
    assert_error(api.get("/v1/agents/nobody/memory_policy"), 404, "agent_not_found")


def test_the_policy_needs_a_key(client, db):
    response = client.get(POLICY_URL)
    assert response.status_code == 401


# --- default TTL per type at store ---


@pytest.mark.django_db
def test_default_ttl_applies_when_the_caller_gives_no_expiry(api, agent):
    put(api, POLICY_URL, {"default_ttl_seconds": {"working": 3600}})
    before = datetime.now(UTC)
    working = api.post(
        "/v1/memories",
        {"agent_id": "support-bot", "content": "draft reply", "memory_type": "working"},
    ).json()
    after = datetime.now(UTC)
    assert working["ttl_seconds"] == 3600
    expires = parse_datetime(working["expires_at"])
    assert before + timedelta(hours=1) <= expires <= after + timedelta(hours=1)

    episodic = api.post("/v1/memories", {"agent_id": "support-bot", "content": "met Ann"}).json()
    assert (episodic["ttl_seconds"], episodic["expires_at"]) == (None, None)

    own_ttl = api.post(
        "/v1/memories",
        {"agent_id": "support-bot", "content": "x", "memory_type": "working", "ttl_seconds": 60},
    ).json()
    assert own_ttl["ttl_seconds"] == 60

    deadline = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)
    own_deadline = api.post(
        "/v1/memories",
        {
            "agent_id": "support-bot",
            "content": "y",
            "memory_type": "working",
            "expires_at": deadline.isoformat(),
        },
    ).json()
    assert own_deadline["ttl_seconds"] is None
    assert parse_datetime(own_deadline["expires_at"]) == deadline


# --- spaced repetition ---


def ttl_memory(agent, **fields):
    (memory,) = store_memories(
        agent=agent, items=[MemoryInput(content="Ann's flight lands at 9", **fields)]
    )
    Memory.objects.filter(pk=memory.pk).update(expires_at=NOW + DAY)
    return memory


def deadline(memory) -> datetime:
    value = Memory.objects.get(pk=memory.pk).expires_at
    assert value is not None
    return value


def version(agent) -> int:
    return Agent.objects.get(pk=agent.pk).memory_version


@pytest.mark.django_db
def test_each_recall_extends_the_expiry_by_count_times_interval(agent):
    memory = ttl_memory(agent, ttl_seconds=3600)
    start = version(agent)
    record_access([memory.pk], now=NOW)
    assert deadline(memory) == NOW + DAY + DAY  # 1st access: +1 x 1.0 x 1 day
    record_access([memory.pk], now=NOW)
    assert deadline(memory) == NOW + DAY + DAY + 2 * DAY  # 2nd: +2 days
    assert Memory.objects.get(pk=memory.pk).access_count == 2
    assert version(agent) == start + 2


@pytest.mark.django_db
def test_factor_and_interval_come_from_the_policy(agent):
    set_memory_policy(
        agent=agent,
        policy={"spaced_repetition_factor": 2.5, "base_interval_seconds": 3600},
        actor="test",
    )
    memory = ttl_memory(agent, ttl_seconds=3600)
    record_access([memory.pk], now=NOW)
    assert deadline(memory) == NOW + DAY + timedelta(hours=2.5)


@pytest.mark.django_db
def test_factor_zero_turns_spaced_repetition_off(agent):
    set_memory_policy(agent=agent, policy={"spaced_repetition_factor": 0}, actor="test")
    memory = ttl_memory(agent, ttl_seconds=3600)
    start = version(agent)
    record_access([memory.pk], now=NOW)
    stored = Memory.objects.get(pk=memory.pk)
    assert stored.expires_at == NOW + DAY
    assert stored.access_count == 1
    assert version(agent) == start


@pytest.mark.django_db
def test_memories_without_expiry_stay_without(agent, other_agent):
    (plain,) = store_memories(agent=agent, items=[MemoryInput(content="Ann likes tea")])
    theirs = ttl_memory(other_agent, ttl_seconds=3600)
    set_memory_policy(agent=other_agent, policy={"base_interval_seconds": 60}, actor="test")
    start = version(agent)
    record_access([plain.pk, theirs.pk], now=NOW)
    stored = Memory.objects.get(pk=plain.pk)
    assert (stored.expires_at, stored.access_count, stored.decay_from) == (None, 1, NOW)
    assert version(agent) == start
    # Each memory follows its own agent's policy.
    assert deadline(theirs) == NOW + DAY + timedelta(seconds=60)


@pytest.mark.django_db
def test_a_recall_through_the_api_extends_the_expiry(api, agent):
    stored = api.post(
        "/v1/memories",
        {"agent_id": "support-bot", "content": "Ann lands in Lisbon at 9", "ttl_seconds": 7200},
    ).json()
    first = parse_datetime(stored["expires_at"])
    response = api.post("/v1/memory/recall", {"agent_id": "support-bot", "query": "Ann Lisbon"})
    assert [item["id"] for item in response.json()["items"]] == [stored["id"]]
    # The API gives times to the millisecond.
    moved = deadline(Memory.objects.get(pk=stored["id"])) - first
    assert abs(moved - DAY) < timedelta(milliseconds=1)


@pytest.mark.django_db
def test_a_recall_response_shows_the_expiry_and_count_it_left(api, agent):
    stored = api.post(
        "/v1/memories",
        {"agent_id": "support-bot", "content": "Ann lands in Lisbon at 9", "ttl_seconds": 7200},
    ).json()
    response = api.post("/v1/memory/recall", {"agent_id": "support-bot", "query": "Ann Lisbon"})
    (item,) = response.json()["items"]
    row = Memory.objects.get(pk=stored["id"])
    assert row.expires_at is not None
    assert row.last_accessed_at is not None
    assert item["access_count"] == row.access_count == 1
    # The API gives times to the millisecond.
    shown = parse_datetime(item["expires_at"])
    assert abs(shown - row.expires_at) < timedelta(milliseconds=1)
    assert shown - parse_datetime(stored["expires_at"]) > DAY - timedelta(milliseconds=1)
    last = parse_datetime(item["last_accessed_at"])
    assert abs(last - row.last_accessed_at) < timedelta(milliseconds=1)


@pytest.mark.django_db
def test_get_memory_policy_fills_in_defaults(agent):
    set_memory_policy(agent=agent, policy={"default_ttl_seconds": {"working": 60}}, actor="t")
    agent.refresh_from_db()
    policy = get_memory_policy(agent)
    assert policy.default_ttl_seconds == {
        "episodic": None,
        "semantic": None,
        "procedural": None,
        "working": 60,
    }
    assert policy.repetition_step_seconds == 86400.0


@pytest.mark.django_db
def test_the_facts_settings_of_the_policy_are_answered_as_set(api, agent):
    body = {"fact_half_life_days": {"employment": 90}, "end_expired_facts": True}
    response = put(api, POLICY_URL, body)
    assert response.status_code == 200
    assert response.json()["fact_half_life_days"]["employment"] == 90
    assert response.json()["fact_half_life_days"]["location"] == 365
    assert response.json()["end_expired_facts"] is True
    assert api.get(POLICY_URL).json()["fact_half_life_days"]["employment"] == 90
