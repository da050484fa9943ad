"""Erasure on disk. Deleting a row removes it from every query at once, but copies of its
bytes stay in the database's files: in free space of table and index pages, in old segments
of SQLite's full-text index, in write-ahead log frames. Compacting the storage removes them
from the data files; what each edition can and cannot promise is in docs/PRIVACY.md.

SQLite: every connection deletes with ``secure_delete`` on (dewee/config/databases.py), so deleted
rows, index entries and freed pages are zeroed as they go. The full-text index keeps the
tokens of a deleted memory in its older segments (a delete only adds a tombstone) until the
segments are merged, so each FTS5 table is optimized (merged into one segment), then the WAL
is checkpointed and truncated, so the old page versions leave the -wal file. ``full`` also
rewrites the whole file (VACUUM), which also scrubs what was deleted before secure_delete.

PostgreSQL: a deleted row's bytes stay in its heap page, its TOAST chunks and every index
(B-tree, GIN, HNSW) until the space is reused. VACUUM prunes deleted rows from a table's
pages but does not zero the space they leave, so only a rewrite (VACUUM FULL) takes them out
of the table's files. ``full=False`` rewrites the small tables (at most
DEWEE_COMPACTION_REWRITE_MAX_MB with TOAST and indexes: a lock of a moment each), and for
the others runs VACUUM and rebuilds their indexes with REINDEX CONCURRENTLY (new files of
the live rows only; neither blocks reads or writes): a page of those that still holds live
rows keeps a deleted row's bytes in its free space until new rows reuse it. ``full=True``
rewrites every table with its TOAST table and indexes: nothing deleted remains in the data
files, but each table is locked (no reads, no writes) while it is rewritten.
Both end with a switch to a new WAL segment and a CHECKPOINT, after which PostgreSQL
removes the replaced files. ``analyze`` also refreshes the planner's samples of column values
(pg_statistic), which ANALYZE and autovacuum take from the rows.
"""

import logging
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from privacy.models import StorageCompaction
from tenancy.models import AuditAction, AuditEvent, ErasureReceipt

logger = logging.getLogger(__name__)

# The audited actions that delete personal data; a forget of a person leaves a receipt.
ERASING_ACTIONS = [
    AuditAction.MEMORY_DELETE,
    AuditAction.MEMORY_MERGE,
    AuditAction.FACT_DELETE,
    AuditAction.FACTS_FORGET,
    AuditAction.SESSION_DELETE,
    AuditAction.PERSON_FORGET,
]

Progress = Callable[[dict[str, Any]], None]


class _Steps:
    """Runs the compaction's statements one by one, timing each and reporting it."""

    def __init__(self, progress: Progress | None) -> None:
        self.done: list[dict[str, Any]] = []
        self.progress = progress

    def run(self, table: str, step: str, sql: str) -> list[Any]:
        started = time.monotonic()
        with connection.cursor() as cursor:
            cursor.execute(sql)
            rows = list(cursor.fetchall()) if cursor.description else []
        record = {"table": table, "step": step, "seconds": round(time.monotonic() - started, 3)}
        self.done.append(record)
        if self.progress is not None:
            self.progress(record)
        return rows


