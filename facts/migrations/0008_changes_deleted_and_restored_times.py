"""Facts keep when they were last deleted and last restored, so that "what changed between
T1 and T2" (facts.changes) can date both.

The backfill of ``deleted_at``: a fact deleted before this column is dated from its latest
``fact.delete`` audit event; one whose event is gone keeps NULL (its deletion is undated).
"""

from typing import Any

from django.db import migrations, models
from django.db.models import CharField, OuterRef, Subquery
from django.db.models.functions import Cast


def backfill_deleted_at(apps: Any, schema_editor: Any) -> None:
    Fact = apps.get_model("facts", "Fact")
    AuditEvent = apps.get_model("tenancy", "AuditEvent")
    last_delete = AuditEvent.objects.filter(
        target_type="fact",
        target_id=Cast(OuterRef("pk"), output_field=CharField()),
        action="fact.delete",
    ).order_by("-created_at", "-id")
    Fact.objects.filter(status="deleted", deleted_at__isnull=True).update(
        deleted_at=Subquery(last_delete.values("created_at")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0007_search_key_prefix_indexes"),
        ("tenancy", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="fact",
            name="deleted_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fact",
            name="restored_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(fields=["agent", "recorded_at"], name="fact_agent_recorded_idx"),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("believed_until__isnull", False)),
                fields=["agent", "believed_until"],
                name="fact_agent_believed_until_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("disputed_until__isnull", False)),
                fields=["agent", "disputed_until"],
                name="fact_agent_disputed_until_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("deleted_at__isnull", False)),
                fields=["agent", "deleted_at"],
                name="fact_agent_deleted_at_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("restored_at__isnull", False)),
                fields=["agent", "restored_at"],
                name="fact_agent_restored_at_idx",
            ),
        ),
        migrations.RunPython(backfill_deleted_at, migrations.RunPython.noop),
    ]
