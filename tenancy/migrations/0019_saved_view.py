"""A person's saved views of the dashboard's lists (tenancy.preferences): a small table of
its own, local to the coordinator (dewee.distribution)."""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tenancy", "0018_audit_dispute_triage"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SavedView",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("page", models.CharField(max_length=64)),
                ("name", models.CharField(max_length=80)),
                ("query", models.CharField(blank=True, max_length=2000)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="saved_views",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["page", "name", "id"],
                "constraints": [
                    models.UniqueConstraint(
                        models.F("user"),
                        models.F("page"),
                        django.db.models.functions.text.Lower("name"),
                        name="saved_view_name_unique_per_page",
                    )
                ],
            },
        ),
    ]
