"""Dewee's own table: the rate limits' counters on a database (dewee.rate_counters)."""

from django.db import models

from dewee.rate_counters import TABLE


class RateCounter(models.Model):
    """One rate limit's count in one window; written and read by
    ``dewee.rate_counters.DatabaseCounters`` in SQL only (one atomic statement each)."""

    key = models.CharField(max_length=255, primary_key=True)
    value = models.BigIntegerField()
    # Seconds since the epoch (time.time()); infinity for a counter that never expires.
    expires = models.FloatField()

    class Meta:
        db_table = TABLE
        indexes = [models.Index(fields=["expires"], name="rate_counter_expires_idx")]

    def __str__(self) -> str:
        return f"{self.key} = {self.value}"
