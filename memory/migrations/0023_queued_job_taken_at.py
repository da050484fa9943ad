from django.db import migrations, models


class Migration(migrations.Migration):
    """When a worker took a queued job: a row taken and silent past the heartbeat rule's
    stale time no longer holds up a trigger of its job and scope."""

    dependencies = [
        ("memory", "0022_maintenance_run_trigger_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="queuedjob",
            name="taken_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
