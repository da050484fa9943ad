"""Facts learned from what agents store. Each new memory about a user (its own user, or its
session's) is checked against the facts the agent holds about that user, and what it says
is applied through the fact services (facts.services.check_text): the trust rules decide,
and every fact learned cites the memory, so deleting or expiring the memory erases the facts
learned only from it.

The memory app knows nothing of this: it sends memory.signals.memories_stored after each
store, and ``memories_stored_listener`` (connected in FactsConfig.ready) listens. The work is
done by the worker (facts.tasks.learn_facts) unless the store asked for it inline.
"""

import logging
import re
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django_q.tasks import async_task

from dewee.errors import DeweeError
from facts.models import SourceKind
from facts.services import CheckResult, SourceInput, check_text
from language.entities import speaker_label
from memory.models import SUMMARY_TAG, Memory
from memory.signals import Learning

logger = logging.getLogger(__name__)

LEARNING_ACTOR = "system:learning"
# Speaker labels that mean the user whatever their id is.
USER_SPEAKERS = frozenset({"user", "me", "human", "customer", "client"})
# A turn labelled by the user themself in any case ("ana: ...", "[8 May] me: ..."), which
# language.entities.speaker_label reads only when capitalised (a lowercase word before a colon
# is a label, "fyi: ...", far more often than a name).
_OWN_LABEL = r"\s*(?:\[[^\]\n]{1,60}\]\s*)?(?:%s)\s?:[ \t]+(?=\S)"


def users_words(memory: Memory) -> str | None:
    """What the memory's user said in it: its content without a leading speaker label.
    None when another speaker is named (the assistant, someone else): their words are not
    the user's statements about themselves. The speaker is the product's one reading of it
    (language.entities.speaker_label: a capitalised name or a transcript's role), so a label
    ("fyi: ...", "Update: ..."), a time or a colon further on is no speaker."""
    names = sorted(USER_SPEAKERS | ({memory.user_ref} if memory.user_ref else set()))
    own = re.compile(_OWN_LABEL % "|".join(map(re.escape, names)), re.IGNORECASE)
    if (match := own.match(memory.content)) is not None:
        return memory.content[match.end() :]
    found = speaker_label(memory.content)
    if found is None:
        return memory.content
    speaker, words_start = found
    if speaker.casefold() in USER_SPEAKERS:
        return memory.content[words_start:]
    return None


def source_of(memory: Memory, tags: Sequence[str]) -> SourceInput:
    """How a fact learned from ``memory`` cites it: a session's summary, a channel message
    (a memory whose metadata names its channel) or a memory document."""
    if SUMMARY_TAG in tags:
        kind = SourceKind.CONVERSATION_SUMMARY
    elif isinstance(memory.metadata, dict) and memory.metadata.get("channel"):
        kind = SourceKind.CHANNEL_MESSAGE
    else:
        kind = SourceKind.MEMORY_DOCUMENT
    return SourceInput(kind=kind, reference=f"memory:{memory.pk}", memory_id=memory.pk)


def learn_from_memory(memory: Memory) -> CheckResult | None:
    """Apply what ``memory`` says about its user to the facts its agent holds; None when it
    is about no user or is not the user's words. All of it or nothing."""
    if not memory.user_ref:
        return None
    text = users_words(memory)
    if not text or not text.strip():
        return None
    tags = [row.name for row in memory.tag_rows.all()]
    return check_text(
        agent=memory.agent,
        user=memory.user_ref,
        text=text,
        actor=LEARNING_ACTOR,
        apply=True,
        source=source_of(memory, tags),
    )


def learn_from_memories(memory_ids: Sequence[int]) -> dict[str, int]:
    """Learn from each memory still there (one erased since it was stored is skipped). A
    memory that cannot be learned from is logged and the others still are."""
    counts = {"memories": 0, "applied": 0, "failed": 0}
    memories = Memory.objects.filter(pk__in=memory_ids).select_related("agent__workspace")
    for memory in memories.prefetch_related("tag_rows").order_by("id"):
        try:
            with transaction.atomic():
                result = learn_from_memory(memory)
        except DeweeError as exc:
            logger.warning("facts not learned from memory %s: %s", memory.pk, exc.message)
            counts["failed"] += 1
            continue
        counts["memories"] += 1
        counts["applied"] += len(result.applied) if result is not None else 0
    return counts


def memories_stored_listener(
    sender: Any, *, memories: Sequence[Memory], learning: Learning, **kwargs: Any
) -> None:
    ids = [memory.pk for memory in memories if memory.user_ref]
    if learning is Learning.OFF or not ids:
        return
    if learning is Learning.SYNC:
        learn_from_memories(ids)
        return
    # After the store commits, so the worker finds the memories (and not a rolled-back batch).
    transaction.on_commit(
        lambda: async_task("facts.tasks.learn_facts", ids, task_name="learn facts", group="facts")
    )
