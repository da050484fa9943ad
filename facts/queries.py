"""Reads of facts: filtered lists with keyset pagination, one fact with its provenance."""

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db.models import Case, F, Prefetch, Q, QuerySet, Subquery, Value, When
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.pagination import DEFAULT_PAGE_SIZE, clean_limit, keyset_page
from facts.exceptions import FactNotFound, ReceiptNotFound
from facts.models import Fact, FactPeriod, FactQuerySet, FactSource, Status, in_force_at
from facts.rules import days_until_stale, freshness, freshness_label, policy_half_lives
from language.values import display_value
from memory.models import Memory
from tenancy.access import Access
from tenancy.models import Agent, AuditEvent, ErasureReceipt
from tenancy.validation import user_forms


@dataclass(frozen=True)
class FactPage:
    items: list[Fact]
    next_cursor: str | None


@dataclass(frozen=True)
class FactFilters:
    user: str | None = None
    subject: str | None = None
    predicate: str | None = None
    statuses: list[str] = field(default_factory=list)
    # Transaction time: the facts recorded by then, each with the status it had then (the
    # status filter and the counts apply to that status).
    as_of: datetime | None = None
    # Valid time: only facts true in the world at this moment (FactQuerySet.valid_at: in
    # their valid window, a history value only until it stopped being believed, never a
    # rejected or deleted one).
    valid_at: datetime | None = None
    # Only the value of each slot in force now, or at ``valid_at`` (models.in_force_at): a
    # value handed over to one that holds from a later date until then, its successor from
    # that date. "What is true now", where the status is what the agent recorded.
    in_force: bool = False
    search: str | None = None
    # The dashboard's forgiving filters: user, subject and predicate match by their start,
    # whatever the case. The API and the CLI match them exactly (an agent asking for
    # "ana"'s facts must never get "anastasia"'s).
    prefix: bool = False
    # Set by ``plan_prefix_filters``: few facts match the prefixes, so they are read through
    # the prefix indexes and sorted, rather than found walking every fact newest first.
    few_by_prefix: bool = False


def parse_statuses(raw: str | list[str] | None) -> list[str]:
    """``"current,disputed"`` or a list; each must be a known status."""
    if not raw:
        return []
    items = raw.split(",") if isinstance(raw, str) else raw
    statuses = [item.strip() for item in items if item.strip()]
    unknown = [s for s in statuses if s not in Status.values]
    if unknown:
        raise InvalidInput(
            "status", f"unknown status {unknown[0]!r}; use {', '.join(Status.values)}"
        )
    return statuses


def status_field(filters: FactFilters) -> str:
    """The field a status is read from: the status at ``as_of`` in a point-in-time list."""
    return "status_then" if filters.as_of is not None else "status"


# The dashboard's filters that match a key by its start, whatever its case: "AN" finds
# "ana" and "andre". Django's istartswith is UPPER(col::text) LIKE UPPER(x) || '%' on
# PostgreSQL, which the expression indexes of migration 0006 serve; SQLite's LIKE is
# case-insensitive for ASCII (only: "É" does not find "é" there).
PREFIX_FIELDS = {"user": "user_ref", "subject": "subject", "predicate": "predicate"}


# One agent's facts, or those of every agent an Access sees ("all agents" in the dashboard).
AgentScope = Agent | Access


def facts_of(scope: AgentScope) -> FactQuerySet:
    """The facts of ``scope``. Staff see every agent: their "all agents" is not narrowed at
    all, so the planner walks the id index newest first instead of joining the agents."""
    if isinstance(scope, Agent):
        return Fact.objects.filter(agent=scope)
    if scope.workspace is None and scope.agent_ids is None:
        return Fact.objects.all()
    return Fact.objects.filter(agent__in=scope.agents().values("id"))


def _key_match(filters: FactFilters, field: str, value: str) -> Q:
    # An empty value is exact even with prefix (the API's user="": about no one).
    # Each stored form of the value (tenancy.validation.user_forms: an id stored before
    # ids were normalised may be in NFD).
    match = Q()
    for form in user_forms(value):
        match |= Q(**{f"{field}__istartswith" if filters.prefix and value else field: form})
    return match


