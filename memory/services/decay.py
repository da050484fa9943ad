"""The decay pass: bring every memory's importance to where its curve is now
(memory.maintenance.decay_curves), in set-based SQL, and record each agent's importance distribution
afterwards."""

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import OperationalError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from memory.maintenance.decay_curves import (
    CHANGE_EPSILON,
    bucket_sql,
    check_decay_settings,
    decayed_importance_sql,
)
from memory.models import ImportanceSnapshot, Memory, MemoryType
from memory.services.passes import PassResult
from tenancy.models import Agent

BUCKETS = 10
SNAPSHOT_RETENTION_DAYS = 90
# How long a batch waits for a row a recall holds before it rolls back and retries, and
# how many times it tries.
DECAY_LOCK_TIMEOUT_MS = 500
DECAY_LOCK_ATTEMPTS = 5


@dataclass
class DecayResult(PassResult):
    """A pass's counts plus the importance distribution of the memories in its scope before
    and after it (ten bands of 0.1, lowest first); for a dry run, "after" is what it would be."""

    before: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    after: list[int] = field(default_factory=lambda: [0] * BUCKETS)

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "before": self.before, "after": self.after}


@dataclass(frozen=True)
class _Group:
    """Memories of one type whose agents share a strategy, so one statement with constant
    parameters decays them all: ``agent_sql`` narrows to those agents ("" for all)."""

    strategy: str
    memory_type: str
    agent_sql: str


def _ids(pks: list[int]) -> str:
    # Integer primary keys read from the database: inlined, so a scope of thousands of
    # agents does not run into a driver's parameter limit.
    return ", ".join(str(int(pk)) for pk in pks)


def _in(pks: list[int]) -> str:
    return f" AND agent_id IN ({_ids(pks)})"


def _groups(scope: list[int] | None) -> list[_Group]:
    """One group per (strategy, memory type): the server's strategy for every agent in
    scope that does not choose another for that type, and one group per other choice."""
    server = settings.DEWEE_DECAY_STRATEGY
    chosen = Agent.objects.filter(memory_policy__has_key="strategy")
    if scope is not None:
        chosen = chosen.filter(pk__in=scope)
    policies = list(chosen.values_list("pk", "memory_policy"))
    groups = []
    for memory_type in MemoryType.values:
        by_strategy: dict[str, list[int]] = {}
        for pk, policy in policies:
            strategy = policy["strategy"].get(memory_type, server)
            if strategy != server:
                by_strategy.setdefault(strategy, []).append(pk)
        others = [pk for pks in by_strategy.values() for pk in pks]
        if scope is None:
            default_sql = f" AND agent_id NOT IN ({_ids(others)})" if others else ""
            groups.append(_Group(server, memory_type, default_sql))
        else:
            rest = sorted(set(scope) - set(others))
            if rest:
                groups.append(_Group(server, memory_type, _in(rest)))
        groups += [_Group(s, memory_type, _in(pks)) for s, pks in by_strategy.items()]
    return groups


def _adapted(now: datetime) -> object:
    return connection.ops.adapt_datetimefield_value(now)


@dataclass
class _Distribution:
    """Per agent: memories per band, count and sum of importance."""

    buckets: dict[int, list[int]] = field(default_factory=dict)
    totals: Counter[int] = field(default_factory=Counter)
    sums: defaultdict[int, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, agent_pk: int, bucket: int, count: int, total: float) -> None:
        self.buckets.setdefault(agent_pk, [0] * BUCKETS)[bucket] += count
        self.totals[agent_pk] += count
        self.sums[agent_pk] += total

    def overall(self) -> list[int]:
        return [sum(b[i] for b in self.buckets.values()) for i in range(BUCKETS)]


def _distribution(scope: list[int] | None) -> _Distribution:
    where = f"WHERE agent_id IN ({_ids(scope)})" if scope is not None else ""
    distribution = _Distribution()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT agent_id, {bucket_sql('importance')}, COUNT(*), SUM(importance) "
            f"FROM memory_memory {where} GROUP BY 1, 2"
        )
        for agent_pk, bucket, count, total in cursor.fetchall():
            distribution.add(agent_pk, int(bucket), int(count), float(total))
    return distribution


def _preview(groups: list[_Group], now: datetime) -> tuple[_Distribution, Counter[int]]:
    """What a pass would leave (distribution) and change (per agent), without writing."""
    after, changed = _Distribution(), Counter[int]()
    with connection.cursor() as cursor:
        for group in groups:
            new, params = decayed_importance_sql(
                group.strategy, memory_type=group.memory_type, now_param=_adapted(now)
            )
            cursor.execute(
                f"SELECT agent_id, {bucket_sql(new)}, COUNT(*), SUM({new}), "
                f"SUM(CASE WHEN ABS(importance - {new}) > {CHANGE_EPSILON} THEN 1 ELSE 0 END) "
                f"FROM memory_memory WHERE memory_type = %s{group.agent_sql} GROUP BY 1, 2",
                [*params, *params, *params, group.memory_type],
            )
            for agent_pk, bucket, count, total, changes in cursor.fetchall():
                after.add(agent_pk, int(bucket), int(count), float(total))
                changed[agent_pk] += int(changes)
    return after, changed


def _update_sql(group: _Group, now: datetime) -> tuple[str, list[Any], list[Any]]:
    """The UPDATE of one group within an id range lo < id <= hi, with the parameters that
    go before and after that range's two. Only rows whose value moves are written, so a
    repeat pass writes nothing."""
    new, params = decayed_importance_sql(
        group.strategy, memory_type=group.memory_type, now_param=_adapted(now)
    )
    sql = (
        f"UPDATE memory_memory SET importance = {new} "
        f"WHERE id > %s AND id <= %s AND memory_type = %s{group.agent_sql} "
        f"AND ABS(importance - {new}) > {CHANGE_EPSILON} RETURNING agent_id"
    )
    return sql, params, [group.memory_type, *params]


