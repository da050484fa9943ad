"""PostgreSQL declarative partitioning of a table that grows with use, hashed by its
distribution column (the agent), and the way back to a plain table.

A partitioned table's primary key and unique indexes must hold the partition column, so the
key becomes ``(agent_id, id)``; ids stay unique through the table's one identity sequence,
and a plain index on ``id`` serves the lookups by id alone. A foreign key into the table
needs a unique key to point at, so each one becomes ``(agent_id, <column>)`` against
``(agent_id, id)``: every table that refers to a partitioned one carries its agent. Django
keeps seeing ``id`` as the key (it only needs ``id`` to be unique and returned on insert)
and keeps deleting along its foreign keys itself, as before.

Both directions rebuild the table: the rows are copied into a new table under the
migration's lock (writes to the table wait; docs/SCALING.md gives the time per million rows),
then its indexes, checks and foreign keys are made again under their own names.

A table that is not partitioned gets the same keys, without moving its rows, from
``distribution_key``: what Citus needs of every table it distributes (dewee.distribution)."""

from dataclasses import dataclass
from typing import Any

from django.db import transaction

PRIMARY_KEY = "id"


@dataclass(frozen=True)
class _Shape:
    """What a rebuild must make again: what the table holds apart from its columns."""

    indexes: list[tuple[str, str]]  # (name, CREATE INDEX statement)
    outgoing: list[tuple[str, str]]  # (name, definition) of its own foreign keys
    incoming: "Incoming"  # the foreign keys into it
    columns: list[str]  # the columns written on insert (not the generated ones)
    reloptions: list[str]
    next_id: int


def partition_count(cursor: Any, table: str) -> int:
    """How many hash partitions ``table`` has (0: a plain table)."""
    cursor.execute("SELECT count(*) FROM pg_inherits WHERE inhparent = %s::regclass", [table])
    return int(cursor.fetchone()[0])


def partitions_of(cursor: Any, table: str) -> list[str]:
    """The partitions of ``table``, in order (none for a plain table)."""
    cursor.execute(
        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = %s::regclass "
        "ORDER BY inhrelid::regclass::text",
        [table],
    )
    return [name.strip('"') for (name,) in cursor.fetchall()]


