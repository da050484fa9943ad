"""A fact's sources carry its agent: the memory a source names is then found by (agent,
memory), the key of the memories table once it is partitioned by agent (memory 0025)."""

import django.db.models.deletion
from django.db import migrations, models

BACKFILL = (
    "UPDATE facts_factsource SET agent_id = "
    "(SELECT agent_id FROM facts_fact WHERE facts_fact.id = facts_factsource.fact_id)"
)


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0012_fact_agent_id_index"),
        ("tenancy", "0015_quota_kinds_sessions_facts_entities"),
    ]

    operations = [
        migrations.AddField(
            model_name="factsource",
            name="agent",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tenancy.agent",
            ),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="factsource",
            name="agent",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="tenancy.agent",
            ),
        ),
    ]