def filter_facts(agent: AgentScope, filters: FactFilters) -> FactQuerySet:
    facts = facts_of(agent)
    if filters.user is not None:
        facts = facts.filter(_key_match(filters, "user_ref", filters.user))
    if filters.subject:
        facts = facts.filter(_key_match(filters, "subject", filters.subject))
    if filters.predicate:
        facts = facts.filter(_key_match(filters, "predicate", filters.predicate))
    if filters.as_of is not None:
        facts = facts.with_status_at(filters.as_of)
    if filters.statuses:
        facts = facts.filter(**{f"{status_field(filters)}__in": filters.statuses})
    if filters.in_force:
        facts = facts.filter(in_force_at(filters.valid_at or timezone.now()))
    if filters.valid_at is not None:
        facts = facts.valid_at(filters.valid_at, status_field=status_field(filters))
    if filters.search:
        facts = facts.filter(value__icontains=filters.search)
    return facts


SUGGESTIONS_MAX = 10
# A suggestion list reads at most this many index entries: the first distinct keys among
# them are offered, so a prefix shared by a million facts costs what a rare one does.
# Typing one more letter narrows it.
SUGGESTION_SCAN = 500


def suggest_keys(
    scope: AgentScope, *, field: str, prefix: str, limit: int = SUGGESTIONS_MAX
) -> list[str]:
    """Up to ``limit`` distinct values of the key ``field`` ("user", "subject" or
    "predicate") starting with ``prefix`` (any case) among the facts of ``scope``, sorted;
    none for an empty prefix."""
    column = PREFIX_FIELDS[field]
    if not prefix:
        return []
    rows = (
        facts_of(scope)
        .filter(**{f"{column}__istartswith": prefix})
        .exclude(**{column: ""})
        .order_by()
        .values_list(column, flat=True)[:SUGGESTION_SCAN]
    )
    return sorted(set(rows), key=lambda key: (key.casefold(), key))[:limit]


# Counts on the dashboard stop here: beyond it a count reads "1,000+", and a count never
# reads more than this many index entries, whatever the size of the agent.
COUNT_CAP = 1000


def bounded_count(facts: QuerySet[Fact], *, in_id_order: bool = True) -> int:
    """The number of ``facts``, or COUNT_CAP + 1 when there are more than COUNT_CAP.
    ``in_id_order``: read newest first (the id index walks to the first COUNT_CAP of a
    common status); without it, whichever index the planner picks (see FEW_BY_PREFIX)."""
    ordered = facts.order_by("-id") if in_id_order else facts.order_by()
    return ordered[: COUNT_CAP + 1].count()


# A prefix shared by fewer facts than this is read through its index and sorted (a few
# milliseconds); a commoner one lets the planner walk the facts newest first, where its
# matches are dense enough to fill a page soon. Without this, PostgreSQL estimates a
# prefix's matches as spread evenly over time and walks the id index for them all, which
# for one user's facts recorded long ago reads most of the table (480 ms at 200,000 facts).
# Counting to it reads that many rows (20,000 took 89 ms at a million facts, its sorted
# page as long), while a prefix as common as this fills a page newest first in a few
# thousand rows.
FEW_BY_PREFIX = 5_000
# An ordering equal to "-id" that the primary key cannot serve (see FEW_BY_PREFIX).
SORTED_NEWEST_FIRST = (F("id") + 0).desc()


def _keyed(filters: FactFilters) -> bool:
    return any((filters.user, filters.subject, filters.predicate))


def plan_prefix_filters(scope: "AgentScope", filters: FactFilters) -> FactFilters:
    """``filters`` with ``few_by_prefix`` set when prefix filters match fewer than
    FEW_BY_PREFIX facts: one bounded count, only when a prefix filter is given."""
    if not (filters.prefix and _keyed(filters)):
        return filters
    matches = filter_facts(scope, replace(filters, statuses=[], as_of=None, valid_at=None))
    few = matches.order_by()[:FEW_BY_PREFIX].count() < FEW_BY_PREFIX
    return replace(filters, few_by_prefix=few)


def _newest_first(filters: FactFilters) -> Any:
    return SORTED_NEWEST_FIRST if filters.few_by_prefix else "-id"


def count_label(count: int) -> str:
    return f"{COUNT_CAP:,}+" if count > COUNT_CAP else f"{count:,}"


def status_counts(agent: AgentScope, filters: FactFilters) -> dict[str, int]:
    """How many facts of each status match ``filters`` but their statuses (bounded, one
    short index read per status); every status is a key, 0 when none match. As of a time,
    each fact counts under the status it had then."""
    facts = filter_facts(agent, replace(filters, statuses=[], in_force=False))
    field = status_field(filters)
    if filters.search or (filters.prefix and not filters.few_by_prefix and _keyed(filters)):
        # A value search, or a prefix many facts share: one sample of their statuses.
        return searched_status_counts(facts, field)
    walk = not filters.few_by_prefix
    return {
        status: bounded_count(facts.filter(**{field: status}), in_id_order=walk)
        for status in Status.values
    }


