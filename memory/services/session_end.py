"""How a session ends, whoever ends it (its client, or the idle pass): the one rule for its
summary and its summary memory, and the client's end_session."""

import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from dewee.errors import Conflict
from memory.models import SUMMARY_TAG, Memory, MemoryType, Session, SessionState
from memory.services.memory_input import MemoryInput
from memory.services.sessions import SUMMARY_MAX_CHARS, EndReason
from memory.services.storing import store_memories
from memory.sessions.summaries import extractive_summary, get_summariser, split_sentences
from tenancy.validation import CONTENT_MAX_CHARS, SOURCE_REFS_MAX, clean_text

logger = logging.getLogger("dewee.sessions")


class SessionEnded(Conflict):
    code = "session_ended"


# A session of this many memories or fewer ends without a summary memory: the turns
# themselves are as short as a summary would be.
SUMMARY_MIN_MEMORIES = 3
# Who wrote a summary memory (its ``metadata["generated_by"]``).
IDLE_ACTOR = "system:idle-sessions"
END_ACTOR = "system:session-end"
CLIENT_AUTHOR = "client"


@dataclass(frozen=True)
class Ending:
    """How a session ends: its summary ("" for none), the memories of the session (oldest
    first, at most as many as a summary memory can cite) and who wrote the summary."""

    summary: str
    memory_ids: list[int]
    written_by: str

    @property
    def stores_summary_memory(self) -> bool:
        return bool(self.summary) and len(self.memory_ids) > SUMMARY_MIN_MEMORIES


def plan_ending(session: Session, *, summary: str, reason: EndReason) -> Ending:
    """The one rule for how a session ends, whoever ends it. Its summary is the client's own
    when it sent one, else one made by DEWEE_SESSION_SUMMARISER for a session of more than
    SUMMARY_MIN_MEMORIES memories (else none). A session of more than SUMMARY_MIN_MEMORIES
    memories also gets that summary as a summary memory. Runs before the session's row is
    locked: the summariser may be slow (an HTTP call)."""
    given = clean_text(summary, field="summary", max_chars=SUMMARY_MAX_CHARS, required=False)
    if given:
        memory_ids = Memory.objects.filter(session=session).order_by("id")
        return Ending(
            summary=given,
            memory_ids=list(memory_ids.values_list("pk", flat=True)[: SOURCE_REFS_MAX - 1]),
            written_by=CLIENT_AUTHOR,
        )
    generated, all_ids = _summarise(session)
    return Ending(
        summary=generated,
        memory_ids=all_ids[: SOURCE_REFS_MAX - 1],
        written_by=IDLE_ACTOR if reason == "idle" else END_ACTOR,
    )


def write_ending(session: Session, ending: Ending, *, reason: EndReason) -> bool:
    """Write the end of ``session`` (locked by the caller and still active) and its summary
    memory when ``ending`` has one, in the caller's transaction; whether it stored one."""
    session.summary = ending.summary
    session.state = SessionState.ENDED
    session.ended_at = timezone.now()
    session.ended_reason = reason
    session.save(update_fields=["summary", "state", "ended_at", "ended_reason"])
    if not ending.stores_summary_memory:
        return False
    # One reference to the session, then as many of its memories as fit.
    refs = [f"session:{session.pk}", *(f"memory:{pk}" for pk in ending.memory_ids)]
    # Stored after the end, so it does not count as activity (ended sessions take none).
    # A client's end is checked against the quotas like any client write; the idle pass's
    # is counted but never refused, so the worker's pass is not cut short.
    store_memories(
        enforce_quotas=reason == "client",
        agent=session.agent,
        items=[
            MemoryInput(
                content=ending.summary[:CONTENT_MAX_CHARS],
                memory_type=MemoryType.SEMANTIC,
                tags=[SUMMARY_TAG],
                session_id=session.pk,
                source_refs=refs,
                metadata={"generated_by": ending.written_by},
            )
        ],
    )
    return True