def add_index_concurrently(cursor: Any, table: str, name: str, statement: str) -> None:
    """Build the index ``statement`` ("CREATE INDEX "name" ON "table" ...") on a partitioned
    ``table`` without blocking its writes, as PostgreSQL allows it: an empty index on the
    parent alone, one built concurrently on each partition, each attached to it (the parent's
    index is valid once all are). Runs outside a transaction."""
    on = f'ON "{table}"'
    if on not in statement or f'"{name}"' not in statement:
        raise ValueError(f"not an index of {table} named {name}: {statement}")
    cursor.execute(statement.replace(on, f'ON ONLY "{table}"', 1))
    for number, part in enumerate(partitions_of(cursor, table)):
        own = f"{name}_p{number}"
        cursor.execute(f'DROP INDEX IF EXISTS "{own}"')  # an invalid one a failed build left
        cursor.execute(
            statement.replace("CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1)
            .replace(f'"{name}"', f'"{own}"', 1)
            .replace(on, f'ON "{part}"', 1)
        )
        cursor.execute(f'ALTER INDEX "{name}" ATTACH PARTITION "{own}"')


def partition_by_hash(
    cursor: Any, table: str, column: str, partitions: int, *, keyed: bool = True
) -> None:
    """Rebuild ``table`` as ``partitions`` hash partitions on ``column`` (0: as one plain
    table again, keyed by ``(column, id)`` as distribution_key makes it, or by ``id`` alone
    when not ``keyed``). Its rows, ids, indexes, checks and foreign keys (both ways)
    survive; it all happens in one transaction, so a rebuild that fails leaves the table as
    it was."""
    if partitions < 0:
        raise ValueError("the number of partitions cannot be negative")
    with transaction.atomic(using=cursor.db.alias):
        _rebuild(cursor, table, column, partitions, keyed=keyed or partitions > 0)


def is_keyed(cursor: Any, table: str, column: str) -> bool:
    """Whether ``table``'s primary key is ``(column, id)``."""
    cursor.execute(
        "SELECT array_agg(a.attname::text ORDER BY k.n) FROM pg_constraint c "
        "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
        "WHERE c.conrelid = %s::regclass AND c.contype = 'p'",
        [table],
    )
    return list(cursor.fetchone()[0] or []) == [column, PRIMARY_KEY]


def _rebuild(cursor: Any, table: str, column: str, partitions: int, *, keyed: bool) -> None:
    shape = _shape(cursor, table, column)
    _drop(cursor, shape.incoming)
    staging = f"{table}_rebuilt"
    partitioned = f" PARTITION BY HASH ({column})" if partitions else ""
    cursor.execute(
        f'CREATE TABLE "{staging}" (LIKE "{table}" INCLUDING DEFAULTS INCLUDING GENERATED '
        "INCLUDING IDENTITY INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)"
        f"{partitioned}"
    )
    options = f" WITH ({', '.join(shape.reloptions)})" if shape.reloptions else ""
    if partitions:
        for remainder in range(partitions):
            cursor.execute(
                f'CREATE TABLE "{staging}_p{remainder}" PARTITION OF "{staging}" '
                f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {remainder}){options}"
            )
    elif options:
        cursor.execute(f'ALTER TABLE "{staging}" SET ({", ".join(shape.reloptions)})')
    columns = ", ".join(f'"{name}"' for name in shape.columns)
    cursor.execute(f'INSERT INTO "{staging}" ({columns}) SELECT {columns} FROM "{table}"')
    cursor.execute(f'DROP TABLE "{table}"')
    cursor.execute(f'ALTER TABLE "{staging}" RENAME TO "{table}"')
    for remainder in range(partitions):
        cursor.execute(f'ALTER TABLE "{staging}_p{remainder}" RENAME TO "{table}_p{remainder}"')
    cursor.execute(
        f'ALTER TABLE "{table}" ALTER COLUMN "{PRIMARY_KEY}" RESTART WITH {shape.next_id}'
    )
    sequence = _sequence(cursor, table)
    cursor.execute(f'ALTER SEQUENCE {sequence} RENAME TO "{table}_{PRIMARY_KEY}_seq"')
    key = f'"{column}", "{PRIMARY_KEY}"' if keyed else f'"{PRIMARY_KEY}"'
    cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" PRIMARY KEY ({key})')
    if keyed:
        cursor.execute(f'CREATE INDEX "{table}_id_idx" ON "{table}" ("{PRIMARY_KEY}")')
    for _name, statement in shape.indexes:
        # A partitioned table's own index reads "ON ONLY": made again, it covers every
        # partition.
        cursor.execute(statement.replace(" ON ONLY ", " ON ", 1))
    for name, definition in shape.outgoing:
        cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
    _point(cursor, shape.incoming, table, column if keyed else None)
    cursor.execute(f'ANALYZE "{table}"')


def distribution_key(cursor: Any, table: str, column: str, *, keyed: bool = True) -> None:
    """Make ``(column, id)`` the primary key of the plain table ``table``, with a plain index
    on ``id`` for the lookups by id alone, and the foreign keys into it ``(column, ...)``
    (``keyed=False``: back to ``id`` alone). No rows move; the key's index is built under
    the migration's lock. This is what Citus needs of a table it distributes by ``column``
    (docs/SCALING.md), without partitioning it here."""
    with transaction.atomic(using=cursor.db.alias):
        incoming = _incoming(cursor, table, column)
        _drop(cursor, incoming)
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'p'",
            [table],
        )
        [(primary,)] = cursor.fetchall()
        cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{primary}"')
        if keyed:
            cursor.execute(
                f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" '
                f'PRIMARY KEY ("{column}", "{PRIMARY_KEY}")'
            )
            cursor.execute(f'CREATE INDEX "{table}_id_idx" ON "{table}" ("{PRIMARY_KEY}")')
        else:
            cursor.execute(f'DROP INDEX IF EXISTS "{table}_id_idx"')
            cursor.execute(
                f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" PRIMARY KEY ("{PRIMARY_KEY}")'
            )
        _point(cursor, incoming, table, column if keyed else None)


