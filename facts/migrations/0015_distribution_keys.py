"""Fact periods and sources keyed as Citus needs of tables it distributes by agent
(docs/SCALING.md): the open-period rule holds the agent, and on PostgreSQL their primary
keys are (agent, id) (dewee.partitions.distribution_key). The keys' indexes are built under
the migration's lock."""

from django.db import migrations, models

from dewee.migration_ops import keyed_by


class Migration(migrations.Migration):
    dependencies = [("facts", "0014_fact_partitions")]

    operations = [
        migrations.RemoveConstraint(model_name="factperiod", name="fact_one_open_period"),
        migrations.AddConstraint(
            model_name="factperiod",
            constraint=models.UniqueConstraint(
                condition=models.Q(("ended_at__isnull", True)),
                fields=("fact", "agent"),
                name="fact_one_open_period",
            ),
        ),
        keyed_by("facts_factperiod", "agent_id"),
        keyed_by("facts_factsource", "agent_id"),
    ]
