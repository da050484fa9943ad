"""The audit log's actor filter matches any part of the actor, in any case:
``UPPER(actor::text) LIKE '%ANA%'`` on PostgreSQL (Django's icontains). A trigram index on
that expression answers a rare actor without reading the workspace's every event, and
gives the planner statistics on the expression: without them it took a common actor's
match for a few rows and scanned the whole table to sort them (370 ms at a million
events; 10 ms with the index). Built concurrently, so the log keeps being written. Only on
PostgreSQL: SQLite has no trigram index, and a workspace's log there is read in id order."""

from django.db import migrations

from dewee.migration_ops import RunSQLOn


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("tenancy", "0013_reconfirm_events_of_their_own")]

    operations = [
        # Not TrigramExtension: its reverse would drop the extension that facts' value
        # search index (facts 0002) also needs.
        RunSQLOn("postgresql", ["CREATE EXTENSION IF NOT EXISTS pg_trgm"], migrations.RunSQL.noop),
        RunSQLOn(
            "postgresql",
            # Without IF NOT EXISTS: a build that failed leaves an invalid index of this
            # name, which the next migrate must report rather than take for done.
            [
                "CREATE INDEX CONCURRENTLY audit_actor_trgm_idx "
                "ON memory_auditevent USING gin (UPPER(actor::text) gin_trgm_ops)"
            ],
            ["DROP INDEX CONCURRENTLY IF EXISTS audit_actor_trgm_idx"],
        ),
    ]
