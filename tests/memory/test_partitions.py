"""The tables that grow with use partitioned on PostgreSQL (dewee.partitions): memories and
facts by agent, the audit log by workspace. The migrations move a database that holds data
both ways without losing a row, an id or a link, keys into the tables carry the agent, and a
recall reads its agent's partition only."""

import re

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from django.utils import timezone

from dewee.partitions import partition_by_hash, partition_count
from facts.models import Fact, FactPeriod, FactSource
from memory.models import Memory, MemoryEdge, MemoryTag
from memory.recall.pipeline import RecallRequest, recall
from memory.services import (
    MemoryInput,
    link_memories,
    rebuild_graph,
    record_feedback,
    store_memories,
)
from tenancy.audit import record_event
from tenancy.models import AuditAction, AuditEvent
from tests.factories import make_agent, make_workspace, state

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL partitioning"),
    pytest.mark.django_db(transaction=True),
]

BEFORE = ("memory", "0024_session_agent_id_index")
PARTITIONED = {
    "memory_memory": ("agent_id", ("memory", "0025_memory_partitions")),
    "facts_fact": ("agent_id", ("facts", "0014_fact_partitions")),
    "memory_auditevent": ("workspace_id", ("tenancy", "0016_audit_partitions")),
}


# Plain tables are the default (DEWEE_DB_PARTITIONS 0): these tests partition them first.
PARTITIONS = 4


@pytest.fixture(scope="module", autouse=True)
def _partitioned(django_db_setup, django_db_blocker):
    """The three tables partitioned into PARTITIONS, and DEWEE_DB_PARTITIONS saying so (the
    migrations read it), for this module; plain again after it."""
    with override_settings(DEWEE_DB_PARTITIONS=PARTITIONS), django_db_blocker.unblock():
        with connection.cursor() as cursor:
            for table, (column, _migration) in PARTITIONED.items():
                partition_by_hash(cursor, table, column, PARTITIONS)
        yield
        with connection.cursor() as cursor:
            for table, (column, _migration) in reversed(PARTITIONED.items()):
                partition_by_hash(cursor, table, column, 0)


def _migrate(target: tuple[str, str] | None) -> None:
    """To ``target``, or (None) to the latest migration of every app."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target] if target else executor.loader.graph.leaf_nodes())


def _rows() -> list[tuple]:
    """Everything a memory holds, with the keyword index's document and its vector."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, agent_id, session_id, content, importance, metadata::text, "
            "embedding::text, search_vector::text, created_at FROM memory_memory ORDER BY id"
        )
        return cursor.fetchall()


def _links() -> dict[str, list[tuple]]:
    return {
        "tags": sorted(MemoryTag.objects.values_list("memory_id", "agent_id", "name")),
        "edges": sorted(MemoryEdge.objects.values_list("source_id", "target_id", "type")),
        "sources": sorted(
            FactSource.objects.filter(memory__isnull=False).values_list("memory_id", "agent_id")
        ),
        "mentions": sorted(
            Memory.objects.filter(entity_mentions__isnull=False).values_list(
                "id", "entity_mentions__entity__key"
            )
        ),
    }


def _fill(agent) -> list[Memory]:
    memories = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"Alice Moreau moved to Lyon in {2010 + n}", tags=["moves"])
            for n in range(6)
        ],
    )
    link_memories(agent=agent, source=memories[0], target=memories[1], actor="test")
    record_feedback(memory=memories[2], kind="upvote", actor="test")
    fact = state(agent, "Acme").fact
    FactSource.objects.create(
        fact=fact,
        agent=agent,
        kind="memory",
        memory=memories[3],
        verification=fact.verification,
        confidence=fact.confidence,
        recorded_at=timezone.now(),
    )
    rebuild_graph(agent=agent)
    return memories


def test_the_migration_moves_a_database_with_data_both_ways():
    workspace = make_workspace()
    first, second = make_agent(workspace), make_agent(workspace)
    assert partition_count(connection.cursor(), "memory_memory") == (settings.DEWEE_DB_PARTITIONS)
    _fill(first)

    _migrate(BEFORE)
    try:
        assert partition_count(connection.cursor(), "memory_memory") == 0
        kept = _fill(second)  # written to the plain table
        rows, links = _rows(), _links()
        assert len(rows) == 12
        assert all(links.values())  # tags, edges, sources and mentions to move
    finally:
        _migrate(None)
    assert partition_count(connection.cursor(), "memory_memory") == (settings.DEWEE_DB_PARTITIONS)
    assert _rows() == rows
    assert _links() == links
    # Ids go on from where they were: none is given twice.
    [new] = store_memories(agent=second, items=[MemoryInput(content="Alice likes jazz")])
    assert new.pk > max(row[0] for row in rows)
    # Both legs of recall find the moved memories, in their agent's partition only.
    result = recall(agent=second, request=RecallRequest(query="where did Alice move", top_k=3))
    assert {hit.memory.pk for hit in result.hits} <= {m.pk for m in kept}
    assert len(result.hits) == 3
    # A memory's deletion still takes its links along (Django's cascade over the new keys).
    kept[0].delete()
    assert not MemoryEdge.objects.filter(source_id=kept[0].pk).exists()


