"""Server time of the grouped review queue with a million facts (10% of them disputed).

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/review.py
    .venv/bin/python bench/review.py --facts 200000          # SQLite, smaller
    ... bench/review.py --facts 200000 --explain             # and the disputes' query plan

Loads FACTS facts for one agent (10,000 users x 100, the status mix of bench/facts.py: one
in ten disputed) with bulk inserts, then requests /dashboard/review/ in-process through
Django's test client as a staff operator (the whole view: access check, filter form, the
bounded count, the oldest 50 disputes grouped by slot with each slot's current value and
both sets of sources, the re-confirmation section, template), full page and htmx partial,
unfiltered and with each filter. Target: p50 <= 100 ms on PostgreSQL.
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# Static files are served from the apps here: a benchmark run has no collectstatic.
os.environ.setdefault(
    "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from bench.facts import bulk_facts
from facts.models import Fact
from facts.triage import ReviewFilters, _with_current, disputes_matching
from tenancy.access import Access
from tenancy.services import create_agent, default_workspace


def explain(filters: ReviewFilters) -> None:
    matching = disputes_matching(Access(actor="bench"), filters)
    query = _with_current(matching).order_by("recorded_at", "id")[:50]
    plan = query.explain(analyze=True) if connection.vendor == "postgresql" else query.explain()
    print(f"\n```\n{plan}\n```\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(3)
    agent = create_agent(workspace=default_workspace(), agent_id=f"review-{time.time_ns()}")
    users = max(1, args.facts // 100)
    start = timezone.now() - timedelta(days=400)
    began = time.perf_counter()
    for u in range(users):
        Fact.objects.bulk_create(bulk_facts(agent, f"user-{u}", 100, rng, start), batch_size=5000)
        if u % 1000 == 999:
            print(
                f"  {(u + 1) * 100:,} facts ({time.perf_counter() - began:.0f} s)", file=sys.stderr
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    staff = get_user_model().objects.create_user(
        username=f"bench-{time.time_ns()}", password="x", is_staff=True
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(staff)
    ref = f"{agent.workspace.slug}/{agent.agent_id}"
    cases = {
        "no filter": {},
        "agent": {"agent": ref},
        "workspace": {"workspace": agent.workspace.slug},
        "predicate prefix 'EMP'": {"predicate": "EMP"},
        "predicate prefix 'attr_1'": {"predicate": "attr_1"},
        "older than 30 days": {"age": "30"},
        "recorded before a date": {"before": str((start + timedelta(days=1)).date())},
    }
    disputed = Fact.objects.filter(agent=agent).disputed().count()
    print(
        f"\n## Grouped review queue on {connection.vendor} "
        f"({args.facts:,} facts, {disputed:,} disputed)\n"
    )
    print("| filter | full page p50 ms | p95 ms | htmx queue p50 ms |")
    print("|---|---|---|---|")
    for name, params in cases.items():
        full: list[float] = []
        partial: list[float] = []
        for i in range(args.requests):
            headers = {"HX-Request": "true"} if i % 2 else {}
            begun = time.perf_counter()
            response = client.get("/dashboard/review/", params, headers=headers)
            elapsed = time.perf_counter() - begun
            assert response.status_code == 200, response.status_code
            (partial if headers else full).append(elapsed)
        p95 = statistics.quantiles(full, n=100)[94]
        print(
            f"| {name} | {1000 * statistics.median(full):.1f} | {1000 * p95:.1f} | "
            f"{1000 * statistics.median(partial):.1f} |"
        )
    if args.explain:
        explain(ReviewFilters())
        explain(ReviewFilters(predicate="EMP"))


if __name__ == "__main__":
    main()
