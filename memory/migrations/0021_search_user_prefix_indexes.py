"""The dashboard's search box finds user ids by their start, whatever the case, among
memories and sessions too: ``UPPER(user_ref::text) LIKE 'AN%'`` on PostgreSQL (Django's
istartswith), served by a btree on the same expression with the pattern operator class (as
facts' 0006_search_key_prefix_indexes). Only on PostgreSQL: nothing changes on SQLite's
memory_memory, whose full-text triggers a table rebuild would drop."""

from django.db import migrations

from dewee.migration_ops import RunSQLOn

INDEXES = {
    "memory_user_prefix_idx": "memory_memory",
    "session_user_prefix_idx": "memory_session",
}


class Migration(migrations.Migration):
    dependencies = [("memory", "0020_person_indexes")]

    operations = [
        RunSQLOn(
            "postgresql",
            [
                f"CREATE INDEX IF NOT EXISTS {name} ON {table} "
                "(UPPER(user_ref::text) text_pattern_ops)"
                for name, table in INDEXES.items()
            ],
            [f"DROP INDEX IF EXISTS {name}" for name in INDEXES],
        ),
    ]
