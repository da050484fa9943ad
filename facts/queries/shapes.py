"""The API's shapes of a fact and of what comes with it (its freshness, sources, periods
and audit events), and the columns of a facts export."""

from datetime import datetime
from typing import Any

from django.utils import timezone

from facts.models import Fact, FactPeriod, FactSource
from facts.rules import days_until_stale, freshness, freshness_label, policy_half_lives
from language.values import display_value
from tenancy.models import AuditEvent


def fact_freshness(fact: Fact, *, now: datetime) -> dict[str, Any]:
    """The fact's freshness score at ``now`` (with its agent's half-lives), its label, and
    the days left until it turns stale (None: its use keeps it from ever doing so)."""
    half_lives = policy_half_lives(fact.agent.memory_policy)
    score = freshness(
        fact.category,
        fact.last_confirmed_at,
        now,
        access_count=fact.access_count,
        last_accessed_at=fact.last_accessed_at,
        half_lives=half_lives,
    )
    days = days_until_stale(
        fact.category,
        fact.last_confirmed_at,
        now,
        access_count=fact.access_count,
        last_accessed_at=fact.last_accessed_at,
        half_lives=half_lives,
    )
    return {
        "freshness": round(score, 4),
        "freshness_label": freshness_label(score),
        "days_until_stale": days,
    }


def fact_to_dict(fact: Fact, *, now: datetime | None = None) -> dict[str, Any]:
    """The API's shape of a fact. In a point-in-time list (``status_then`` annotated),
    ``status`` is the status it had then and ``status_now`` the one it has now."""
    status_now = fact.status
    status = getattr(fact, "status_then", status_now)
    return {
        "id": fact.pk,
        "agent_id": fact.agent.agent_id,
        "user": fact.user_ref or None,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "qualifier": fact.qualifier or None,
        "value": fact.value,
        # The value as a person reads it where that differs ("14 February" for "--02-14").
        "display": display_value(fact.predicate, fact.value),
        "status": status,
        "status_now": status_now,
        "verification": fact.verification,
        "confidence": fact.confidence,
        "category": fact.category,
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "in_force": fact.in_force(now or timezone.now()),
        "recorded_at": fact.recorded_at,
        "last_confirmed_at": fact.last_confirmed_at,
        "believed_from": fact.believed_from,
        "believed_until": fact.believed_until,
        "disputed_until": fact.disputed_until,
        "deleted_at": fact.deleted_at,
        "restored_at": fact.restored_at,
        "access_count": fact.access_count,
        "last_accessed_at": fact.last_accessed_at,
        **fact_freshness(fact, now=now or timezone.now()),
        "status_changed_by": fact.status_changed_by or None,
        "status_reason": fact.status_reason or None,
    }


# The columns of a facts export (dewee.export): fact_to_dict's keys, in its order.
FACT_EXPORT_COLUMNS = [
    "id",
    "workspace",
    "agent_id",
    "user",
    "subject",
    "predicate",
    "qualifier",
    "value",
    "display",
    "status",
    "status_now",
    "verification",
    "confidence",
    "category",
    "valid_from",
    "valid_to",
    "in_force",
    "recorded_at",
    "last_confirmed_at",
    "believed_from",
    "believed_until",
    "disputed_until",
    "access_count",
    "last_accessed_at",
    "freshness",
    "freshness_label",
    "days_until_stale",
    "status_changed_by",
    "status_reason",
]


def source_to_dict(source: FactSource) -> dict[str, Any]:
    return {
        "kind": source.kind,
        "reference": source.reference or None,
        "excerpt": source.excerpt or None,
        "operator": source.operator or None,
        "memory_id": source.memory_id,
        "verification": source.verification,
        "confidence": source.confidence,
        "recorded_at": source.recorded_at,
    }


def event_to_dict(event: AuditEvent) -> dict[str, Any]:
    return {
        "action": event.action,
        "actor": event.actor,
        "details": event.details,
        "created_at": event.created_at,
    }


def period_to_dict(period: FactPeriod) -> dict[str, Any]:
    return {
        "status": period.status,
        "change": period.change,
        "started_at": period.started_at,
        "started_known": period.started_known,
        "ended_at": period.ended_at,
        "actor": period.actor,
    }
