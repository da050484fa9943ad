"""django-q2 tasks of the privacy app."""

from typing import Any

from django.conf import settings

from privacy.compaction import compact_if_erased


def compact_after_erasures() -> dict[str, Any]:
    """The schedule (DEWEE_COMPACTION_INTERVAL_SECS): compact the storage when anything
    was erased since the last compaction."""
    return compact_if_erased(
        full=settings.DEWEE_COMPACTION_FULL,
        analyze=settings.DEWEE_COMPACTION_ANALYZE,
        trigger="schedule",
    )
