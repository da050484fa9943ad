"""The tables of an agent's memory keyed as Citus needs of tables it distributes by agent
(docs/SCALING.md): their unique constraints hold the agent, and on PostgreSQL their primary
keys are (agent, id) and the foreign keys among them (agent, ...) (dewee.partitions.
distribution_key). The keys' indexes are built under the migration's lock."""

from django.db import migrations, models

from dewee.migration_ops import keyed_by

KEYED = [
    "memory_session",
    "memory_memorytag",
    "memory_memoryfeedback",
    "memory_importancesnapshot",
    "memory_entity",
    "memory_entitymention",
    "memory_memoryedge",
    "memory_graphprogress",
]


class Migration(migrations.Migration):
    dependencies = [("memory", "0025_memory_partitions")]

    operations = [
        migrations.RemoveConstraint(model_name="entitymention", name="mention_entity_memory"),
        migrations.RemoveConstraint(model_name="memoryedge", name="memory_edge_unique"),
        migrations.RemoveConstraint(model_name="memorytag", name="memory_tag_unique"),
        migrations.AddConstraint(
            model_name="entitymention",
            constraint=models.UniqueConstraint(
                fields=("entity", "memory", "agent"), name="mention_entity_memory"
            ),
        ),
        migrations.AddConstraint(
            model_name="memoryedge",
            constraint=models.UniqueConstraint(
                fields=("source", "target", "type", "agent"), name="memory_edge_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="memorytag",
            constraint=models.UniqueConstraint(
                fields=("memory", "name", "agent"), name="memory_tag_unique"
            ),
        ),
        *(keyed_by(table, "agent_id") for table in KEYED),
    ]
