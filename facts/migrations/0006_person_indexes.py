from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("facts", "0005_freshness_and_dispute_time"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(fields=["user_ref", "status"], name="fact_user_status_idx"),
        ),
    ]
