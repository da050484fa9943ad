"""Conversations: the order memories were said in, which the neighbour pass of recall and the
context embedding read. A session is a conversation, in the order its memories were stored.
Memories stored without a session (a client that just stores turns) make conversations too:
an agent's sessionless memories about one user (no user is one group of its own), in order of
creation, where each follows the one before it by at most ``conversation_gap()``. Memories
made at the same instant are not turns of one conversation: a batch stored without times is
a set of separate memories (notes, facts), and taking them for turns would blend unrelated
texts into each other's vectors and neighbours. Reads only.
"""

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import pairwise

from django.conf import settings
from django.db import connection
from django.db.models import OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from language.moments import shifted
from memory.models import Memory
from memory.sql import any_of, epoch_seconds
from tenancy.models import Agent


def conversation_gap() -> timedelta:
    """The silence that ends a sessionless conversation (DEWEE_CONVERSATION_GAP_MINUTES)."""
    return timedelta(minutes=settings.DEWEE_CONVERSATION_GAP_MINUTES)


def _follows(earlier: datetime, later: datetime, gap: timedelta) -> bool:
    """Whether a sessionless memory made at ``later`` is the next turn after one made at
    ``earlier``: after it, and by no more than ``gap``."""
    return timedelta(0) < later - earlier <= gap


def _in_session(before: bool) -> QuerySet[Memory]:
    """The outer memory's session, the memories before (or after) it, nearest first. The
    agent is named so that the (agent, session, id) index serves the lookup."""
    kin = Memory.objects.filter(agent_id=OuterRef("agent_id"), session_id=OuterRef("session_id"))
    if before:
        return kin.filter(id__lt=OuterRef("id")).order_by("-id")
    return kin.filter(id__gt=OuterRef("id")).order_by("id")


def _sessionless(before: bool) -> QuerySet[Memory]:
    """The outer memory's sessionless kin (same agent, no session, same user), the ones
    before (or after) it in (created_at, id) order, nearest first. The plain bound on
    created_at is what lets the (agent, created_at) index serve the lookup; the second
    condition orders memories created at the same instant by id."""
    kin = (
        Memory.objects.filter(agent_id=OuterRef("agent_id"), session__isnull=True)
        .alias(user_key=Coalesce("user_ref", Value("")))
        .filter(user_key=Coalesce(OuterRef("user_ref"), Value("")))
    )
    if before:
        return kin.filter(
            Q(created_at__lt=OuterRef("created_at"))
            | Q(created_at=OuterRef("created_at"), id__lt=OuterRef("id")),
            created_at__lte=OuterRef("created_at"),
        ).order_by("-created_at", "-id")
    return kin.filter(
        Q(created_at__gt=OuterRef("created_at"))
        | Q(created_at=OuterRef("created_at"), id__gt=OuterRef("id")),
        created_at__gte=OuterRef("created_at"),
    ).order_by("created_at", "id")


def _neighbour_sql(span: int) -> str:
    """One row per given memory: its id, whether it has a session, then the ids of the
    ``span`` memories before it (nearest first) and after it (nearest first), each one
    lookup in the (agent, session, id) index for a session's memory, or in the
    (agent, created_at) index for a sessionless one (the plain bound on created_at is what
    the index serves; ties of created_at are ordered by id). Plain SQL on both editions:
    built through the ORM, the eight correlated subqueries cost more to compile than to run."""
    table = Memory._meta.db_table
    session = (
        f"SELECT x.id FROM {table} x WHERE x.agent_id = m.agent_id "
        "AND x.session_id = m.session_id AND x.id {op} m.id ORDER BY x.id {order}"
    )
    sessionless = (
        f"SELECT x.id FROM {table} x WHERE x.agent_id = m.agent_id AND x.session_id IS NULL "
        "AND COALESCE(x.user_ref, '') = COALESCE(m.user_ref, '') "
        "AND x.created_at {op}= m.created_at AND (x.created_at {op} m.created_at "
        "OR (x.created_at = m.created_at AND x.id {op} m.id)) "
        "ORDER BY x.created_at {order}, x.id {order}"
    )
    columns = []
    for op, order in (("<", "DESC"), (">", "ASC")):
        for k in range(span):
            page = f" LIMIT 1 OFFSET {k}"
            columns.append(
                f"CASE WHEN m.session_id IS NULL "
                f"THEN ({sessionless.format(op=op, order=order)}{page}) "
                f"ELSE ({session.format(op=op, order=order)}{page}) END"
            )
    return f"SELECT m.id, m.session_id IS NULL, {', '.join(columns)} FROM {table} m WHERE {{ids}}"


def neighbours(memory_ids: Sequence[int], *, span: int) -> dict[int, list[int]]:
    """For each of the given memories that still exists: the up to ``span`` memories just
    before it and just after it in its conversation, in conversation order (the ones before
    first). One query of one row per given memory (each neighbour one index lookup), and one
    more for the creation times that split sessionless conversations."""
    if not memory_ids or span < 1:
        return {}
    ids = [int(i) for i in memory_ids]
    with connection.cursor() as cursor:
        among, params = any_of("m.id", ids)
        cursor.execute(_neighbour_sql(span).replace("{ids}", among), params)
        rows = cursor.fetchall()
    result: dict[int, list[int]] = {}
    sessionless = []
    for memory_id, no_session, *found in rows:
        before, after = found[:span], found[span:]
        if no_session:
            sessionless.append((memory_id, before, after))
            continue
        result[memory_id] = [i for i in reversed(before) if i] + [i for i in after if i]
    if not sessionless:
        return result
    wanted = {i for memory_id, before, after in sessionless for i in (memory_id, *before, *after)}
    times = _epochs([i for i in wanted if i is not None])
    gap = conversation_gap().total_seconds()
    for memory_id, before, after in sessionless:
        if memory_id not in times:
            continue
        kept_before = _within_gap(times[memory_id], before, times, gap)
        kept_after = _within_gap(times[memory_id], after, times, gap)
        result[memory_id] = list(reversed(kept_before)) + kept_after
    return result


