"""The maintenance job that ends expired facts (for agents whose policy asks for it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0014_memory_user"),
    ]

    operations = [
        migrations.AlterField(
            model_name="maintenancerun",
            name="job",
            field=models.CharField(
                choices=[
                    ("decay", "Decay"),
                    ("expiry", "Expiry"),
                    ("idle_sessions", "Idle sessions"),
                    ("dedup", "AutoPilot dedup"),
                    ("consolidate", "AutoPilot consolidation"),
                    ("fact_freshness", "Expired facts ended"),
                ],
                max_length=32,
            ),
        ),
    ]