def in_force_count(agent: AgentScope, filters: FactFilters) -> int:
    """How many facts matching ``filters`` but their statuses are in force (bounded)."""
    facts = filter_facts(agent, replace(filters, statuses=[], in_force=True))
    return bounded_count(facts, in_id_order=not filters.few_by_prefix)


def searched_status_counts(facts: QuerySet[Fact], field: str) -> dict[str, int]:
    """status_counts() of a value search (or a common prefix), from one read of the
    trigram (or prefix) index where it can.

    Each read of that index costs about the same whatever the search finds: a value's
    common words (every fact here says "value ...") make it walk their long posting lists.
    So the statuses of up to one COUNT_CAP + 1 per status of the matches are read at once:
    fewer than that many matches are every match (each count exact); otherwise a status
    seen more than COUNT_CAP times is over the cap for sure, and only the others are
    counted on their own (the rare ones then read the status index, not the trigrams)."""
    sample_size = len(Status.values) * (COUNT_CAP + 1)
    seen = Counter(facts.order_by().values_list(field, flat=True)[:sample_size])
    if seen.total() < sample_size:
        return {status: min(seen[status], COUNT_CAP + 1) for status in Status.values}
    return {
        status: COUNT_CAP + 1
        if seen[status] > COUNT_CAP
        # Unordered: newest first, the planner walks the primary key backwards through the
        # agent's facts for COUNT_CAP + 1 matches (200,000 rows' filter at a million facts)
        # instead of reading the trigram index.
        else facts.filter(**{field: status}).order_by()[: COUNT_CAP + 1].count()
        for status in Status.values
    }


def disputed_count(access: Access) -> int:
    """Disputed facts waiting for a person, over every agent ``access`` sees (bounded)."""
    return bounded_count(Fact.objects.disputed().filter(agent__in=access.agents()))