def compact_storage(
    *,
    full: bool = False,
    analyze: bool = False,
    trigger: str = "manual",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Remove what deleted rows left behind in the database's files (module docstring),
    calling ``progress`` after each step; record the compaction and return its report.
    ``analyze`` (PostgreSQL) first replaces the planner's samples of column values with
    samples of the live rows, then rewrites pg_statistic (superuser only).
    Runs outside any transaction (VACUUM refuses to run in one); each step commits on its
    own, so an interrupted compaction leaves the data as it was and the next one finishes."""
    if connection.in_atomic_block:
        raise RuntimeError("compact_storage runs outside a transaction: VACUUM cannot run in one")
    started_at, started = timezone.now(), time.monotonic()
    steps = _Steps(progress)
    if connection.vendor == "sqlite":
        wal = _compact_sqlite(steps, full=full)
    else:
        wal = _compact_postgres(steps, full=full, analyze=analyze)
    seconds = time.monotonic() - started
    report = {
        "edition": connection.vendor,
        "full": full,
        "analyze": analyze and connection.vendor == "postgresql",
        "steps": steps.done,
        "wal": wal,
        "seconds": round(seconds, 3),
    }
    StorageCompaction.objects.create(
        started_at=started_at,
        finished_at=timezone.now(),
        full=full,
        trigger=trigger,
        duration_ms=round(seconds * 1000),
        report=report,
    )
    logger.info("Storage compacted (%s, full=%s) in %.1f s", connection.vendor, full, seconds)
    return report


def compact_if_erased(
    *, full: bool = False, analyze: bool = False, trigger: str = "schedule"
) -> dict[str, Any]:
    """The scheduled job: compact when anything was erased since the last compaction began
    (or there was none yet); otherwise do nothing, so an idle server is left alone."""
    last = StorageCompaction.objects.first()
    if last is not None and not erased_since(last.started_at):
        return {"skipped": "nothing erased since the last compaction"}
    return compact_storage(full=full, analyze=analyze, trigger=trigger)


def erased_since(moment: datetime) -> bool:
    return (
        AuditEvent.objects.filter(action__in=ERASING_ACTIONS, created_at__gte=moment).exists()
        or ErasureReceipt.objects.filter(created_at__gte=moment).exists()
    )


def _compact_sqlite(steps: _Steps, *, full: bool) -> dict[str, Any]:
    quote = connection.ops.quote_name
    # Set on every connection by the settings; set here too for a database configured
    # otherwise, so the merge below zeroes the segments it frees.
    steps.run("(connection)", "secure_delete", "PRAGMA secure_delete=ON")
    fts_tables = steps.run(
        "(schema)",
        "find full-text indexes",
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name",
    )
    for (name,) in fts_tables:
        # Merges every segment into one: the tombstones of deleted rows and the entries
        # they cancel are dropped, and secure_delete zeroes the old segments' pages.
        steps.run(
            name, "fts optimize", f"INSERT INTO {quote(name)}({quote(name)}) VALUES('optimize')"
        )
    if full:
        steps.run("(database)", "vacuum", "VACUUM")
    [(busy, _frames, _copied)] = steps.run(
        "(database)", "wal checkpoint", "PRAGMA wal_checkpoint(TRUNCATE)"
    )
    wal_file = Path(f"{connection.settings_dict['NAME']}-wal")
    return {
        # Busy: a reader still used old pages, so the -wal file was not emptied; the next
        # compaction (or SQLite's own checkpoint once the readers are gone) finishes.
        "checkpoint": "busy" if busy else "truncated",
        "wal_bytes": wal_file.stat().st_size if wal_file.exists() else 0,
    }


def _compact_postgres(steps: _Steps, *, full: bool, analyze: bool) -> dict[str, Any]:
    quote = connection.ops.quote_name
    tables = sorted(connection.introspection.django_table_names(only_existing=True))
    rewrite_max = int(settings.DEWEE_COMPACTION_REWRITE_MAX_MB) * 1024 * 1024
    # A table partitioned by agent (dewee.partitions) is vacuumed, rebuilt and measured
    # partition by partition: each is locked on its own, and the parent holds no rows.
    parts: dict[str, list[tuple[str, int]]] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.relname, c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_class p ON p.oid = coalesce(pg_partition_root(c.oid), c.oid) "
            "WHERE c.relkind = 'r' AND p.relnamespace = current_schema()::regnamespace "
            "AND p.relname = ANY(%s) ORDER BY 1, 2",
            [tables],
        )
        for table, part, size in cursor.fetchall():
            parts.setdefault(table, []).append((part, size))
    # A configured statement timeout must not cut a rewrite of a large table short.
    steps.run("(connection)", "no statement timeout", "SET statement_timeout = 0")
    try:
        for table in tables:
            if analyze:
                # The planner's samples of column values (pg_statistic) become those of
                # the live rows; the samples they replace are cleared below.
                steps.run(table, "analyze", f"ANALYZE {quote(table)}")
            for part, size in parts.get(table, [(table, rewrite_max + 1)]):
                _compact_table(steps, quote(part), part, size, full=full, rewrite_max=rewrite_max)
        if analyze:
            _privileged(steps, "pg_statistic", "vacuum full", "VACUUM (FULL) pg_statistic")
    finally:
        steps.run("(connection)", "statement timeout", "RESET statement_timeout")
    # Closes the current WAL segment, so that the checkpoint can let go of every segment
    # written before the compaction (docs/PRIVACY.md: what happens to them then). The
    # checkpoint flushes the pages and lets the server unlink the files that the rewrites
    # replaced. Both need rights an application role may lack (superuser, or EXECUTE on
    # pg_switch_wal and the pg_checkpoint role); without them the server does both later.
    return {
        "switch": _privileged(steps, "(wal)", "switch segment", "SELECT pg_switch_wal()"),
        "checkpoint": _privileged(steps, "(database)", "checkpoint", "CHECKPOINT"),
    }


def _compact_table(
    steps: _Steps, quoted: str, table: str, size: int, *, full: bool, rewrite_max: int
) -> None:
    if full:
        steps.run(table, "vacuum full", f"VACUUM (FULL) {quoted}")
    elif size <= rewrite_max:
        # VACUUM leaves a deleted row's bytes in its page's free space; a rewrite writes new
        # files of the live rows only. Small: locked for a moment.
        steps.run(table, "rewrite (small table)", f"VACUUM (FULL) {quoted}")
    else:
        # The vacuum prunes the deleted rows from the heap; it leaves their index entries
        # to the rebuild, which writes new indexes of the live rows only (cleaning an HNSW
        # index in place took longer than rebuilding it).
        steps.run(table, "vacuum", f"VACUUM (INDEX_CLEANUP OFF) {quoted}")
        steps.run(table, "reindex", f"REINDEX TABLE CONCURRENTLY {quoted}")


def _privileged(steps: _Steps, table: str, step: str, sql: str) -> str:
    try:
        steps.run(table, step, sql)
    except DatabaseError as exc:
        logger.warning("Compaction could not %s: %s", step, exc)
        return f"not permitted: {exc}".strip()
    return "done"
