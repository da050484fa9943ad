"""Quotas may also limit an agent's or a workspace's sessions, facts and entities
(memory.quotas). Only the field's choices change: no SQL on either engine."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0014_audit_actor_trigram_index")]

    operations = [
        migrations.AlterField(
            model_name="quota",
            name="kind",
            field=models.CharField(
                choices=[
                    ("memories", "Memories"),
                    ("storage_bytes", "Storage bytes"),
                    ("metadata_bytes", "Metadata bytes"),
                    ("sessions", "Sessions"),
                    ("facts", "Facts"),
                    ("entities", "Entities"),
                ],
                max_length=16,
            ),
        ),
    ]