def _epochs(memory_ids: list[int]) -> dict[int, float]:
    """The creation times of these memories in seconds, read without the ORM: converting a
    few hundred datetimes through it cost more than the neighbour lookups themselves."""
    if not memory_ids:
        return {}
    ids, params = any_of("id", memory_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, {epoch_seconds('created_at')} FROM {Memory._meta.db_table} WHERE {ids}",
            params,
        )
        return {int(memory_id): float(at) for memory_id, at in cursor.fetchall()}


def _within_gap(
    start: float, ids: Sequence[int | None], times: dict[int, float], gap: float
) -> list[int]:
    """The leading run of ``ids`` (nearest first, all before or all after ``start``; times
    in seconds) in which each one follows (or precedes) the one before as a next turn does."""
    kept: list[int] = []
    at = start
    for memory_id in ids:
        if memory_id is None or memory_id not in times:
            break
        moment = times[memory_id]
        if not (0 < moment - at <= gap or 0 < at - moment <= gap):
            break
        kept.append(memory_id)
        at = times[memory_id]
    return kept


def speaker(given: str | None, metadata: object) -> str:
    """Who said a memory: its ``speaker`` (given by the client or read from "Name: text"),
    else its metadata's "speaker"; "" when neither says."""
    if given and given.strip():
        return given.strip()
    said = metadata.get("speaker") if isinstance(metadata, dict) else None
    return said.strip() if isinstance(said, str) else ""


def annotate_previous(memories: QuerySet[Memory]) -> QuerySet[Memory]:
    """``memories`` with what ``previous_content`` needs: the content of the memory before
    each one in its session, or in its sessionless conversation (with when it was made and
    who said it)."""
    in_session = _in_session(True)
    sessionless = _sessionless(True)
    return memories.annotate(
        session_previous=Subquery(in_session.values("content")[:1]),
        sessionless_previous=Subquery(sessionless.values("content")[:1]),
        sessionless_previous_at=Subquery(sessionless.values("created_at")[:1]),
        sessionless_previous_metadata=Subquery(sessionless.values("metadata")[:1]),
        sessionless_previous_speaker=Subquery(sessionless.values("speaker")[:1]),
    )


def previous_content(memory: Memory) -> str | None:
    """The content of the turn before ``memory`` in its conversation (see
    ``previous_sessionless`` for memories without a session), from a queryset made by
    ``annotate_previous``; None when it opens one."""
    if memory.session_id is not None:
        return getattr(memory, "session_previous", None)
    at = getattr(memory, "sessionless_previous_at", None)
    if at is None or not _follows(at, memory.created_at, conversation_gap()):
        return None
    before = getattr(memory, "sessionless_previous_metadata", None)
    if isinstance(before, str):  # a JSON column read through a subquery may come as text
        before = json.loads(before)
    before_speaker = getattr(memory, "sessionless_previous_speaker", None)
    if not (speaker(memory.speaker, memory.metadata) and speaker(before_speaker, before)):
        return None
    return getattr(memory, "sessionless_previous", None)


def previous_sessionless(
    agent: Agent, items: Sequence[tuple[str | None, datetime, str, str]]
) -> list[str | None]:
    """For new sessionless memories of ``agent`` given as (user, created_at, content,
    speaker) in the order they will be stored: the content of the turn before each one in
    its conversation, among the agent's stored memories and the earlier ones of ``items``;
    None where one opens a conversation, or where it or the one before does not say who
    spoke. Without a session that is what tells a turn (which may need the one before to be
    read: "Yes, last week!") from a note that stands alone: blending a note with the one
    stored before it would make unrelated notes look alike, and copies of one note look
    different. One query per user for the stored memories of the batch's time span (with a
    live client, the last few minutes), one for the contents of those taken."""
    gap = conversation_gap()
    result: list[str | None] = [None] * len(items)
    groups: dict[str, list[int]] = {}
    for index, (user, _, _, _) in enumerate(items):
        groups.setdefault(user or "", []).append(index)
    wanted: dict[int, int] = {}
    for user, indexes in groups.items():
        times = [items[i][1] for i in indexes]
        stored = Memory.objects.filter(
            agent=agent,
            session__isnull=True,
            created_at__gte=shifted(min(times), -gap),
            created_at__lte=max(times),
        )
        stored = stored.filter(user_ref=user) if user else stored.filter(user_ref__isnull=True)
        # Stored memories come before new ones made at the same instant (they have lower ids).
        entries = [
            (at, 0, pk, bool(speaker(said, metadata)))
            for pk, at, said, metadata in stored.values_list(
                "pk", "created_at", "speaker", "metadata"
            )
        ]
        entries += [(items[i][1], 1, i, bool(items[i][3])) for i in indexes]
        entries.sort()
        for before, (at, kind, index, spoken) in pairwise(entries):
            previous_at, previous_kind, previous, previous_spoken = before
            if kind == 0 or not (spoken and previous_spoken and _follows(previous_at, at, gap)):
                continue
            if previous_kind == 1:
                result[index] = items[previous][2]
            else:
                wanted[index] = previous
    if wanted:
        contents = dict(
            Memory.objects.filter(pk__in=set(wanted.values())).values_list("pk", "content")
        )
        for index, pk in wanted.items():
            result[index] = contents.get(pk)
    return result
