"""Server time of the dashboard's Facts tab with a million facts.

    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/dashboard.py
    .venv/bin/python bench/dashboard.py --facts 200000          # SQLite, smaller

Loads FACTS facts for one agent (10,000 users x 100, the status mix of bench/facts.py) with
bulk inserts, then requests filtered pages of /dashboard/facts/ in-process through Django's
test client as a staff operator (the whole view: access check, form, counts per status,
keyset page, template), full page and htmx partial. Target: p50 <= 100 ms on PostgreSQL.
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
from tenancy.services import create_agent, default_workspace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(3)
    agent = create_agent(workspace=default_workspace(), agent_id=f"dash-{time.time_ns()}")
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
    base = {"agent": agent.agent_id}
    now = timezone.now()
    cases = {
        "no filter": lambda: {},
        "status=disputed": lambda: {"status": "disputed"},
        "user": lambda: {"user": f"user-{rng.randrange(users)}"},
        "predicate + status=current": lambda: {"predicate": "employer", "status": "current"},
        "as of a date": lambda: {
            "user": f"user-{rng.randrange(users)}",
            "as_of": (now - timedelta(days=rng.randrange(400))).strftime("%Y-%m-%dT%H:%M"),
        },
        "value search": lambda: {"q": f"value {rng.randrange(1000)}"},
    }
    print(f"\n## Dashboard Facts tab on {connection.vendor} ({args.facts:,} facts)\n")
    print("| filter | full page p50 ms | p95 ms | htmx table p50 ms |")
    print("|---|---|---|---|")
    for name, make in cases.items():
        full: list[float] = []
        partial: list[float] = []
        for i in range(args.requests):
            params = {**base, **make()}
            headers = {"HX-Request": "true"} if i % 2 else {}
            begun = time.perf_counter()
            response = client.get("/dashboard/facts/", params, headers=headers)
            elapsed = time.perf_counter() - begun
            assert response.status_code == 200, response.status_code
            (partial if headers else full).append(elapsed)
        p95 = statistics.quantiles(full, n=100)[94]
        print(
            f"| {name} | {1000 * statistics.median(full):.1f} | {1000 * p95:.1f} | "
            f"{1000 * statistics.median(partial):.1f} |"
        )


if __name__ == "__main__":
    main()
