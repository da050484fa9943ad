"""PostgreSQL: the audit log hash-partitioned by workspace (an event's agent may be empty)
into DEWEE_DB_PARTITIONS partitions (dewee.partitions). The table is rebuilt: its writes
wait for the copy. Undone, it is one plain table again. Nothing changes on SQLite."""

from django.db import migrations

from dewee.migration_ops import partitioning


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0015_quota_kinds_sessions_facts_entities")]

    operations = [partitioning("memory_auditevent", "workspace_id")]
