"""The tenancy models now belong to the tenancy app (tenancy 0001); memory's foreign keys
point at them there. No table changes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0004_agent_in_tenancy"),
        ("memory", "0012_run_heartbeats"),
        ("tenancy", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # The tables stay as they are: only Django's idea of which app owns them moves.
            state_operations=[
                migrations.RemoveField(
                    model_name="agent",
                    name="workspace",
                ),
                migrations.AlterField(
                    model_name="memoryfeedback",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                migrations.AlterField(
                    model_name="memory",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memories",
                        to="tenancy.agent",
                    ),
                ),
                migrations.AlterField(
                    model_name="session",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sessions",
                        to="tenancy.agent",
                    ),
                ),
                migrations.AlterField(
                    model_name="memorytag",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                migrations.RemoveField(
                    model_name="erasurereceipt",
                    name="agent",
                ),
                migrations.AlterField(
                    model_name="maintenancerun",
                    name="agent",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                migrations.AlterField(
                    model_name="importancesnapshot",
                    name="agent",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tenancy.agent",
                    ),
                ),
                migrations.RemoveField(
                    model_name="apikey",
                    name="workspace",
                ),
                migrations.RemoveIndex(
                    model_name="auditevent",
                    name="audit_target_idx",
                ),
                migrations.RemoveField(
                    model_name="erasurereceipt",
                    name="workspace",
                ),
                migrations.AlterField(
                    model_name="maintenancerun",
                    name="workspace",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="tenancy.workspace",
                    ),
                ),
                migrations.RemoveConstraint(
                    model_name="workspacemember",
                    name="workspace_member_unique",
                ),
                migrations.DeleteModel(
                    name="ApiKey",
                ),
                migrations.RemoveField(
                    model_name="auditevent",
                    name="agent",
                ),
                migrations.RemoveField(
                    model_name="auditevent",
                    name="workspace",
                ),
                migrations.DeleteModel(
                    name="ErasureReceipt",
                ),
                migrations.RemoveField(
                    model_name="workspacemember",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="workspacemember",
                    name="workspace",
                ),
                migrations.DeleteModel(
                    name="Agent",
                ),
                migrations.DeleteModel(
                    name="AuditEvent",
                ),
                migrations.DeleteModel(
                    name="Workspace",
                ),
                migrations.DeleteModel(
                    name="WorkspaceMember",
                ),
            ],
            database_operations=[],
        ),
    ]