Incoming = list[tuple[str, str, list[str]]]  # (referring table, constraint, its columns)


def _drop(cursor: Any, incoming: Incoming) -> None:
    for referrer, name, _columns in incoming:
        cursor.execute(f'ALTER TABLE "{referrer}" DROP CONSTRAINT "{name}"')


def _point(cursor: Any, incoming: Incoming, table: str, column: str | None) -> None:
    """The foreign keys ``incoming`` made again into ``table``: by ``(column, id)``, or by
    ``id`` alone when ``column`` is None."""
    for referrer, name, referring in incoming:
        own = referring[-1]
        columns_from = f'"{column}", "{own}"' if column else f'"{own}"'
        columns_to = f'"{column}", "{PRIMARY_KEY}"' if column else f'"{PRIMARY_KEY}"'
        cursor.execute(
            f'ALTER TABLE "{referrer}" ADD CONSTRAINT "{name}" FOREIGN KEY ({columns_from}) '
            f'REFERENCES "{table}" ({columns_to}) DEFERRABLE INITIALLY DEFERRED'
        )


def _incoming(cursor: Any, table: str, column: str) -> Incoming:
    """The foreign keys into ``table``; each referring table must carry ``column``."""
    cursor.execute(
        "SELECT c.conrelid::regclass::text, c.conname, array_agg(a.attname ORDER BY k.n) "
        "FROM pg_constraint c "
        "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n) "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
        "WHERE c.confrelid = %s::regclass AND c.contype = 'f' AND c.conparentid = 0 "
        "GROUP BY c.conrelid, c.conname ORDER BY 1, 2",
        [table],
    )
    incoming = [(referrer.strip('"'), name, list(cols)) for referrer, name, cols in cursor]
    for referrer, name, _cols in incoming:
        cursor.execute(
            "SELECT 1 FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s "
            "AND NOT attisdropped",
            [f'"{referrer}"', column],
        )
        if cursor.fetchone() is None:
            raise ValueError(
                f"{referrer} refers to {table} ({name}) but has no {column} column: "
                f"a key into a table keyed by {column} must carry it"
            )
    return incoming


def _sequence(cursor: Any, table: str) -> str:
    cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [f'"{table}"', PRIMARY_KEY])
    return str(cursor.fetchone()[0])


def _shape(cursor: Any, table: str, column: str) -> _Shape:
    cursor.execute(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary AND c.relname <> %s "
        "ORDER BY c.relname",
        [table, f"{table}_id_idx"],
    )
    indexes = [(name, statement) for name, statement in cursor.fetchall()]
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype = 'f' AND conparentid = 0 "
        "AND confrelid <> conrelid ORDER BY conname",  # a key into itself is an incoming one
        [table],
    )
    outgoing = list(cursor.fetchall())
    incoming = _incoming(cursor, table, column)
    cursor.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
        "AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
        [table],
    )
    columns = [name for (name,) in cursor.fetchall()]
    cursor.execute(
        "SELECT coalesce(c.reloptions, p.reloptions, '{}') FROM pg_class c "
        "LEFT JOIN LATERAL (SELECT reloptions FROM pg_class WHERE oid = ("
        "  SELECT inhrelid FROM pg_inherits WHERE inhparent = c.oid LIMIT 1)) p ON true "
        "WHERE c.oid = %s::regclass",
        [table],
    )
    reloptions = list(cursor.fetchone()[0])
    sequence = _sequence(cursor, table)
    cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
    last, called = cursor.fetchone()
    return _Shape(indexes, outgoing, incoming, columns, reloptions, last + 1 if called else last)
