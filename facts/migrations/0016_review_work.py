"""The review shared by a team: a disputed fact's assignee and snooze, and a comment thread
on any fact. On PostgreSQL both tables are keyed by (agent, id) and point at their fact by
(agent, fact), as facts are keyed (dewee.partitions); Django's own key on ``fact`` is left
out for that reason. New tables: nothing is locked for long."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from dewee.migration_ops import RunSQLOn, keyed_by


def _fact_key(table: str) -> RunSQLOn:
    name = f"{table}_fact_fk"
    return RunSQLOn(
        "postgresql",
        f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" FOREIGN KEY ("agent_id", "fact_id") '
        'REFERENCES "facts_fact" ("agent_id", "id") DEFERRABLE INITIALLY DEFERRED',
        f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"',
    )


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0015_distribution_keys"),
        ("tenancy", "0017_audit_member_invite"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DisputeTriage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("snoozed_until", models.DateTimeField(blank=True, null=True)),
                ("updated_at", models.DateTimeField()),
                ("updated_by", models.CharField(blank=True, max_length=255)),
                (
                    "agent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                (
                    "assignee",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "fact",
                    models.ForeignKey(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="triage",
                        to="facts.fact",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["assignee", "fact"], name="dispute_triage_assignee_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("fact", "agent"), name="dispute_triage_one_per_fact"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="FactComment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("author_name", models.CharField(max_length=255)),
                ("body", models.TextField()),
                ("created_at", models.DateTimeField()),
                (
                    "agent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                (
                    "author",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "fact",
                    models.ForeignKey(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="comments",
                        to="facts.fact",
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "id"],
                "indexes": [
                    models.Index(fields=["fact", "created_at"], name="fact_comment_fact_idx")
                ],
            },
        ),
        _fact_key("facts_disputetriage"),
        _fact_key("facts_factcomment"),
        keyed_by("facts_disputetriage", "agent_id"),
        keyed_by("facts_factcomment", "agent_id"),
    ]
