"""Facts belong to agents, which now live in the tenancy app. No table changes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0003_factsource_memory"),
        ("tenancy", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are: only Django's idea of which app owns them moves.
            state_operations=[
                migrations.AlterField(
                    model_name="fact",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="facts",
                        to="tenancy.agent",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]
