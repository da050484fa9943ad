from django.db import models


class StorageCompaction(models.Model):
    """One compaction of the database's storage (privacy.compaction): when, how, and what
    each step took. The scheduled job compacts only when something was erased since the
    last one."""

    started_at = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField()
    full = models.BooleanField(default=False)
    trigger = models.CharField(max_length=20)
    duration_ms = models.PositiveIntegerField()
    # {"edition": ..., "steps": [{"table", "step", "seconds"}], "wal": {...}}: no content.
    report = models.JSONField(default=dict)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.started_at:%Y-%m-%d %H:%M} {'full' if self.full else 'compaction'}"
