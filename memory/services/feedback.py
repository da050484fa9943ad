"""Feedback on a memory: upvote, downvote, flag (and unflag). Each is recorded with the
importance before and after it (reads of the record: memory.feedback_reports)."""

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from memory.exceptions import MemoryNotFound
from memory.models import FeedbackKind, Memory, MemoryFeedback
from tenancy.validation import clean_choice, clean_text

# An upvote adds a step and a share of the current importance, so well-liked memories keep
# climbing but more slowly near the top; a downvote takes a fixed step.
UPVOTE_STEP = 0.05
UPVOTE_SHARE = 0.05
DOWNVOTE_STEP = 0.15
NOTE_MAX_CHARS = 1000


@dataclass(frozen=True)
class FeedbackResult:
    memory: Memory
    feedback: MemoryFeedback


def importance_after(kind: str, importance: float) -> float:
    """upvote: + UPVOTE_STEP + UPVOTE_SHARE x importance, at most 1; downvote: -
    DOWNVOTE_STEP, at least 0; flag and unflag: unchanged."""
    if kind == FeedbackKind.UPVOTE:
        return min(1.0, importance + UPVOTE_STEP + UPVOTE_SHARE * importance)
    if kind == FeedbackKind.DOWNVOTE:
        return max(0.0, importance - DOWNVOTE_STEP)
    return importance


@transaction.atomic
def record_feedback(
    *,
    memory: Memory,
    kind: str,
    actor: str,
    note: str = "",
    now: datetime | None = None,
) -> FeedbackResult:
    """Apply one vote or flag to ``memory`` and record it.

    - upvote: importance_after(); counts as an access (access_count + 1, last_accessed_at).
    - downvote: importance_after().
    - flag: marks the memory irrelevant (``flagged_at``; recall demotes it); importance is
      left alone. unflag takes a flag back (a mistaken one, or the memory matters again).

    A vote restarts decay from the new importance (decay_base, decay_from = now), as an
    explicit change of importance does. The row is locked while it is read and written, so
    concurrent votes on one memory all count."""
    kind = clean_choice(kind, field="kind", choices=FeedbackKind.values)
    note = clean_text(note, field="note", max_chars=NOTE_MAX_CHARS, required=False)
    now = now or timezone.now()
    rows = Memory.objects.select_for_update().only("pk", "importance").filter(pk=memory.pk)
    if (locked := rows.first()) is None:  # deleted (or merged away) since it was loaded
        raise MemoryNotFound(f"Memory {memory.pk} not found")
    before = locked.importance
    after = importance_after(kind, before)
    changes: dict[str, object] = {}
    if kind == FeedbackKind.FLAG:
        changes["flagged_at"] = now
    elif kind == FeedbackKind.UNFLAG:
        changes["flagged_at"] = None
    else:
        changes |= {"importance": after, "decay_base": after, "decay_from": now}
    if kind == FeedbackKind.UPVOTE:
        changes |= {"access_count": F("access_count") + 1, "last_accessed_at": now}
    Memory.objects.filter(pk=memory.pk).update(**changes)
    feedback = MemoryFeedback.objects.create(
        memory_id=memory.pk,
        agent_id=memory.agent_id,
        kind=kind,
        actor=actor,
        note=note,
        importance_before=before,
        importance_after=after,
    )
    memory.refresh_from_db(
        fields=[
            "importance",
            "decay_base",
            "decay_from",
            "flagged_at",
            "access_count",
            "last_accessed_at",
        ]
    )
    return FeedbackResult(memory=memory, feedback=feedback)