def _is_lock_timeout(exc: OperationalError) -> bool:
    return getattr(exc.__cause__, "sqlstate", None) == "55P03"


def _apply_batch(
    statements: list[tuple[str, list[Any], list[Any]]], lo: int, hi: int
) -> Counter[int]:
    """One id range, all groups, one transaction; returns the rows written per agent.

    PostgreSQL: the pass gives way to recalls. A recall's access update (up to 100 rows)
    may hold a row the batch needs while waiting for one the batch holds; rather than
    leave that to the deadlock detector (which could fail the recall), the batch stops
    waiting after DECAY_LOCK_TIMEOUT, rolls back and starts again. Its commit does not
    wait for the WAL flush: a crash loses at most the last batches, which the next pass
    writes again with the same values."""
    for attempt in range(DECAY_LOCK_ATTEMPTS):
        changed = Counter[int]()
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                if connection.vendor == "postgresql":
                    cursor.execute(f"SET LOCAL lock_timeout = '{DECAY_LOCK_TIMEOUT_MS}ms'")
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
                for sql, head, tail in statements:
                    cursor.execute(sql, [*head, lo, hi, *tail])
                    changed.update(row[0] for row in cursor.fetchall())
            return changed
        except OperationalError as exc:
            if not _is_lock_timeout(exc) or attempt == DECAY_LOCK_ATTEMPTS - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def _apply(
    groups: list[_Group],
    scope: list[int] | None,
    now: datetime,
    batch_size: int,
    progress: Callable[[int, int], None] | None = None,
    total: int = 0,
) -> Counter[int]:
    """Run every group's UPDATE over consecutive id ranges of ``batch_size`` memories, each
    range in its own short transaction: recalls (and their access updates) wait at most one
    batch, and a pass stopped midway leaves each memory either before or after it (the next
    pass, reading only base and start, finishes the job with the same values)."""
    statements = [_update_sql(group, now) for group in groups]
    memories = Memory.objects.order_by("id")
    if scope is not None:
        memories = memories.filter(agent_id__in=scope)
    changed = Counter[int]()
    lo, done = 0, 0
    while True:
        bound = memories.filter(id__gt=lo).values_list("id", flat=True)[batch_size - 1 : batch_size]
        hi = next(iter(bound), None)
        # The last range is open: memories stored during the pass start at their base.
        upper = hi if hi is not None else 2**63 - 1
        changed.update(_apply_batch(statements, lo, upper))
        done = total if hi is None else min(done + batch_size, total)
        if progress is not None:
            progress(done, total)
        if hi is None:
            return changed
        lo = hi


def _snapshots(distribution: _Distribution, now: datetime) -> None:
    """Record this pass's distribution per agent and drop those past the retention (hourly
    passes would otherwise add 8,760 rows per agent a year)."""
    ImportanceSnapshot.objects.filter(
        agent_id__in=list(distribution.buckets),
        taken_at__lt=now - timedelta(days=SNAPSHOT_RETENTION_DAYS),
    ).delete()
    ImportanceSnapshot.objects.bulk_create(
        ImportanceSnapshot(
            agent_id=agent_pk,
            taken_at=now,
            buckets=buckets,
            total=distribution.totals[agent_pk],
            mean=distribution.sums[agent_pk] / max(distribution.totals[agent_pk], 1),
        )
        for agent_pk, buckets in distribution.buckets.items()
    )


def decay_pass(
    *,
    agents: QuerySet[Agent] | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> DecayResult:
    """Set every memory of ``agents`` (None: all) to its importance at ``now`` under its
    agent's strategy for its type, and record one ImportanceSnapshot per agent with memories.

    Invariants: importance is a function of (decay_base, decay_from, access_count, type,
    strategy, now) only, so repeated or interrupted passes converge on the same values; it
    never rises above its base nor falls below the floor (a base under the floor stays);
    nothing is deleted; memory_version is not bumped (no cache holds importance: the SQLite
    vector cache keeps ids, vectors and deadlines). A dry run reports and writes nothing.
    ``progress(done, total)`` is told of the memories written after each batch (the CLI's
    bar)."""
    # The web server checks these at start; the CLI and a worker started by hand do not.
    if errors := check_decay_settings():
        raise ImproperlyConfigured("; ".join(f"{e.msg} ({e.hint or e.id})" for e in errors))
    now = now or timezone.now()
    scope = None if agents is None else list(agents.values_list("pk", flat=True))
    result = DecayResult()
    if scope == []:
        return result
    groups = _groups(scope)
    before = _distribution(scope)
    if dry_run:
        after, changed = _preview(groups, now)
    else:
        changed = _apply(
            groups,
            scope,
            now,
            settings.DEWEE_DECAY_BATCH_SIZE,
            progress=progress,
            total=sum(before.totals.values()),
        )
        after = _distribution(scope)
        with transaction.atomic():
            _snapshots(after, now)
    workspaces = dict(
        Agent.objects.filter(pk__in=list(before.totals)).values_list("pk", "workspace_id")
    )
    for agent_pk, total in before.totals.items():
        result.add(
            workspaces[agent_pk],
            touched=changed[agent_pk],
            memories=total,
            changed=changed[agent_pk],
        )
    result.before, result.after = before.overall(), after.overall()
    return result