def end_session(*, session: Session, summary: str = "", reason: EndReason = "client") -> Session:
    """End the session once: the client's end (``reason`` "client") and the idle pass's
    ("idle") follow the same rule (plan_ending), so a session of more than
    SUMMARY_MIN_MEMORIES memories always ends with a summary memory tagged SUMMARY_TAG whose
    source_refs cite the session and its memories: the client's ``summary`` if it sent one,
    else a generated one. Raises SessionEnded when it has already ended.

    The summary is made before the row is locked; the end and the summary memory are then
    written in one transaction, so a summary memory that cannot be stored (the agent awaits
    re-embedding, say) leaves the session open rather than ended without it."""
    # Checked before summarising (no summariser call for a session already ended), and
    # again under the lock.
    _refuse_if_ended(Session.objects.get(pk=session.pk))
    ending = plan_ending(session, summary=summary, reason=reason)
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        _refuse_if_ended(locked)
        write_ending(locked, ending, reason=reason)
    return locked


def _refuse_if_ended(session: Session) -> None:
    if session.state == SessionState.ENDED:
        raise SessionEnded(f"Session {session.pk} already ended ({session.ended_reason})")


def _summarise(session: Session) -> tuple[str, list[int]]:
    """The summary of a session of more than SUMMARY_MIN_MEMORIES memories (else ""), and
    the ids of the memories it summarises, oldest first."""
    # Its turns: not a summary memory of its own (when a summary is made again after a
    # turn was erased).
    turns = Memory.objects.filter(session=session).exclude(tag_rows__name=SUMMARY_TAG)
    # A summary is its session's user's memory (shared when the session has none), so it
    # is made of that user's turns and the shared ones only: a session without a user
    # (a group conversation) may hold several users' turns, which stay theirs.
    turns = turns.filter(Q(user_ref__isnull=True) | Q(user_ref=session.user_ref or None))
    rows = list(turns.order_by("id").values_list("pk", "content"))
    if len(rows) <= SUMMARY_MIN_MEMORIES:
        return "", [pk for pk, _ in rows]
    texts = [content for _, content in rows]
    try:
        summary = get_summariser()(texts)
        if not isinstance(summary, str):
            raise TypeError(f"the summariser returned {type(summary).__name__}, not text")
    except Exception:
        # A broken custom summariser must not keep every session open forever.
        logger.exception("Summariser failed for session %s; using the extractive one", session.pk)
        summary = extractive_summary(texts)
    # NUL is the one character no text column accepts.
    return summary.replace("\x00", "").strip()[:CONTENT_MAX_CHARS], [pk for pk, _ in rows]


def summary_without(summary: str, erased_texts: list[str]) -> str:
    """``summary`` without its sentences that quote an erased memory's text (a summary made
    by extraction is made of its turns' sentences; a client's may quote them too)."""
    erased = set(split_sentences(erased_texts))
    return " ".join(s for s in split_sentences([summary]) if s not in erased)


def forget_in_summaries(*, erased: list[tuple[int, int, str]]) -> list[int]:
    """After memories of ended sessions are erased (``erased``: memory id, session id,
    content), their sessions' summaries no longer hold them: a summary the server made is
    made again from the turns that are left; any summary loses the sentences that quote an
    erased turn; the summary memory stops citing the erased ids. Returns the summary
    memories left empty, for the caller to erase."""
    from memory.services.editing import update_memory

    erased_ids = {memory_id for memory_id, _, _ in erased}
    emptied: list[int] = []
    for session_id in sorted({session_id for _, session_id, _ in erased}):
        session = Session.objects.select_for_update().filter(pk=session_id).first()
        if session is None or session.state != SessionState.ENDED or not session.summary:
            continue
        texts = [content for _, sid, content in erased if sid == session_id]
        kept = Memory.objects.filter(session=session, tag_rows__name=SUMMARY_TAG).exclude(
            pk__in=erased_ids
        )
        summary_memory = kept.order_by("-id").first()
        made_by_server = summary_memory is not None and summary_memory.metadata.get(
            "generated_by"
        ) in (IDLE_ACTOR, END_ACTOR)
        if made_by_server:
            summary, _ = _summarise(session)
        else:
            summary = summary_without(session.summary, texts)
        summary = summary_without(summary, texts)
        session.summary = summary
        session.save(update_fields=["summary"])
        if summary_memory is None:
            continue
        if not summary:
            emptied.append(summary_memory.pk)
            continue
        summary_memory.source_refs = [
            ref
            for ref in summary_memory.source_refs
            if ref not in {f"memory:{i}" for i in erased_ids}
        ]
        summary_memory.save(update_fields=["source_refs"])
        if summary_memory.content != summary[:CONTENT_MAX_CHARS]:
            update_memory(memory=summary_memory, content=summary[:CONTENT_MAX_CHARS])
    return emptied