def test_a_link_into_the_table_must_name_the_memorys_own_agent():
    workspace = make_workspace()
    owner, other = make_agent(workspace), make_agent(workspace)
    [memory] = store_memories(agent=owner, items=[MemoryInput(content="a memory")])
    with pytest.raises(IntegrityError), transaction.atomic():
        MemoryTag.objects.create(memory=memory, agent=other, name="stolen")
    assert not MemoryTag.objects.filter(name="stolen").exists()


def test_a_recall_plan_reads_one_partition():
    agent = make_agent(make_workspace())
    store_memories(agent=agent, items=[MemoryInput(content="the plan reads one partition")])
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN SELECT id FROM memory_memory WHERE agent_id = %s "
            "AND search_vector @@ to_tsquery('english', 'partition') "
            "ORDER BY embedding::vector(384) <=> embedding::vector(384) LIMIT 5",
            [agent.pk],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    scanned = set(re.findall(r"\bon (memory_memory_p\d+)\b", plan))
    assert len(scanned) == 1, plan


def test_repartitioning_keeps_rows_and_indexes():
    agent = make_agent(make_workspace())
    _fill(agent)
    rows, links = _rows(), _links()
    with connection.cursor() as cursor:
        indexes = _parent_indexes(cursor)
        try:
            partition_by_hash(cursor, "memory_memory", "agent_id", 2)
            assert partition_count(cursor, "memory_memory") == 2
            assert _parent_indexes(cursor) == indexes
            assert _rows() == rows
            assert _links() == links
        finally:
            partition_by_hash(cursor, "memory_memory", "agent_id", settings.DEWEE_DB_PARTITIONS)
        assert _parent_indexes(cursor) == indexes


def test_a_key_into_the_table_without_the_agent_stops_the_migration_before_it_changes_anything():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE stray_reference (id bigint PRIMARY KEY, memory_id bigint)")
        try:
            _migrate(BEFORE)
            cursor.execute(
                "ALTER TABLE stray_reference ADD FOREIGN KEY (memory_id) "
                "REFERENCES memory_memory (id)"
            )
            with pytest.raises(ValueError, match=r"stray_reference .* has no agent_id column"):
                partition_by_hash(cursor, "memory_memory", "agent_id", 4)
            assert partition_count(cursor, "memory_memory") == 0
        finally:
            cursor.execute("DROP TABLE stray_reference")
            _migrate(None)
    assert partition_count(connection.cursor(), "memory_memory") == (settings.DEWEE_DB_PARTITIONS)


def _parent_indexes(cursor) -> set[str]:
    cursor.execute(
        "SELECT indexname, replace(indexdef, ' ON ONLY ', ' ON ') FROM pg_indexes "
        "WHERE tablename = 'memory_memory'"
    )
    return set(cursor.fetchall())


def _primary_key(table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'p'",
            [table],
        )
        return cursor.fetchone()[0]


def test_each_growing_table_is_partitioned_by_its_owner():
    for table, (column, _migration) in PARTITIONED.items():
        assert partition_count(connection.cursor(), table) == settings.DEWEE_DB_PARTITIONS
        assert _primary_key(table) == f"PRIMARY KEY ({column}, id)"


def _history() -> dict[str, list]:
    return {
        "facts": sorted(Fact.objects.values_list("id", "agent_id", "value", "status")),
        "periods": sorted(FactPeriod.objects.values_list("fact_id", "agent_id", "status")),
        "sources": sorted(FactSource.objects.values_list("fact_id", "agent_id", "kind")),
        "audit": sorted(AuditEvent.objects.values_list("id", "workspace_id", "action")),
    }


def test_facts_and_the_audit_log_move_both_ways_with_their_history():
    agent = make_agent(make_workspace())
    state(agent, "Acme")
    state(agent, "Globex")  # a second version; the first keeps its periods and sources
    record_event(
        workspace_id=agent.workspace_id,
        agent=None,
        actor="test",
        action=AuditAction.FACT_DELETE,
        target_type="workspace",
    )
    before = (
        ("facts", "0013_factsource_agent"),
        ("tenancy", "0015_quota_kinds_sessions_facts_entities"),
    )
    _migrate(before[0])
    _migrate(before[1])
    try:
        assert partition_count(connection.cursor(), "facts_fact") == 0
        assert partition_count(connection.cursor(), "memory_auditevent") == 0
        state(agent, "Initech")  # written to the plain tables
        history = _history()
        assert len(history["facts"]) == 3
        assert history["audit"]
    finally:
        _migrate(None)
    assert _history() == history
    newest = state(agent, "Hooli").fact
    assert newest.pk > max(row[0] for row in history["facts"])
    # A period must name its fact's own agent.
    other = make_agent(agent.workspace)
    with pytest.raises(IntegrityError), transaction.atomic():
        FactPeriod.objects.filter(fact=newest).update(agent=other)
