"""Migration operations for schema that only one database engine has, and for indexes on
the tables that grow with use."""

from typing import Any

from django.conf import settings
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations

from dewee.partitions import (
    add_index_concurrently,
    distribution_key,
    is_keyed,
    partition_by_hash,
    partition_count,
    partitions_of,
)

# The tables that grow with use (one row per fact, source, memory, event...): building an
# index on one of them with a plain CREATE INDEX blocks its writes for the whole build, so
# a migration adds one with ConcurrentAddIndex, or raw SQL with CREATE INDEX CONCURRENTLY,
# in a migration with ``atomic = False`` (tests/test_migrations_indexes.py checks this). The
# partitioned ones (memories, facts, the audit log: dewee.partitions) take no CONCURRENTLY
# on the parent: ConcurrentAddIndex builds theirs partition by partition.
LARGE_TABLES = {
    "facts_fact",
    "facts_factsource",
    "facts_factperiod",
    "memory_memory",  # with its embeddings and search_vector (SQLite: the memory_fts table)
    "memory_memorytag",
    "memory_memoryfeedback",
    "memory_session",
    "memory_entity",
    "memory_entitymention",
    "memory_memoryedge",
    "memory_importancesnapshot",
    "memory_auditevent",
}


class RunSQLOn(migrations.RunSQL):
    """RunSQL that applies only on the given database vendor ("postgresql", "sqlite")."""

    def __init__(self, vendor: str, sql: Any, reverse_sql: Any = None, **kwargs: Any) -> None:
        super().__init__(sql, reverse_sql, **kwargs)
        self.vendor = vendor

    def database_forwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_forwards(app_label, schema_editor, *args)

    def database_backwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor == self.vendor:
            super().database_backwards(app_label, schema_editor, *args)

    def describe(self) -> str:
        return f"Raw SQL for {self.vendor} only"


class ConcurrentAddIndex(AddIndexConcurrently):
    """AddIndex built with CREATE INDEX CONCURRENTLY on PostgreSQL, so the table's writes
    go on during the build; a plain AddIndex elsewhere (SQLite has no such build, and its
    writers wait for any schema change anyway). Its migration needs ``atomic = False``."""

    def database_forwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            migrations.AddIndex.database_forwards(self, app_label, schema_editor, *args)
            return
        # A partitioned table (dewee.partitions) takes no concurrent build on its parent:
        # each partition's index is built concurrently and attached.
        _from_state, to_state = args
        model = to_state.apps.get_model(app_label, self.model_name)
        table = model._meta.db_table
        with schema_editor.connection.cursor() as cursor:
            if not partitions_of(cursor, table):
                super().database_forwards(app_label, schema_editor, *args)
                return
            statement = str(self.index.create_sql(model, schema_editor))
            add_index_concurrently(cursor, table, self.index.name, statement)

    def database_backwards(self, app_label: str, schema_editor: Any, *args: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            migrations.AddIndex.database_backwards(self, app_label, schema_editor, *args)
            return
        from_state, _to_state = args
        table = from_state.apps.get_model(app_label, self.model_name)._meta.db_table
        with schema_editor.connection.cursor() as cursor:
            if not partitions_of(cursor, table):
                super().database_backwards(app_label, schema_editor, *args)
                return
            # A partitioned index is dropped whole (not concurrently): its partitions' go too.
            cursor.execute(f'DROP INDEX IF EXISTS "{self.index.name}"')


def partitioning(table: str, column: str) -> migrations.RunPython:
    """PostgreSQL: ``table`` keyed by ``(column, id)`` as Citus needs (dewee.partitions) and
    hash-partitioned by ``column`` into DEWEE_DB_PARTITIONS partitions (when 0, the default,
    it stays one plain table, only keyed); one plain table keyed by ``id`` again when undone.
    Nothing on SQLite. Partitioning rebuilds the table: its writes wait for the copy."""

    def forwards(apps: Any, schema_editor: Any) -> None:
        wanted = int(settings.DEWEE_DB_PARTITIONS)
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if wanted and partition_count(cursor, table) != wanted:
                partition_by_hash(cursor, table, column, wanted)
            elif not wanted and not is_keyed(cursor, table, column):
                distribution_key(cursor, table, column)

    def backwards(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if partition_count(cursor, table):
                partition_by_hash(cursor, table, column, 0, keyed=False)
            elif is_keyed(cursor, table, column):
                distribution_key(cursor, table, column, keyed=False)

    return migrations.RunPython(forwards, backwards, elidable=False)


def keyed_by(table: str, column: str) -> migrations.RunPython:
    """PostgreSQL: ``(column, id)`` the primary key of ``table`` and of the foreign keys into
    it (dewee.partitions.distribution_key), as Citus needs of a table it distributes by
    ``column``; ``id`` alone again when undone. Nothing on SQLite."""

    def forwards(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                distribution_key(cursor, table, column)

    def backwards(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                distribution_key(cursor, table, column, keyed=False)

    return migrations.RunPython(forwards, backwards, elidable=False)


def index_concurrently(table: str, name: str, statement: str) -> migrations.RunPython:
    """PostgreSQL: the index ``statement`` ("CREATE INDEX "name" ON "table" ...", raw SQL for
    what a model's Index cannot say: an expression with an operator class, an INCLUDE) built
    without blocking the table's writes: CREATE INDEX CONCURRENTLY on a plain table, one
    partition at a time on a partitioned one. Dropped when undone. Nothing on SQLite. Its
    migration needs ``atomic = False``."""

    def forwards(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if partitions_of(cursor, table):
                add_index_concurrently(cursor, table, name, statement)
            else:
                # Without IF NOT EXISTS: a build that failed leaves an invalid index of this
                # name, which the next migrate must report rather than take for done.
                cursor.execute(statement.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1))

    def backwards(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            if partitions_of(cursor, table):
                cursor.execute(f'DROP INDEX IF EXISTS "{name}"')  # its partitions' go with it
            else:
                cursor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{name}"')

    return migrations.RunPython(forwards, backwards, elidable=False)