def list_facts(
    *,
    agent: AgentScope,
    filters: FactFilters,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> FactPage:
    """Newest first, ``limit`` per page; ``next_cursor`` continues after the last item."""
    limit = clean_limit(limit)
    # No join to the agent: every row has the same one, and the join leads SQLite's
    # planner away from walking the primary key in order.
    facts = filter_facts(agent, filters)
    if not isinstance(agent, Agent):
        # Several agents: each row's own, with its workspace (named in the list), in one
        # more query: a join would lead SQLite's planner away from the id index's order.
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    order = _newest_first(filters)
    items, next_cursor = keyset_page(facts, cursor=cursor, limit=limit, newest_first=order)
    if isinstance(agent, Agent):
        for fact in items:
            fact.agent = agent
    return FactPage(items=items, next_cursor=next_cursor)


def current_facts_naming(
    *, agent: Agent, names: Collection[str], user: str, now: datetime, limit: int
) -> list[Fact]:
    """The agent's facts believed now and valid now whose subject or value is one of
    ``names`` (compared as written), the latest confirmed first, at most ``limit``. With a
    ``user``, that user's facts and those about no user; without one, only those about no
    user: another user's facts never answer for someone else."""
    if not names:
        return []
    users = [user, ""] if user else [""]
    facts = (
        Fact.objects.filter(agent=agent, user_ref__in=users)
        .holding_at(now)
        .filter(Q(subject__in=names) | Q(value__in=names))
        .order_by("-last_confirmed_at", "-id")[:limit]
    )
    found = list(facts)
    for fact in found:
        fact.agent = agent
    return found


def get_fact(*, access: Access, fact_id: int, agent: Agent | None = None) -> Fact:
    facts = Fact.objects.select_related("agent__workspace")
    return access.load(facts, fact_id, missing=FactNotFound, label="Fact", agent=agent)


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


def facts_for_export(*, agent: AgentScope, filters: FactFilters) -> FactQuerySet:
    """Every fact of ``agent`` (one agent, or every agent an Access sees) that ``filters``
    let through, newest first as the list shows them, unevaluated: the export streams it a
    chunk at a time (with several agents, each chunk's agents in one more query)."""
    facts = filter_facts(agent, filters).order_by("-id")
    if not isinstance(agent, Agent):
        agents = Agent.objects.select_related("workspace")
        facts = facts.prefetch_related(Prefetch("agent", queryset=agents))
    return facts


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


def fact_detail(fact: Fact) -> dict[str, Any]:
    """The fact, its sources, every fact of its slot in order (the history chain), and the
    audit events about it."""
    slot = (
        Fact.objects.in_slot(fact.slot)
        .select_related("agent")
        .prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))
        .order_by("recorded_at", "id")
    )
    events = AuditEvent.objects.filter(target_type="fact", target_id=str(fact.pk)).order_by(
        "created_at", "id"
    )
    now = timezone.now()
    chain = list(slot)
    this = next(f for f in chain if f.pk == fact.pk)
    return {
        **fact_to_dict(this, now=now),
        "sources": [source_to_dict(s) for s in this.sources.all()],
        "history": [fact_to_dict(f, now=now) for f in chain],
        "periods": [period_to_dict(p) for p in FactPeriod.objects.filter(fact=this)],
        "events": [event_to_dict(e) for e in events],
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


REVIEW_QUEUE_LIMIT = 50


def _with_sources(facts: FactQuerySet) -> FactQuerySet:
    return facts.prefetch_related(Prefetch("sources", queryset=FactSource.objects.order_by("id")))


def review_queue(access: Access, *, limit: int = REVIEW_QUEUE_LIMIT) -> list[dict[str, Any]]:
    """The oldest ``limit`` disputed facts of every agent ``access`` sees, each with the
    current value of its slot (or None) and both sets of sources. Four queries whatever the
    length: the disputed facts (the current fact's id found by a subquery), their sources,
    the current facts, theirs."""
    current_of_slot = Fact.objects.current().in_outer_slot()
    disputed = list(
        _with_sources(Fact.objects.disputed().filter(agent__in=access.agents()))
        .select_related("agent__workspace")
        .annotate(current_id=Subquery(current_of_slot.values("id")[:1]))
        .order_by("recorded_at", "id")[:limit]
    )
    current_ids = [f.current_id for f in disputed if f.current_id is not None]
    currents = {f.pk: f for f in _with_sources(Fact.objects.filter(pk__in=current_ids))}
    now = timezone.now()
    return [review_item(fact, currents.get(fact.current_id), now=now) for fact in disputed]


def review_item(fact: Fact, current: Fact | None, *, now: datetime) -> dict[str, Any]:
    """One entry of the review queue; ``current`` shares ``fact``'s agent."""
    if current is not None:
        current.agent = fact.agent
    return {
        **fact_to_dict(fact, now=now),
        # Agent ids repeat across workspaces: staff see whose agent it is.
        "workspace": fact.agent.workspace.slug,
        "sources": [source_to_dict(s) for s in fact.sources.all()],
        "current": None
        if current is None
        else {
            **fact_to_dict(current, now=now),
            "sources": [source_to_dict(s) for s in current.sources.all()],
        },
    }


def get_receipt(*, access: Access, receipt_id: UUID | str) -> ErasureReceipt:
    """A receipt of a workspace ``access`` sees; another workspace's is not found. Loaded by
    workspace, not agent: the agent may be gone, the receipt stays."""
    receipts = ErasureReceipt.objects.all()
    if access.workspace is not None:
        receipts = receipts.filter(workspace=access.workspace)
    try:
        return receipts.get(pk=receipt_id)
    except (ErasureReceipt.DoesNotExist, ValueError, TypeError, ValidationError):
        raise ReceiptNotFound(f"Receipt {receipt_id} not found") from None


def facts_learned_from(memory: Memory) -> list[Fact]:
    """Every fact with ``memory`` among its sources, newest first (of the memory's agent)."""
    facts = list(Fact.objects.filter(sources__memory=memory).distinct().order_by("-id"))
    for fact in facts:
        fact.agent = memory.agent
    return facts


FACTS_NAMING_MAX = 50


def facts_naming(*, agent: Agent, names: list[str], limit: int = FACTS_NAMING_MAX) -> list[Fact]:
    """The agent's facts whose subject or value is one of ``names`` (case-insensitive): what
    the agent knows about an entity. Current facts first, then the newest; at most
    ``limit``."""
    wanted = {name.strip() for name in names if name and name.strip()}
    if not wanted:
        return []
    condition = Q()
    for name in sorted(wanted):
        condition |= Q(subject__iexact=name) | Q(value__iexact=name)
    current_first = Case(When(status=Status.CURRENT, then=Value(0)), default=Value(1))
    facts = list(
        Fact.objects.filter(agent=agent)
        .filter(condition)
        .order_by(current_first, "-id")[: clean_limit(limit)]
    )
    for fact in facts:
        fact.agent = agent
    return facts
