"""Indexes on the tables that grow with use are built without blocking their writes: on
PostgreSQL with CREATE INDEX CONCURRENTLY, in a migration with ``atomic = False``, through
``dewee.migration_ops.ConcurrentAddIndex`` (a plain AddIndex elsewhere) or raw SQL. The
migrations up to CHECKED_AFTER came before this rule and are left as they are."""

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import connection, migrations, models
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations.base import Operation

from dewee.migration_ops import LARGE_TABLES, ConcurrentAddIndex, RunSQLOn
from dewee.partitions import partition_by_hash, partitions_of

# Per app, the number of its latest migration when the rule came: later ones are checked.
CHECKED_AFTER = {"dewee": 1, "tenancy": 13, "memory": 23, "facts": 10, "privacy": 1, "knowledge": 0}

CREATE_INDEX = re.compile(
    r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?\S+\s+ON\s+"
    r"(?:ONLY\s+)?\"?(\w+)",
    re.IGNORECASE,
)


def _table(app_label: str, model_name: str) -> str:
    try:
        return apps.get_model(app_label, model_name)._meta.db_table
    except LookupError:  # a model since moved or deleted: its default table name
        return f"{app_label}_{model_name.lower()}"


def _statements(sql: object) -> list[str]:
    items = sql if isinstance(sql, list | tuple) else [sql]
    return [item[0] if isinstance(item, list | tuple) else str(item) for item in items]


def _flatten(operations: Sequence[Operation]) -> list[Operation]:
    flat = []
    for operation in operations:
        if isinstance(operation, migrations.SeparateDatabaseAndState):
            flat += _flatten(operation.database_operations)
        else:
            flat.append(operation)
    return flat


def blocking_index_builds(migration: migrations.Migration) -> list[str]:
    """What ``migration`` builds on a large table in a way that blocks the table's writes:
    an AddIndex that is not concurrent, a CREATE INDEX without CONCURRENTLY (raw SQL that
    runs on PostgreSQL), or either of them in an atomic migration."""
    problems = []
    where = f"{migration.app_label}.{migration.name}"
    for operation in _flatten(migration.operations):
        if isinstance(operation, migrations.AddIndex):
            table = _table(migration.app_label, operation.model_name)
            if table not in LARGE_TABLES:
                continue
            if not isinstance(operation, AddIndexConcurrently):
                problems.append(f"{where}: plain AddIndex {operation.index.name} on {table}")
            elif migration.atomic:
                problems.append(f"{where}: {operation.index.name} on {table} needs atomic = False")
        elif isinstance(operation, migrations.RunSQL):
            if isinstance(operation, RunSQLOn) and operation.vendor != "postgresql":
                continue
            for statement in _statements(operation.sql):
                for concurrently, table in CREATE_INDEX.findall(statement):
                    if table not in LARGE_TABLES:
                        continue
                    if not concurrently:
                        problems.append(f"{where}: CREATE INDEX on {table} not CONCURRENTLY")
                    elif migration.atomic:
                        problems.append(f"{where}: index on {table} needs atomic = False")
    return problems


def _own_apps() -> set[str]:
    base = Path(settings.BASE_DIR).resolve()
    return {
        config.label
        for config in apps.get_app_configs()
        if Path(config.path).resolve().is_relative_to(base)
        and ".venv" not in Path(config.path).resolve().relative_to(base).parts
    }


def _checked(app_label: str, name: str) -> bool:
    number = int(name.split("_", 1)[0]) if name[:4].isdigit() else 0
    return number > CHECKED_AFTER.get(app_label, 0)


def _migration(app_label: str, *operations, atomic: bool = True) -> migrations.Migration:
    cls = type("Migration", (migrations.Migration,), {"operations": list(operations)})
    migration = cls("0999_example", app_label)
    migration.atomic = atomic
    return migration


FACT_INDEX = models.Index(fields=["predicate", "recorded_at"], name="fact_example_idx")


def test_every_app_of_ours_has_a_cutoff():
    assert _own_apps() == set(CHECKED_AFTER)


def test_every_large_table_is_a_table_of_ours():
    tables = {model._meta.db_table for model in apps.get_models()}
    assert LARGE_TABLES - tables == set()


def test_no_migration_builds_an_index_on_a_large_table_that_blocks_its_writes():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    own = _own_apps()
    problems = [
        problem
        for (app_label, name), migration in sorted(loader.disk_migrations.items())
        if app_label in own and _checked(app_label, name)
        for problem in blocking_index_builds(migration)
    ]
    assert problems == []


def test_the_earlier_index_migrations_would_have_been_flagged():
    migrations_on_disk = MigrationLoader(None, ignore_no_migrations=True).disk_migrations
    review_indexes = migrations_on_disk[("facts", "0009_triage_review_indexes")]
    prefix_indexes = migrations_on_disk[("facts", "0007_search_key_prefix_indexes")]
    assert blocking_index_builds(review_indexes) == [
        "facts.0009_triage_review_indexes: plain AddIndex fact_disputed_oldest_idx on facts_fact",
        "facts.0009_triage_review_indexes: plain AddIndex fact_current_confirmed_idx on facts_fact",
    ]
    assert len(blocking_index_builds(prefix_indexes)) == 3


