"""Workspaces, members, agents, API keys, the audit log and erasure receipts move here from
the memory app: their tables and rows stay as they are (memory 0013 lets go of them)."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ["workspace", "workspacemember", "agent", "apikey", "auditevent", "erasurereceipt"]


def _relabel(apps, schema_editor, old: str, new: str) -> None:
    # Permissions granted on these models, and admin log entries, point at their content
    # types: relabel those instead of letting new ones be made beside them.
    content_types = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    content_types.objects.using(db).filter(app_label=old, model__in=MOVED).update(app_label=new)


def move_content_types(apps, schema_editor):
    _relabel(apps, schema_editor, "memory", "tenancy")


def move_content_types_back(apps, schema_editor):
    _relabel(apps, schema_editor, "tenancy", "memory")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("contenttypes", "0002_remove_content_type_name"),
        ("memory", "0012_run_heartbeats"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are: only Django's idea of which app owns them moves.
            state_operations=[
                migrations.CreateModel(
                    name="Agent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("agent_id", models.CharField(max_length=241, unique=True)),
                        ("name", models.CharField(blank=True, max_length=200)),
                        ("metadata", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("embedding_model", models.CharField(blank=True, max_length=200)),
                        ("embedding_dim", models.PositiveIntegerField(blank=True, null=True)),
                        ("memory_version", models.BigIntegerField(default=0)),
                        ("memory_policy", models.JSONField(blank=True, default=dict)),
                    ],
                    options={
                        "db_table": "memory_agent",
                        "ordering": ["agent_id"],
                    },
                ),
                migrations.CreateModel(
                    name="Workspace",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("slug", models.SlugField(max_length=64, unique=True)),
                        ("name", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "memory_workspace",
                        "ordering": ["slug"],
                    },
                ),
                migrations.CreateModel(
                    name="ErasureReceipt",
                    fields=[
                        (
                            "id",
                            models.UUIDField(
                                default=uuid.uuid4,
                                editable=False,
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        ("agent_ref", models.CharField(max_length=241)),
                        (
                            "scope",
                            models.JSONField(help_text="What was erased, e.g. {'user': 'u1'}."),
                        ),
                        ("counts", models.JSONField()),
                        ("actor", models.CharField(max_length=255)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "agent",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="tenancy.agent",
                            ),
                        ),
                        (
                            "workspace",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tenancy.workspace",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_erasurereceipt",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="ApiKey",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("name", models.CharField(max_length=200)),
                        (
                            "prefix",
                            models.CharField(
                                help_text="The start of the key, for recognising it.", max_length=16
                            ),
                        ),
                        ("key_hash", models.CharField(max_length=64, unique=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "workspace",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="api_keys",
                                to="tenancy.workspace",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "API key",
                        "db_table": "memory_apikey",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.AddField(
                    model_name="agent",
                    name="workspace",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="agents",
                        to="tenancy.workspace",
                    ),
                ),
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("actor", models.CharField(max_length=255)),
                        (
                            "action",
                            models.CharField(
                                choices=[
                                    ("fact.resolve", "Fact resolved"),
                                    ("fact.delete", "Fact deleted"),
                                    ("facts.forget", "Facts forgotten"),
                                    ("memory.delete", "Memories deleted"),
                                    ("memory.merge", "Memories merged"),
                                    ("policy.change", "Memory policy changed"),
                                    ("member.add", "Member added"),
                                    ("member.role", "Member role changed"),
                                    ("member.remove", "Member removed"),
                                    ("key.create", "API key created"),
                                    ("key.revoke", "API key revoked"),
                                ],
                                max_length=32,
                            ),
                        ),
                        ("target_type", models.CharField(max_length=32)),
                        ("target_id", models.CharField(blank=True, max_length=64)),
                        ("details", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        (
                            "agent",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tenancy.agent",
                            ),
                        ),
                        (
                            "workspace",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="tenancy.workspace",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_auditevent",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["target_type", "target_id"], name="audit_target_idx"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="WorkspaceMember",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "role",
                            models.CharField(
                                choices=[("manager", "Manager"), ("viewer", "Viewer")],
                                default="viewer",
                                max_length=16,
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="workspace_memberships",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "workspace",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="members",
                                to="tenancy.workspace",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memory_workspacemember",
                        "ordering": ["workspace__slug", "user_id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "workspace"), name="workspace_member_unique"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back, elidable=True),
    ]
