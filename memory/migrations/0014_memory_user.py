"""A memory names the user it is about. Memories stored before take their session's user."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def users_from_sessions(apps, schema_editor):
    memories = apps.get_model("memory", "Memory").objects.using(schema_editor.connection.alias)
    sessions = apps.get_model("memory", "Session").objects.filter(pk=OuterRef("session_id"))
    memories.filter(session__isnull=False).exclude(session__user_ref="").update(
        user_ref=Subquery(sessions.values("user_ref")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0013_tenancy_models_moved"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="user_ref",
            field=models.CharField(blank=True, max_length=255, null=True),
        ),
        migrations.RunPython(users_from_sessions, migrations.RunPython.noop, elidable=True),
    ]
