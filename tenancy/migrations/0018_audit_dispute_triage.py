"""Audit actions for the review shared by a team: a dispute assigned, a dispute snoozed."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tenancy", "0017_audit_member_invite"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="action",
            field=models.CharField(
                choices=[
                    ("fact.resolve", "Fact resolved"),
                    ("fact.delete", "Fact deleted"),
                    ("fact.end", "Fact ended"),
                    ("fact.restore", "Fact restored"),
                    ("fact.undo", "Resolution undone"),
                    ("fact.reopen", "Fact reopened"),
                    ("fact.reconfirm", "Fact re-confirmed"),
                    ("fact.assign", "Dispute assigned"),
                    ("fact.snooze", "Dispute snoozed"),
                    ("facts.forget", "Facts forgotten"),
                    ("memory.delete", "Memories deleted"),
                    ("memory.update", "Memory edited"),
                    ("memory.merge", "Memories merged"),
                    ("memory.link", "Memories linked"),
                    ("memory.unlink", "Memories unlinked"),
                    ("session.delete", "Session deleted"),
                    ("person.forget", "Person erased"),
                    ("policy.change", "Memory policy changed"),
                    ("agent.rename", "Agent renamed"),
                    ("member.add", "Member added"),
                    ("member.role", "Member role changed"),
                    ("member.remove", "Member removed"),
                    ("member.invite", "Sign-in link renewed"),
                    ("key.create", "API key created"),
                    ("key.revoke", "API key revoked"),
                    ("key.update", "API key changed"),
                    ("quota.set", "Quota changed"),
                ],
                max_length=32,
            ),
        ),
    ]
