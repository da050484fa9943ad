"""Re-confirmations were audited as ``fact.resolve`` events with details action
"reconfirm"; they have their own action now (an undo took them for a decision and failed)."""

from django.db import migrations


def own_action(apps, schema_editor):
    AuditEvent = apps.get_model("tenancy", "AuditEvent")
    AuditEvent.objects.filter(action="fact.resolve", details__action="reconfirm").update(
        action="fact.reconfirm"
    )


def as_before(apps, schema_editor):
    AuditEvent = apps.get_model("tenancy", "AuditEvent")
    AuditEvent.objects.filter(action="fact.reconfirm").update(action="fact.resolve")


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0012_audit_action_agent_rename")]

    operations = [migrations.RunPython(own_action, as_before)]
