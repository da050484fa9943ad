from django.db import migrations

from dewee.migration_ops import RunSQLOn


class Migration(migrations.Migration):
    dependencies = [("memory", "0005_alter_auditevent_action")]

    operations = [
        # Every recall updates access counts. With room left on each page those updates are
        # HOT (no new entries in the HNSW and GIN indexes), which keeps them cheap.
        RunSQLOn(
            "postgresql",
            ["ALTER TABLE memory_memory SET (fillfactor = 80)"],
            ["ALTER TABLE memory_memory RESET (fillfactor)"],
        ),
    ]
