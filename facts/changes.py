"""What changed in the facts between two times: each change dated by the fact's own
timestamps, read with one query whatever the window holds.

A change is a fact and one thing that happened to it at a time ``at``:

- ``added``: recorded (``recorded_at``) and not disputed when recorded;
- ``disputed``: recorded as a disputed value, waiting for review (``recorded_at``);
- ``resolved``: a disputed value settled (``disputed_until``): ``accepted`` when it was
  believed from that moment, else ``rejected``;
- ``superseded``: stopped being the current value of its slot and kept as history
  (``believed_until``): replaced by another value, or ended;
- ``deleted`` (``deleted_at``) and ``restored`` (``restored_at``: undeleted, or current
  again because the value that replaced it was erased with its memories).

Each column keeps the last time only: a fact deleted twice shows its last deletion, and a
fact restored as the current value shows no earlier "superseded". A deletion is never also
shown as the "resolved" or "superseded" it caused. Deletions before ``deleted_at`` existed
are dated from their audit events where those are kept (facts migration 0006).
"""

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from django.db import connection
from django.db.models import Case, CharField, F, Q, QuerySet, Value, When

from dewee.errors import InvalidInput
from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit
from facts.models import KEY_MAX_CHARS, Fact, Status
from facts.queries import fact_to_dict
from tenancy.models import Agent
from tenancy.validation import DB_ID_MAX, clean_text, nfc_user, user_forms


class ChangeKind(StrEnum):
    ADDED = "added"
    DISPUTED = "disputed"
    RESOLVED = "resolved"
    SUPERSEDED = "superseded"
    DELETED = "deleted"
    RESTORED = "restored"


def _not_the_deletion(column: str) -> Q:
    """The change dated by ``column`` is not the deletion itself (deleting a current or a
    disputed fact also sets its ``believed_until`` or ``disputed_until``). A deleted fact
    with no deletion date (older than ``deleted_at``) is left out: it cannot be told."""
    return (
        Q(deleted_at__isnull=True) & ~Q(status=Status.DELETED)
        | Q(deleted_at__lt=F(column))
        | Q(deleted_at__gt=F(column))
    )


WAS_DISPUTED = Q(status=Status.DISPUTED) | Q(disputed_until__isnull=False)

# Each kind: the column that dates it, and which facts it applies to.
KIND_RULES: dict[ChangeKind, tuple[str, Q]] = {
    ChangeKind.ADDED: ("recorded_at", ~WAS_DISPUTED),
    ChangeKind.DISPUTED: ("recorded_at", WAS_DISPUTED),
    ChangeKind.RESOLVED: ("disputed_until", _not_the_deletion("disputed_until")),
    ChangeKind.SUPERSEDED: ("believed_until", _not_the_deletion("believed_until")),
    ChangeKind.DELETED: ("deleted_at", Q()),
    ChangeKind.RESTORED: ("restored_at", Q()),
}

# A dispute settled by being believed (accepted, or corroborated by a new source) became
# current at that very moment; otherwise it was rejected (or deleted, left out above).
_RESOLUTION = Case(
    When(believed_from=F("disputed_until"), then=Value("accepted")),
    default=Value("rejected"),
    output_field=CharField(),
)


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    at: datetime
    fact: Fact
    # For "resolved": "accepted" or "rejected"; None otherwise.
    resolution: str | None = None


@dataclass(frozen=True)
class ChangePage:
    items: list[Change]
    next_cursor: str | None


@dataclass(frozen=True)
class ChangeFilters:
    since: datetime
    until: datetime
    user: str | None = None
    kinds: tuple[ChangeKind, ...] = tuple(ChangeKind)


def parse_kinds(raw: str | None) -> tuple[ChangeKind, ...]:
    """``"added,deleted"``: each a known kind; none given is every kind."""
    names = [name.strip() for name in (raw or "").split(",") if name.strip()]
    unknown = [name for name in names if name not in {k.value for k in ChangeKind}]
    if unknown:
        raise InvalidInput(
            "kind", f"unknown kind {unknown[0]!r}; use {', '.join(k.value for k in ChangeKind)}"
        )
    return tuple(ChangeKind(name) for name in names) or tuple(ChangeKind)


def change_filters(
    *,
    since: datetime | None,
    until: datetime | None,
    now: datetime,
    user: str | None = None,
    kind: str | None = None,
) -> ChangeFilters:
    """The window [since, until) (``until`` defaults to ``now``), checked: ``since`` is
    required and must not come after ``until``."""
    if since is None:
        raise InvalidInput("since", "is required: the start of the window (ISO 8601)")
    until = until or now
    if since > until:
        raise InvalidInput("until", "must not be before since", code="invalid_time")
    if user is not None:
        user = nfc_user(clean_text(user, field="user", max_chars=KEY_MAX_CHARS, required=False))
    return ChangeFilters(since=since, until=until, user=user, kinds=parse_kinds(kind))


