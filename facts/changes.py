"""What changed in the facts between two times: each change is one period of a fact's
status (FactPeriod) beginning in the window, dated and named by what began it, read with
one query whatever the window holds.

A change is a fact and one thing that happened to it at a time ``at``:

- ``added``: recorded as its slot's current value; ``disputed``: recorded as a disputed
  value, waiting for review;
- ``resolved``: a disputed value settled: ``accepted`` (by a person, or corroborated by new
  evidence) or ``rejected``;
- ``superseded``: replaced by another value of its slot, kept as history; ``ended``: said
  to end ("I left Dropbox"); ``called_off``: a change still to come, called off;
- ``undone``: an accept or a reject taken back, the value waiting again; ``resumed``: the
  value an undone accept (or a called-off change) had replaced, current again;
- ``reopened``: a rejected value taken back into use;
- ``deleted`` and ``restored`` (undeleted, or current again because the value that replaced
  it was erased with its memories).

Every change keeps its own time and kind: a fact deleted twice shows both deletions, and a
restored one still shows when it was superseded. A deletion older than dated deletions is
shown at the earliest time it can have happened, marked ``time_known: false``.
"""

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from django.db import connection
from django.db.models import Q, QuerySet

from dewee.errors import InvalidInput
from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit
from dewee.sorting import Sorting, SortKey
from facts.models import KEY_MAX_CHARS, Fact, FactPeriod, Status
from facts.models import Change as PeriodChange
from facts.queries import fact_to_dict
from tenancy.models import Agent
from tenancy.validation import DB_ID_MAX, clean_text, nfc_user, user_forms


class ChangeKind(StrEnum):
    ADDED = "added"
    DISPUTED = "disputed"
    RESOLVED = "resolved"
    SUPERSEDED = "superseded"
    ENDED = "ended"
    CALLED_OFF = "called_off"
    UNDONE = "undone"
    RESUMED = "resumed"
    REOPENED = "reopened"
    DELETED = "deleted"
    RESTORED = "restored"


# Each kind: the periods it names (what began them, and for a recording, the status then).
KIND_PERIODS: dict[ChangeKind, Q] = {
    ChangeKind.ADDED: Q(change=PeriodChange.RECORDED) & ~Q(status=Status.DISPUTED),
    ChangeKind.DISPUTED: Q(change=PeriodChange.RECORDED, status=Status.DISPUTED),
    ChangeKind.RESOLVED: Q(
        change__in=[PeriodChange.ACCEPTED, PeriodChange.CORROBORATED, PeriodChange.REJECTED]
    ),
    ChangeKind.SUPERSEDED: Q(change=PeriodChange.SUPERSEDED),
    ChangeKind.ENDED: Q(change=PeriodChange.ENDED),
    ChangeKind.CALLED_OFF: Q(change=PeriodChange.CALLED_OFF),
    ChangeKind.UNDONE: Q(change=PeriodChange.UNDONE),
    ChangeKind.RESUMED: Q(change=PeriodChange.RESUMED),
    ChangeKind.REOPENED: Q(change=PeriodChange.REOPENED),
    ChangeKind.DELETED: Q(change=PeriodChange.DELETED),
    ChangeKind.RESTORED: Q(change__in=[PeriodChange.RESTORED, PeriodChange.REPLACED_BY_ERASED]),
}


def _kind_of(period: FactPeriod) -> tuple[ChangeKind, str | None]:
    """The change ``period`` stands for, and for a resolved dispute how it was settled."""
    if period.change == PeriodChange.RECORDED:
        return (ChangeKind.DISPUTED if period.status == Status.DISPUTED else ChangeKind.ADDED), None
    if period.change in (PeriodChange.ACCEPTED, PeriodChange.CORROBORATED):
        return ChangeKind.RESOLVED, "accepted"
    if period.change == PeriodChange.REJECTED:
        return ChangeKind.RESOLVED, "rejected"
    if period.change == PeriodChange.REPLACED_BY_ERASED:
        return ChangeKind.RESTORED, None
    return ChangeKind(period.change), None


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    at: datetime
    fact: Fact
    # For "resolved": "accepted" or "rejected"; None otherwise.
    resolution: str | None = None
    # The period that records it (its id orders changes of one moment), and whether its
    # time is known (a deletion older than dated deletions is not).
    period_id: int = 0
    time_known: bool = True


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


# The cursor: the last change's time (microseconds since the epoch) and period id, after
# "p" (newest first, the API's order) or "o" (oldest first, the dashboard's other order).
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_NEWEST, _OLDEST = "p", "o"

# The Changes page's orders: by time, either way; each agent's (agent, time) index range of
# the periods serves both directions.
CHANGE_SORTING = Sorting(
    keys=(SortKey("when", field="started_at", kind=datetime, indexed=True, descending_first=True),),
    default="-when",
)


