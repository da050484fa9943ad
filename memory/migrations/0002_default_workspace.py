from django.db import migrations


def create_default_workspace(apps, schema_editor):  # type: ignore[no-untyped-def]
    Workspace = apps.get_model("memory", "Workspace")
    Workspace.objects.get_or_create(slug="default", defaults={"name": "Default"})


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]

    operations = [migrations.RunPython(create_default_workspace, migrations.RunPython.noop)]