# The cursor: the last change's time (microseconds since the epoch), fact id and kind.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def encode_change_cursor(change: Change) -> str:
    micros = (change.at - _EPOCH) // _MICROSECOND
    raw = f"c{micros}:{change.fact.pk}:{change.kind.value}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_change_cursor(cursor: str) -> tuple[datetime, int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not raw.startswith("c"):
            raise ValueError(raw)
        micros, fact_id, kind = raw[1:].split(":")
        if not 1 <= int(fact_id) <= DB_ID_MAX:
            raise ValueError(raw)
        return _EPOCH + int(micros) * _MICROSECOND, int(fact_id), ChangeKind(kind).value
    except (ValueError, binascii.Error, UnicodeDecodeError, OverflowError):
        raise InvalidInput("cursor", "is not a cursor this server returned") from None


def _branch(
    facts: QuerySet[Fact], kind: ChangeKind, filters: ChangeFilters, after: Any
) -> QuerySet[Any, Any]:
    """The changes of one ``kind``: each fact's id, the change's time, kind and (for a
    resolved dispute) how it was settled. Typed loosely: the annotations are not fields of
    Fact, and the union is ordered by them."""
    column, applies = KIND_RULES[kind]
    rows = (
        facts.order_by()
        .filter(applies)
        .filter(**{f"{column}__gte": filters.since, f"{column}__lt": filters.until})
    )
    if after is not None:
        # Newest first: the rows after the cursor's (time, fact, kind) position.
        at, fact_id, last_kind = after
        older = Q(**{f"{column}__lt": at}) | Q(**{column: at, "id__lt": fact_id})
        if kind.value < last_kind:
            older |= Q(**{column: at, "id": fact_id})
        rows = rows.filter(older)
    resolution = _RESOLUTION if kind == ChangeKind.RESOLVED else Value("")
    return rows.annotate(
        change_at=F(column),
        change_kind=Value(kind.value, output_field=CharField()),
        change_resolution=resolution,
    ).values("id", "change_at", "change_kind", "change_resolution")


def _of_user(facts: QuerySet[Fact], filters: ChangeFilters) -> QuerySet[Fact]:
    return facts if filters.user is None else facts.filter(user_ref__in=user_forms(filters.user))


# Up to this many agents, PostgreSQL reads each agent's changes of each kind from its own
# index range; beyond, one range per kind over every agent (read whole, then sorted).
AGENT_BRANCHES_MAX = 20


def _limited_branches(
    agents: QuerySet[Agent] | list[Agent], filters: ChangeFilters, after: Any, limit: int
) -> list[QuerySet[Any, Any]]:
    """PostgreSQL: each branch reads at most one page, newest first, from its (agent, time)
    index, so a busy window costs no more than a quiet one. Measured with bench/changes.py:
    two agents of 100,000 facts, every agent's first page 256 ms as one range per kind, 55
    ms as one per agent and kind."""
    agent_ids = [a.pk for a in agents]
    if len(agent_ids) <= AGENT_BRANCHES_MAX:
        scopes = [Fact.objects.filter(agent_id=agent_id) for agent_id in agent_ids]
    else:
        scopes = [Fact.objects.filter(agent_id__in=agent_ids)]
    if not scopes:
        scopes = [Fact.objects.none()]
    branches = [
        _branch(_of_user(facts, filters), kind, filters, after)
        for facts in scopes
        for kind in filters.kinds
    ]
    if len(branches) == 1:  # no union: the outer order and limit are the branch's own
        return branches
    return [branch.order_by("-change_at", "-id")[: limit + 1] for branch in branches]


def list_changes(
    *,
    agents: QuerySet[Agent] | list[Agent],
    filters: ChangeFilters,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> ChangePage:
    """The changes to the facts of ``agents`` (of ``filters.user`` only, when given) dated
    in [since, until), newest first (then by fact id and kind, descending), ``limit`` per
    page; ``next_cursor`` continues after the last. Two queries (on PostgreSQL, a third
    for the agents' ids): one over every kind of change (a UNION ALL of index range
    reads), one for the facts they name."""
    limit = clean_limit(limit)
    after = decode_change_cursor(cursor) if cursor else None
    if connection.features.supports_slicing_ordering_in_compound:
        branches = _limited_branches(agents, filters, after, limit)
    else:
        facts = _of_user(Fact.objects.filter(agent__in=agents), filters)
        branches = [_branch(facts, kind, filters, after) for kind in filters.kinds]
    union = branches[0].union(*branches[1:], all=True) if len(branches) > 1 else branches[0]
    # The kind breaks the tie of one fact changed twice at one moment, so the order is total.
    rows = list(union.order_by("-change_at", "-id", "-change_kind")[: limit + 1])
    loaded = Fact.objects.select_related("agent__workspace").in_bulk([r["id"] for r in rows])
    changes = [
        Change(
            kind=ChangeKind(row["change_kind"]),
            at=row["change_at"],
            fact=loaded[row["id"]],
            resolution=row["change_resolution"] or None,
        )
        for row in rows[:limit]
    ]
    next_cursor = encode_change_cursor(changes[-1]) if len(rows) > limit else None
    return ChangePage(items=changes, next_cursor=next_cursor)


def change_to_dict(change: Change, *, now: datetime | None = None) -> dict[str, Any]:
    return {
        "kind": change.kind.value,
        "at": change.at,
        "resolution": change.resolution,
        "fact": fact_to_dict(change.fact, now=now),
    }
