"""Quotas on sessions, facts and entities, as on memories: a hard one refuses the session
start or the new fact and writes nothing, a soft one writes and warns; an entities quota
never fails a store, it stops making new entities. And a write refused at a full hard quota
reads the quota's running count, not a new count of the scope's rows."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from facts.models import Fact
from memory.exceptions import QuotaExceeded
from memory.models import Entity, Memory, Session
from memory.quotas import agent_usage
from memory.quotas import set_quotas as counting_set
from memory.services import MemoryInput, store_memories, update_memory
from tenancy.quotas import QuotaLimit, set_quotas
from tenancy.services import create_agent
from tests.facts.test_api import assert_error
from tests.facts.test_api import body as fact
from tests.memory.test_quotas import limit_agent, store

pytestmark = pytest.mark.django_db


def start(api, agent_id="support-bot"):
    return api.post("/v1/sessions", {"agent_id": agent_id, "user": "u1"})


def test_a_hard_facts_quota_refuses_the_next_new_fact_and_writes_nothing(api, agent):
    limit_agent(agent, facts=1)
    assert api.post("/v1/facts", fact()).status_code == 200
    refused = api.post("/v1/facts", fact(predicate="city", value="Lisbon"))
    error = assert_error(refused, 413, "quota_exceeded")
    assert error["details"]["quota"] == "facts"
    assert (error["details"]["usage"], error["details"]["limit"]) == (1, 1)
    assert list(Fact.objects.values_list("predicate", flat=True)) == ["employer"]
    # The same value again makes no new fact: it is still confirmed.
    assert api.post("/v1/facts", fact()).json()["outcome"] == "confirmed"


def test_a_hard_workspace_facts_quota_counts_every_agent(api, agent):
    create_agent(workspace=agent.workspace, agent_id="other-bot")
    set_quotas(workspace=agent.workspace, limits={"facts": QuotaLimit(1, "hard")}, actor="test")
    assert api.post("/v1/facts", fact()).status_code == 200
    refused = api.post("/v1/facts", fact(agent_id="other-bot"))
    assert assert_error(refused, 413, "quota_exceeded")["details"]["scope"] == "workspace"
    assert Fact.objects.count() == 1


def test_a_hard_sessions_quota_refuses_the_next_start_and_writes_nothing(api, agent):
    limit_agent(agent, sessions=1)
    assert start(api).status_code == 201
    error = assert_error(start(api), 413, "quota_exceeded")
    assert error["details"]["quota"] == "sessions"
    assert Session.objects.count() == 1


def test_a_hard_entities_quota_never_fails_a_store_and_makes_no_entity_beyond_it(api, agent):
    limit_agent(agent, entities=1)
    assert store(api, "Ann met Bob in Lisbon").status_code == 201
    assert store(api, "Carla flew to Berlin with Dmitri").status_code == 201
    assert Memory.objects.count() == 2
    assert Entity.objects.filter(agent=agent).count() == 1


def test_soft_quotas_on_facts_and_sessions_write_and_warn(api, agent):
    limit_agent(agent, mode="soft", facts=1, sessions=1)
    api.post("/v1/facts", fact())
    over = api.post("/v1/facts", fact(predicate="city", value="Lisbon"))
    assert over.status_code == 200
    assert over["Dewee-Quota-Warning"] == "agent facts 2/1"
    assert start(api).status_code == 201
    started = start(api)
    assert started.status_code == 201
    assert started["Dewee-Quota-Warning"] == "agent sessions 2/1"
    assert (Fact.objects.count(), Session.objects.count()) == (2, 2)


def _counts_of(queries, table):
    """Statements that count the rows of ``table`` other than those past a quota's last
    count (``id > n``, n > 0: the few rows stored since it, read by every check)."""
    return [
        q["sql"]
        for q in queries
        if "COUNT(" in q["sql"].upper()
        and table in q["sql"]
        and not re.search(r"\bid\W* > [1-9]", q["sql"])
    ]


@pytest.mark.parametrize(
    ("kind", "table", "write"),
    [
        ("memories", Memory._meta.db_table, lambda api, n: store(api, f"note {n}")),
        ("facts", Fact._meta.db_table, lambda api, n: api.post("/v1/facts", fact(value=f"v{n}"))),
        ("sessions", Session._meta.db_table, lambda api, n: start(api)),
    ],
)
def test_a_write_refused_at_a_full_hard_quota_does_not_count_the_scope(
    api, agent, kind, table, write
):
    limit_agent(agent, **{kind: 2})
    for n in range(2):
        assert write(api, n).status_code in (200, 201)
    assert_error(write(api, 2), 413, "quota_exceeded")
    with CaptureQueriesContext(connection) as queries:
        assert_error(write(api, 3), 413, "quota_exceeded")
    assert _counts_of(queries.captured_queries, table) == []


def test_a_deletion_at_a_full_hard_quota_makes_room_again(api, agent):
    limit_agent(agent, sessions=1)
    session_id = start(api).json()["id"]
    assert_error(start(api), 413, "quota_exceeded")
    assert api.delete(f"/v1/sessions/{session_id}", confirm="true").status_code == 200
    assert start(api).status_code == 201
    assert_error(start(api), 413, "quota_exceeded")


def test_a_quota_set_at_the_usage_is_counted_once_and_refusals_after_it_do_not_count(api, agent):
    for n in range(3):
        assert store(api, f"note {n}").status_code == 201
    limits = {"memories": QuotaLimit(3)}
    counting_set(workspace=agent.workspace, agent=agent, limits=limits, actor="t")
    with CaptureQueriesContext(connection) as queries:
        assert_error(store(api, "one too many"), 413, "quota_exceeded")
        assert_error(store(api, "and another"), 413, "quota_exceeded")
    assert _counts_of(queries.captured_queries, Memory._meta.db_table) == []


def test_erased_facts_leave_the_running_count_without_a_count_of_the_scope(api, agent):
    limits = {"facts": QuotaLimit(2)}
    counting_set(workspace=agent.workspace, agent=agent, limits=limits, actor="t")
    api.post("/v1/facts", fact())
    api.post("/v1/facts", fact(user="u2"))
    assert_error(api.post("/v1/facts", fact(user="u3")), 413, "quota_exceeded")
    forget = {"agent_id": "support-bot", "user": "u1", "confirm": True}
    assert api.post("/v1/facts/forget", forget).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert api.post("/v1/facts", fact(user="u3")).status_code == 200
        assert_error(api.post("/v1/facts", fact(user="u4")), 413, "quota_exceeded")
    assert _counts_of(queries.captured_queries, Fact._meta.db_table) == []
    assert Fact.objects.count() == 2


def test_growth_of_a_memory_stored_past_the_count_is_counted_once(agent):
    counting_set(
        workspace=agent.workspace, agent=agent, limits={"storage_bytes": QuotaLimit(20)}, actor="t"
    )
    (grown,) = store_memories(agent=agent, items=[MemoryInput(content="b" * 4)])
    update_memory(memory=grown, content="b" * 10)
    assert agent_usage(agent).storage_bytes == 10
    store_memories(agent=agent, items=[MemoryInput(content="c" * 10)])
    with pytest.raises(QuotaExceeded):
        store_memories(agent=agent, items=[MemoryInput(content="d")])
