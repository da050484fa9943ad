"""Server time of the grouped review queue with a million facts (10% of them disputed).

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/review.py
    .venv/bin/python bench/review.py --facts 200000          # SQLite, smaller
    ... bench/review.py --facts 200000 --explain             # and the slowest query's plan

Loads FACTS facts for one agent (10,000 users x 100, the status mix of bench/facts.py: one
in ten disputed) with bulk inserts, then requests /dashboard/review/ in-process through
Django's test client as a staff operator (the whole view: access check, filter form, the
bounded count, the oldest 50 disputes grouped by slot with each slot's current value and
both sets of sources, the re-confirmation section, template), full page and htmx partial,
unfiltered and with each filter; then the side panel of a dispute (its evidence, its slot's
history, its assignee, snooze and comments), as the queue's htmx asks for it on each j/k.
One dispute in twenty is assigned to the operator and one in a hundred snoozed, so the
queue's snooze test and the assignee filter are measured as they run once teams use them.
Target: p50 <= 100 ms on PostgreSQL, the queue with the panel.
"""

import argparse
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# Static files are served from the apps here: a benchmark run has no collectstatic.
os.environ.setdefault(
    "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
)

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bench.facts import bulk_facts
from facts.models import DisputeTriage, Fact
from tenancy.models import Agent
from tenancy.services import create_agent, default_workspace


def explain(client: Client, params: dict[str, str]) -> None:
    """The plan of the slowest query the page with ``params`` runs, as the view runs it
    (the queue's order differs with the filters: a rare prefix is sorted, not walked)."""
    with CaptureQueriesContext(connection) as captured:
        client.get("/dashboard/review/", params)
    slowest = max(captured.captured_queries, key=lambda q: float(q["time"]))
    verb = (
        "EXPLAIN (ANALYZE, BUFFERS) "
        if connection.vendor == "postgresql"
        else "EXPLAIN QUERY PLAN "
    )
    with connection.cursor() as cursor:
        cursor.execute(verb + slowest["sql"])
        plan = "\n".join(" ".join(map(str, row)) for row in cursor.fetchall())
    print(f"\nSlowest query with {params or 'no filter'} ({slowest['time']} s):\n```\n{plan}\n```")


def _triage(agent: Agent, staff: Any, rng: random.Random) -> list[int]:
    """Assign one dispute in 20 to ``staff`` and snooze one in 100 for a week; the ids of a
    sample of disputes for the panel."""
    ids = list(Fact.objects.filter(agent=agent).disputed().values_list("id", flat=True))
    now = timezone.now()
    rows = [
        DisputeTriage(
            fact_id=i,
            agent=agent,
            assignee=staff if n % 20 == 0 else None,
            snoozed_until=now + timedelta(days=7) if n % 100 == 1 else None,
            updated_at=now,
            updated_by="bench",
        )
        for n, i in enumerate(ids)
        if n % 20 == 0 or n % 100 == 1
    ]
    DisputeTriage.objects.bulk_create(rows, batch_size=5000)
    return rng.sample(ids, min(len(ids), 1000))


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
    triaged = _triage(agent, staff, rng)
    ref = f"{agent.workspace.slug}/{agent.agent_id}"
    cases = {
        "no filter": {},
        "agent": {"agent": ref},
        "workspace": {"workspace": agent.workspace.slug},
        "predicate prefix 'EMP'": {"predicate": "EMP"},
        "predicate prefix 'attr_1'": {"predicate": "attr_1"},
        "older than 30 days": {"age": "30"},
        "recorded before a date": {"before": str((start + timedelta(days=1)).date())},
        "assigned to me": {"assigned": "me"},
        "snoozed only": {"snoozed": "only"},
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
    panel: list[float] = []
    for fact_id in rng.sample(triaged, min(args.requests, len(triaged))):
        begun = time.perf_counter()
        response = client.get(f"/dashboard/review/{fact_id}/", headers={"HX-Request": "true"})
        panel.append(time.perf_counter() - begun)
        assert response.status_code == 200, response.status_code
    p95 = statistics.quantiles(panel, n=100)[94]
    print(
        f"\n| side panel of a dispute (htmx) | p50 {1000 * statistics.median(panel):.1f} ms | "
        f"p95 {1000 * p95:.1f} ms |\n|---|---|---|"
    )
    if args.explain:
        explain(client, {})
        explain(client, {"predicate": "EMP"})


if __name__ == "__main__":
    main()
