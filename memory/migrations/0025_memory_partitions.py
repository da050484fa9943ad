"""PostgreSQL: the memories table, with its vectors and keyword index, hash-partitioned by
agent into DEWEE_DB_PARTITIONS partitions (dewee.partitions). Each partition has its own
HNSW, full-text and B-tree indexes, so a recall, which always names its agent, reads one
partition's. The table is rebuilt: its writes wait for the copy (docs/SCALING.md gives the
time per million rows). Undone, it is one plain table again. Nothing changes on SQLite."""

from django.db import migrations

from dewee.migration_ops import partitioning


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0024_session_agent_id_index"),
        # Fact sources carry the agent the partitioned table's key needs.
        ("facts", "0013_factsource_agent"),
    ]

    operations = [partitioning("memory_memory", "agent_id")]
