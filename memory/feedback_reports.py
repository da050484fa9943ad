"""Reads of feedback: a memory's history, an agent's summary, a workspace's health
(the writes: memory.services.feedback)."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from dewee.pagination import clean_limit, keyset_page
from memory.models import FeedbackKind, Memory, MemoryFeedback
from tenancy.models import Agent

SHORT_CONTENT_CHARS = 120
TOP_MEMORIES = 5
TOP_AGENTS = 5
RECENT_DAYS = 7
# Health: see feedback_health() for why these two numbers.
HEALTH_MIN_FEEDBACK = 10
HEALTH_NEGATIVE_SHARE = 0.5

_NEGATIVE = Q(kind__in=[FeedbackKind.DOWNVOTE, FeedbackKind.FLAG])


def feedback_to_dict(feedback: MemoryFeedback) -> dict[str, Any]:
    return {
        "id": feedback.pk,
        "memory_id": feedback.memory_id,
        "kind": feedback.kind,
        "note": feedback.note or None,
        "actor": feedback.actor,
        "importance_before": feedback.importance_before,
        "importance_after": feedback.importance_after,
        "created_at": feedback.created_at,
    }


@dataclass(frozen=True)
class FeedbackPage:
    items: list[MemoryFeedback]
    next_cursor: str | None


def list_feedback(*, memory: Memory, cursor: str | None = None, limit: int = 50) -> FeedbackPage:
    """A memory's feedback, newest first, with keyset pagination."""
    limit = clean_limit(limit)
    rows = MemoryFeedback.objects.filter(memory=memory)
    items, next_cursor = keyset_page(rows, cursor=cursor, limit=limit)
    return FeedbackPage(items=items, next_cursor=next_cursor)


def _per_kind(feedback: QuerySet[MemoryFeedback]) -> dict[str, int]:
    counts = dict.fromkeys(FeedbackKind.values, 0)
    for row in feedback.values("kind").annotate(n=Count("id")).order_by("kind"):
        counts[row["kind"]] = row["n"]
    return counts


def _top_memories(feedback: QuerySet[MemoryFeedback]) -> dict[str, list[dict[str, Any]]]:
    """The memories with the most of each kind, with all three counts and a short content."""
    per_memory = feedback.values("memory_id").annotate(
        upvotes=Count("id", filter=Q(kind=FeedbackKind.UPVOTE)),
        downvotes=Count("id", filter=Q(kind=FeedbackKind.DOWNVOTE)),
        flags=Count("id", filter=Q(kind=FeedbackKind.FLAG)),
    )
    tops = {}
    for name, count in (
        ("most_upvoted", "upvotes"),
        ("most_downvoted", "downvotes"),
        ("most_flagged", "flags"),
    ):
        tops[name] = list(
            per_memory.filter(**{f"{count}__gt": 0}).order_by(f"-{count}", "-memory_id")[
                :TOP_MEMORIES
            ]
        )
    ids = {row["memory_id"] for rows in tops.values() for row in rows}
    contents = dict(Memory.objects.filter(pk__in=ids).values_list("pk", "content"))
    return {
        name: [
            {
                "memory_id": row["memory_id"],
                "content": contents[row["memory_id"]][:SHORT_CONTENT_CHARS],
                "upvotes": row["upvotes"],
                "downvotes": row["downvotes"],
                "flags": row["flags"],
            }
            for row in rows
        ]
        for name, rows in tops.items()
    }


def agent_feedback_summary(*, agent: Agent, now: datetime | None = None) -> dict[str, Any]:
    """Counts per kind (all time and the last RECENT_DAYS days), the memories with the most
    of each kind, and how many memories are flagged now."""
    now = now or timezone.now()
    feedback = MemoryFeedback.objects.filter(agent=agent)
    return {
        "agent_id": agent.agent_id,
        "counts": {
            "all_time": _per_kind(feedback),
            "last_7_days": _per_kind(
                feedback.filter(created_at__gte=now - timedelta(days=RECENT_DAYS))
            ),
        },
        "flagged_now": Memory.objects.filter(agent=agent, flagged_at__isnull=False).count(),
        **_top_memories(feedback),
    }


def feedback_health(*, agents: QuerySet[Agent], now: datetime | None = None) -> dict[str, Any]:
    """Feedback on ``agents`` (a workspace's) in the last 24 hours and 7 days, per kind; the
    share of negative feedback (downvotes and flags) over 7 days; the agents with the most
    negative feedback; and a status.

    The status is "attention" when the last 7 days hold at least HEALTH_MIN_FEEDBACK (10)
    pieces of feedback and at least HEALTH_NEGATIVE_SHARE (half) of them are negative, else
    "ok". Half or more negative means users reject what recall gives them as often as they
    accept it: worth looking at what is being stored (noise ingested as memories) or at the
    recall weights. Below 10, a share says more about chance than about the memories, so a
    quiet workspace is never alarmed by two downvotes."""
    now = now or timezone.now()
    feedback = MemoryFeedback.objects.filter(agent__in=agents)
    week = feedback.filter(created_at__gte=now - timedelta(days=RECENT_DAYS))
    last_24h = _per_kind(feedback.filter(created_at__gte=now - timedelta(hours=24)))
    last_7d = _per_kind(week)
    total = sum(last_7d.values())
    negative = last_7d[FeedbackKind.DOWNVOTE] + last_7d[FeedbackKind.FLAG]
    share = negative / total if total else None
    attention = (
        share is not None and total >= HEALTH_MIN_FEEDBACK and share >= HEALTH_NEGATIVE_SHARE
    )
    worst = (
        # Grouped by agent, not by id: ids are unique only within a workspace.
        week.values("agent", "agent__agent_id")
        .annotate(negative=Count("id", filter=_NEGATIVE), total=Count("id"))
        .filter(negative__gt=0)
        .order_by("-negative", "agent__agent_id", "agent")[:TOP_AGENTS]
    )
    return {
        "last_24h": {**last_24h, "total": sum(last_24h.values())},
        "last_7d": {**last_7d, "total": total},
        "negative_share_7d": share,
        "status": "attention" if attention else "ok",
        "thresholds": {
            "min_feedback_7d": HEALTH_MIN_FEEDBACK,
            "negative_share": HEALTH_NEGATIVE_SHARE,
        },
        "agents_most_negative": [
            {"agent_id": row["agent__agent_id"], "negative": row["negative"], "total": row["total"]}
            for row in worst
        ],
    }
