"""Facts benchmark: assert throughput, filtered and point-in-time lists, forget.

    .venv/bin/python bench/facts.py                                  # embedded SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/facts.py   # PostgreSQL

Builds 100k facts over 1,000 users for one agent (plus one user with 10k facts to forget)
in a database of its own (SQLite: a temporary file; PostgreSQL: the DATABASE_URL server),
then times the product's own query and service functions.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

from facts.models import Fact, FactSource, SourceKind, Status, Verification  # noqa: E402
from facts.queries import FactFilters, list_facts  # noqa: E402
from facts.services import (  # noqa: E402
    Claim,
    SourceInput,
    assert_fact,
    forget_facts,
    forget_scope,
)
from tenancy.models import Agent  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402

PREDICATES = [f"attr_{i:02d}" for i in range(40)] + ["employer", "city", "email", "likes"]
STATUS_MIX = [Status.CURRENT] * 6 + [Status.HISTORY] * 3 + [Status.DISPUTED]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100)[int(q) - 1]


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        samples.append(time.perf_counter() - start)
    return samples


def bulk_facts(agent: Agent, user: str, count: int, rng: random.Random, start) -> list[Fact]:
    facts, slots = [], {}
    for i in range(count):
        predicate = PREDICATES[i % len(PREDICATES)]
        qualifier = f"q{i // len(PREDICATES)}"
        status = rng.choice(STATUS_MIX)
        key = (predicate, qualifier)
        if status == Status.CURRENT and key in slots:
            status = Status.HISTORY
        if status == Status.CURRENT:
            slots[key] = True
        recorded = start + timedelta(seconds=i)
        facts.append(
            Fact(
                agent=agent,
                user_ref=user,
                subject="user",
                predicate=predicate,
                qualifier=qualifier,
                value=f"value {rng.randrange(10**6)} of {predicate}",
                status=status,
                recorded_at=recorded,
                last_confirmed_at=recorded,
                believed_from=recorded if status != Status.DISPUTED else None,
                believed_until=recorded + timedelta(days=30) if status == Status.HISTORY else None,
            )
        )
    return facts


def periods_from_columns() -> None:
    """The facts' periods (as-of reads them), rebuilt from their columns as the migration
    that brought periods does for a database that predates them."""
    from django.apps import apps

    import_module("facts.migrations.0010_fact_periods").backfill(apps, None)


def load(agent: Agent, users: int, per_user: int, big_user_facts: int, rng: random.Random) -> None:
    start = timezone.now() - timedelta(days=400)
    for u in range(users):
        facts = Fact.objects.bulk_create(bulk_facts(agent, f"user-{u}", per_user, rng, start))
        FactSource.objects.bulk_create(
            FactSource(
                fact=f,
                kind=SourceKind.CONVERSATION_SUMMARY,
                reference=f"conv-{f.pk}",
                excerpt="from the chat",
                verification=Verification.STATED,
                confidence=1.0,
                recorded_at=f.recorded_at,
            )
            for f in facts
        )
        if u % 100 == 99:
            print(f"  loaded {(u + 1) * per_user:,} facts", file=sys.stderr)
    facts = Fact.objects.bulk_create(bulk_facts(agent, "big-user", big_user_facts, rng, start))
    FactSource.objects.bulk_create(
        FactSource(
            fact=f,
            kind=SourceKind.OPERATOR,
            operator="bench",
            verification=Verification.STATED,
            confidence=1.0,
            recorded_at=f.recorded_at,
        )
        for f in facts
    )
    periods_from_columns()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--per-user", type=int, default=100)
    parser.add_argument("--big-user", type=int, default=10_000)
    parser.add_argument("--asserts", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(7)

    call_command("migrate", verbosity=0)
    edition = connection.vendor
    agent = create_agent(workspace=default_workspace(), agent_id=f"bench-{time.time_ns()}")
    print(
        f"edition: {edition}; machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        file=sys.stderr,
    )

    # Assert throughput through the full service (validation, slot lock, rules, source).
    source = SourceInput(kind=SourceKind.CONVERSATION_SUMMARY, reference="bench", excerpt="bench")
    slots = max(1, args.asserts // 4)

    def one_assert(i: int) -> None:
        claim = Claim(
            user=f"asserter-{i % slots}",
            subject="user",
            predicate="employer",
            value=f"company {i % 7}",
            confidence=rng.random(),
        )
        assert_fact(agent=agent, claim=claim, source=source, actor="bench")

    assert_samples = timed(one_assert, args.asserts)
    assert_rate = args.asserts / sum(assert_samples)

    print(f"loading {args.users * args.per_user + args.big_user:,} facts...", file=sys.stderr)
    load(agent, args.users, args.per_user, args.big_user, rng)
    total = Fact.objects.filter(agent=agent).count()

    def user(i: int) -> str:
        return f"user-{rng.randrange(args.users)}"

    cases = {
        "list: user": lambda i: FactFilters(user=user(i)),
        "list: user + predicate": lambda i: FactFilters(user=user(i), predicate="employer"),
        "list: predicate": lambda i: FactFilters(predicate=rng.choice(PREDICATES)),
        "list: status=disputed": lambda i: FactFilters(statuses=["disputed"]),
        "list: user + value search": lambda i: FactFilters(user=user(i), search="of attr_1"),
        "list: value search, whole agent": lambda i: FactFilters(search=f"value {i}"),
        "list: whole agent": lambda i: FactFilters(),
    }
    rows = []
    for name, make in cases.items():
        samples = timed(
            lambda i, make=make: list_facts(agent=agent, filters=make(i)).items, args.queries
        )
        rows.append((name, samples))

    now = timezone.now()

    def as_of(i: int) -> FactFilters:
        return FactFilters(user=user(i), as_of=now - timedelta(days=rng.randrange(400)))

    rows.append(
        (
            "as_of: user at a random time",
            timed(lambda i: list_facts(agent=agent, filters=as_of(i)).items, args.queries),
        )
    )

    start = time.perf_counter()
    receipt = forget_facts(agent=agent, scope=forget_scope(user="big-user"), actor="bench")
    forget_seconds = time.perf_counter() - start

    print(
        f"\n## Facts on {edition} ({total:,} facts, {args.users:,} users + one of "
        f"{args.big_user:,})\n"
    )
    print(
        f"- assert_fact throughput: {assert_rate:,.0f} facts/s "
        f"(p50 {ms(statistics.median(assert_samples))} ms, "
        f"p95 {ms(percentile(assert_samples, 95))} ms, {args.asserts:,} asserts)"
    )
    print(
        f"- forget one user with {receipt.counts['facts']:,} facts "
        f"(+{receipt.counts['sources']:,} sources): {forget_seconds:.2f} s\n"
    )
    print("| query (page of 50) | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, samples in rows:
        print(f"| {name} | {ms(statistics.median(samples))} | {ms(percentile(samples, 95))} |")


if __name__ == "__main__":
    main()
