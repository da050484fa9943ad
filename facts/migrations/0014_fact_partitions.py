"""PostgreSQL: facts, every version of each, hash-partitioned by agent into
DEWEE_DB_PARTITIONS partitions (dewee.partitions); their periods and sources point at them
by (agent, fact). The table is rebuilt: its writes wait for the copy. Undone, it is one
plain table again. Nothing changes on SQLite."""

from django.db import migrations

from dewee.migration_ops import partitioning


class Migration(migrations.Migration):
    dependencies = [("facts", "0013_factsource_agent")]

    operations = [partitioning("facts_fact", "agent_id")]