def encode_change_cursor(change: Change, *, oldest_first: bool = False) -> str:
    micros = (change.at - _EPOCH) // _MICROSECOND
    raw = f"{_OLDEST if oldest_first else _NEWEST}{micros}:{change.period_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_change_cursor(cursor: str, *, oldest_first: bool | None = None) -> tuple[datetime, int]:
    """The time and period a cursor continues after; a cursor of the other order than
    ``oldest_first`` asks (either, when None: a form checking its shape) is refused."""
    wanted = {None: (_NEWEST, _OLDEST), False: (_NEWEST,), True: (_OLDEST,)}[oldest_first]
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if raw[:1] not in wanted:
            raise ValueError(raw)
        micros, period_id = raw[1:].split(":")
        if not 1 <= int(period_id) <= DB_ID_MAX:
            raise ValueError(raw)
        return _EPOCH + int(micros) * _MICROSECOND, int(period_id)
    except (ValueError, binascii.Error, UnicodeDecodeError, OverflowError):
        raise InvalidInput("cursor", "is not a cursor this server returned") from None


def _periods(
    periods: QuerySet[FactPeriod],
    filters: ChangeFilters,
    after: tuple[datetime, int] | None,
    oldest_first: bool = False,
) -> QuerySet[FactPeriod]:
    """The periods of ``filters``' kinds (and user) begun in the window, after the cursor,
    in the order asked."""
    kinds = Q()
    for kind in filters.kinds:
        kinds |= KIND_PERIODS[kind]
    periods = periods.filter(kinds, started_at__gte=filters.since, started_at__lt=filters.until)
    if filters.user is not None:
        periods = periods.filter(fact__user_ref__in=user_forms(filters.user))
    if after is not None:
        at, period_id = after
        op = "gt" if oldest_first else "lt"
        periods = periods.filter(
            Q(**{f"started_at__{op}": at}) | Q(started_at=at, **{f"id__{op}": period_id})
        )
    return periods.order_by(*_order(oldest_first))


def _order(oldest_first: bool) -> tuple[str, str]:
    return ("started_at", "id") if oldest_first else ("-started_at", "-id")


# Up to this many agents, PostgreSQL reads each agent's page from its own (agent, time)
# index range; beyond, one range over every agent.
AGENT_BRANCHES_MAX = 20


def list_changes(
    *,
    agents: QuerySet[Agent] | list[Agent],
    filters: ChangeFilters,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
    oldest_first: bool = False,
) -> ChangePage:
    """The changes to the facts of ``agents`` (of ``filters.user`` only, when given) dated
    in [since, until), newest first (then by period, descending; both ascending with
    ``oldest_first``), ``limit`` per page; ``next_cursor`` continues after the last (a
    cursor of the other order is InvalidInput). Two queries (on PostgreSQL with few agents,
    a UNION ALL of one index range per agent, each at most a page): the periods, then the
    facts they name."""
    limit = clean_limit(limit)
    after = decode_change_cursor(cursor, oldest_first=oldest_first) if cursor else None
    agent_ids = [a.pk for a in agents]
    if connection.features.supports_slicing_ordering_in_compound and (
        1 < len(agent_ids) <= AGENT_BRANCHES_MAX
    ):
        branches = [
            _periods(FactPeriod.objects.filter(agent_id=agent_id), filters, after, oldest_first)[
                : limit + 1
            ]
            for agent_id in agent_ids
        ]
        union = branches[0].union(*branches[1:], all=True)
        rows = list(union.order_by(*_order(oldest_first))[: limit + 1])
    else:
        in_agents = FactPeriod.objects.filter(agent_id__in=agent_ids)
        rows = list(_periods(in_agents, filters, after, oldest_first)[: limit + 1])
    loaded = Fact.objects.select_related("agent__workspace").in_bulk([r.fact_id for r in rows])
    changes = []
    for period in rows[:limit]:
        kind, resolution = _kind_of(period)
        changes.append(
            Change(
                kind=kind,
                at=period.started_at,
                fact=loaded[period.fact_id],
                resolution=resolution,
                period_id=period.pk,
                time_known=period.started_known,
            )
        )
    next_cursor = (
        encode_change_cursor(changes[-1], oldest_first=oldest_first) if len(rows) > limit else None
    )
    return ChangePage(items=changes, next_cursor=next_cursor)


def change_to_dict(change: Change, *, now: datetime | None = None) -> dict[str, Any]:
    return {
        "kind": change.kind.value,
        "at": change.at,
        "time_known": change.time_known,
        "resolution": change.resolution,
        "fact": fact_to_dict(change.fact, now=now),
    }
