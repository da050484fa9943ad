from django.db import migrations

from dewee.migration_ops import RunSQLOn


class Migration(migrations.Migration):
    dependencies = [("facts", "0001_initial")]

    operations = [
        # Value search is a case-insensitive substring match (UPPER(value) LIKE UPPER(...));
        # a trigram index answers it without scanning every fact of the agent.
        RunSQLOn(
            "postgresql",
            [
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                "CREATE INDEX fact_value_trgm_idx ON facts_fact "
                "USING gin (UPPER(value) gin_trgm_ops)",
            ],
            ["DROP INDEX IF EXISTS fact_value_trgm_idx"],
        ),
    ]
