"""A sessions quota's check (memory.quotas) reads the agent's sessions past its running
count's last id: with this index a range of a few entries, without it a read of all the
agent's sessions on PostgreSQL (its index on the agent alone is not in id order)."""

from django.db import migrations, models

from dewee.migration_ops import RunSQLOn

CREATE = "CREATE INDEX {how}session_agent_id_idx ON memory_session (agent_id, id)"


class Migration(migrations.Migration):
    # Built concurrently on PostgreSQL, so the table keeps being written meanwhile.
    atomic = False

    dependencies = [("memory", "0023_queued_job_taken_at")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="session",
                    index=models.Index(fields=["agent", "id"], name="session_agent_id_idx"),
                ),
            ],
            database_operations=[
                # Without IF NOT EXISTS: a build that failed leaves an invalid index of
                # this name, which the next migrate must report rather than take for done.
                RunSQLOn(
                    "postgresql",
                    [CREATE.format(how="CONCURRENTLY ")],
                    ["DROP INDEX CONCURRENTLY IF EXISTS session_agent_id_idx"],
                ),
                RunSQLOn(
                    "sqlite", [CREATE.format(how="")], ["DROP INDEX IF EXISTS session_agent_id_idx"]
                ),
            ],
        ),
    ]
