"""A facts quota's check (memory.quotas) reads the agent's facts past its running count's
last id: with this index a range of a few entries, without it a read of all the agent's
facts on PostgreSQL (its indexes on the agent are not in id order)."""

from django.db import migrations, models

from dewee.migration_ops import RunSQLOn

CREATE = "CREATE INDEX {how}fact_agent_id_idx ON facts_fact (agent_id, id)"


class Migration(migrations.Migration):
    # Built concurrently on PostgreSQL, so the table keeps being written meanwhile.
    atomic = False

    dependencies = [("facts", "0011_disputed_predicate_prefix_index")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="fact",
                    index=models.Index(fields=["agent", "id"], name="fact_agent_id_idx"),
                ),
            ],
            database_operations=[
                # Without IF NOT EXISTS: a build that failed leaves an invalid index of
                # this name, which the next migrate must report rather than take for done.
                RunSQLOn(
                    "postgresql",
                    [CREATE.format(how="CONCURRENTLY ")],
                    ["DROP INDEX CONCURRENTLY IF EXISTS fact_agent_id_idx"],
                ),
                RunSQLOn(
                    "sqlite", [CREATE.format(how="")], ["DROP INDEX IF EXISTS fact_agent_id_idx"]
                ),
            ],
        ),
    ]
