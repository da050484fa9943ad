"""The dashboard's user, subject and predicate filters match by prefix, whatever the case:
``UPPER(col::text) LIKE 'AN%'`` on PostgreSQL (Django's istartswith). A btree on the same
expression with the pattern operator class turns the LIKE into a range scan under any
collation. Not per agent: the same index serves one agent's list (the agent is then a
filter on the few rows of the prefix) and "all agents". SQLite has no expression to match:
its LIKE reads the agent's rows through the per-agent indexes it already has."""

from django.db import migrations

from dewee.migration_ops import RunSQLOn

COLUMNS = {"user_ref": "fact_user_prefix_idx", "subject": "fact_subject_prefix_idx"}
COLUMNS["predicate"] = "fact_predicate_prefix_idx"


class Migration(migrations.Migration):
    dependencies = [("facts", "0006_person_indexes")]

    operations = [
        RunSQLOn(
            "postgresql",
            [
                f"CREATE INDEX IF NOT EXISTS {name} ON facts_fact "
                f"(UPPER({column}::text) text_pattern_ops)"
                for column, name in COLUMNS.items()
            ],
            [f"DROP INDEX IF EXISTS {name}" for name in COLUMNS.values()],
        ),
    ]
