"""PostgreSQL: the keyword index takes each memory into its tree at once (fastupdate off).

With GIN's default, new entries wait in a pending list until autovacuum merges them, and
every search reads the whole list (up to gin_pending_list_limit, 4 MB): measured on 110,000
memories stored in one go, a search for a word in 20 of them read 321 pages where the merged
index reads 26 (tests/memory/test_keyword_plan.py), and how long a recall took depended on
when autovacuum last ran. Recall reads the index on every agent turn; a store writes it once.
The list already pending is merged here. Partitions' indexes (dewee.partitions) take the
setting each."""

from typing import Any

from django.db import migrations

INDEXES = (
    "SELECT c.relname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
    "WHERE c.relkind = 'i' AND a.amname = 'gin' AND c.relname LIKE 'memory_search_idx%%' "
    "AND c.relnamespace = current_schema()::regnamespace"
)


def _set_fastupdate(value: str) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(INDEXES)
            for (name,) in cursor.fetchall():
                cursor.execute(f'ALTER INDEX "{name}" SET (fastupdate = {value})')
                if value == "off":
                    cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", (name,))

    return run


class Migration(migrations.Migration):
    dependencies = [("memory", "0026_distribution_keys")]

    operations = [migrations.RunPython(_set_fastupdate("off"), _set_fastupdate("on"))]
