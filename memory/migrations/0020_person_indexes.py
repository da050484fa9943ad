from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0019_memory_sizes_for_quotas"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["user_ref", "-id"], name="memory_user_idx"),
        ),
        migrations.AddIndex(
            model_name="session",
            index=models.Index(fields=["user_ref", "-id"], name="session_user_idx"),
        ),
    ]