def test_a_plain_add_index_on_a_large_table_is_flagged():
    migration = _migration("facts", migrations.AddIndex("fact", FACT_INDEX))
    assert blocking_index_builds(migration) == [
        "facts.0999_example: plain AddIndex fact_example_idx on facts_fact"
    ]


def test_a_concurrent_index_in_an_atomic_migration_is_flagged():
    migration = _migration("facts", ConcurrentAddIndex("fact", FACT_INDEX))
    assert blocking_index_builds(migration) == [
        "facts.0999_example: fact_example_idx on facts_fact needs atomic = False"
    ]


def test_raw_create_index_on_a_large_table_must_be_concurrent():
    plain = "CREATE INDEX IF NOT EXISTS audit_x_idx ON memory_auditevent (actor)"
    concurrent = plain.replace("INDEX", "INDEX CONCURRENTLY")
    blocking = _migration("tenancy", RunSQLOn("postgresql", [plain]), atomic=False)
    atomic = _migration("tenancy", RunSQLOn("postgresql", [concurrent]))
    right = _migration("tenancy", RunSQLOn("postgresql", [concurrent]), atomic=False)
    sqlite_only = _migration("tenancy", RunSQLOn("sqlite", [plain]))
    assert blocking_index_builds(blocking) == [
        "tenancy.0999_example: CREATE INDEX on memory_auditevent not CONCURRENTLY"
    ]
    assert blocking_index_builds(atomic) == [
        "tenancy.0999_example: index on memory_auditevent needs atomic = False"
    ]
    assert blocking_index_builds(right) == []
    assert blocking_index_builds(sqlite_only) == []


def test_a_concurrent_index_in_a_non_atomic_migration_or_on_a_small_table_passes():
    concurrent = _migration("facts", ConcurrentAddIndex("fact", FACT_INDEX), atomic=False)
    quota_index = models.Index(fields=["workspace"], name="quota_example_idx")
    small = _migration("tenancy", migrations.AddIndex("quota", quota_index))
    assert blocking_index_builds(concurrent) == []
    assert blocking_index_builds(small) == []


def _index_names(table: str) -> set[str]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return {name for name, info in constraints.items() if info["index"]}


@pytest.mark.django_db(transaction=True)
def test_concurrent_add_index_builds_and_drops_the_index_on_either_database():
    operation = ConcurrentAddIndex(
        "quota", models.Index(fields=["workspace", "id"], name="quota_example_idx")
    )
    loader = MigrationLoader(connection)
    before = loader.project_state()
    after = before.clone()
    operation.state_forwards("tenancy", after)
    with connection.schema_editor(atomic=False) as editor:
        operation.database_forwards("tenancy", editor, before, after)
    assert "quota_example_idx" in _index_names("tenancy_quota")
    with connection.schema_editor(atomic=False) as editor:
        operation.database_backwards("tenancy", editor, after, before)
    assert "quota_example_idx" not in _index_names("tenancy_quota")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL partitions")
@pytest.mark.django_db(transaction=True)
def test_concurrent_add_index_builds_a_partitioned_tables_index_partition_by_partition():
    operation = ConcurrentAddIndex(
        "memory", models.Index(fields=["agent", "importance"], name="memory_example_idx")
    )
    with connection.cursor() as cursor:
        partition_by_hash(cursor, "memory_memory", "agent_id", 4)
    try:
        _build_and_drop_on_partitions(operation)
    finally:
        with connection.cursor() as cursor:
            partition_by_hash(cursor, "memory_memory", "agent_id", 0)


def _build_and_drop_on_partitions(operation: ConcurrentAddIndex) -> None:
    loader = MigrationLoader(connection)
    before = loader.project_state()
    after = before.clone()
    operation.state_forwards("memory", after)
    with connection.schema_editor(atomic=False) as editor:
        operation.database_forwards("memory", editor, before, after)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid, "
            "(SELECT count(*) FROM pg_inherits WHERE inhparent = i.indexrelid) "
            "FROM pg_index i WHERE i.indexrelid = 'memory_example_idx'::regclass"
        )
        valid, attached = cursor.fetchone()
        partitions = len(partitions_of(cursor, "memory_memory"))
    assert (partitions, valid, attached) == (4, True, 4)
    with connection.schema_editor(atomic=False) as editor:
        operation.database_backwards("memory", editor, after, before)
    assert not {name for name in _index_names("memory_memory") if "example" in name}
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'memory_example_idx%'")
        assert cursor.fetchone()[0] == 0


@pytest.mark.django_db
def test_the_audit_actor_and_review_prefix_indexes_exist_on_postgresql_only():
    audit = _index_names("memory_auditevent")
    facts = _index_names("facts_fact")
    if connection.vendor == "postgresql":
        assert "audit_actor_trgm_idx" in audit
        assert "fact_disputed_predicate_prefix_idx" in facts
    else:
        assert "audit_actor_trgm_idx" not in audit
        assert "fact_disputed_predicate_prefix_idx" not in facts
