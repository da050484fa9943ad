"""Facts count how often they are served to an agent (freshness), and a disputed value
keeps when it stopped waiting (point-in-time lists show disputes that existed then).

The backfill of ``disputed_until``: an accepted value stopped waiting when it became
believed (``believed_from`` later than ``recorded_at``; a value current from the start has
them equal); a rejected value, or one deleted while it waited, when the audit event that
settled it was written, else (no event kept) at its recording, so it is not shown as
disputed for longer than it can be known to have been.
"""

from typing import Any

from django.db import migrations, models
from django.db.models import F


def backfill_disputed_until(apps: Any, schema_editor: Any) -> None:
    Fact = apps.get_model("facts", "Fact")
    AuditEvent = apps.get_model("tenancy", "AuditEvent")
    Fact.objects.filter(believed_from__gt=F("recorded_at")).update(
        disputed_until=F("believed_from")
    )
    settled = Fact.objects.filter(believed_from__isnull=True).exclude(status="disputed")
    for fact in settled.only("pk", "recorded_at").iterator():
        event = (
            AuditEvent.objects.filter(
                target_type="fact",
                target_id=str(fact.pk),
                action__in=["fact.resolve", "fact.delete"],
            )
            .order_by("created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        Fact.objects.filter(pk=fact.pk).update(disputed_until=event or fact.recorded_at)


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0004_agent_in_tenancy"),
        ("tenancy", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="fact",
            name="access_count",
            field=models.PositiveIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="fact",
            name="disputed_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fact",
            name="last_accessed_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(backfill_disputed_until, migrations.RunPython.noop),
    ]
