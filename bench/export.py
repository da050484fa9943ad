"""Export of the dashboard's Facts list: time and peak memory of a streamed export.

    .venv/bin/python bench/export.py                          # SQLite (a temporary file)
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/export.py
    .venv/bin/python bench/export.py --facts 10000            # smaller

Loads FACTS facts for one agent (100 per user, the status mix of bench/facts.py) with bulk
inserts, then requests /dashboard/facts/export/ in-process through Django's test client as
a staff operator (the whole view: access check, filter form, streamed response) and reads
the stream to its end, in CSV and in JSON. Each export is timed once as it is and once
under tracemalloc for the peak of Python memory while it streams (tracemalloc slows it, so
its time is not the one reported). Target: 100,000 rows in under 10 s on PostgreSQL, with a
peak far below the size of the file (the rows are never all held).
"""

import argparse
import random
import sys
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Before any model: bench.facts sets Django up (on a temporary SQLite without DATABASE_URL).
from bench.facts import bulk_facts  # isort: skip

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.http import StreamingHttpResponse
from django.test import Client
from django.utils import timezone

from facts.models import Fact
from tenancy.services import create_agent, default_workspace


def export(client: Client, params: dict[str, str]) -> tuple[float, float, float, int, int]:
    """Seconds to the first chunk and to the end, CPU seconds of this process, bytes and
    lines of one export. (On a shared machine the wall time waits for the CPU; the CPU time
    is this process's own work, the database's included on SQLite.)"""
    begun = time.perf_counter()
    cpu = time.process_time()
    response = client.get("/dashboard/facts/export/", params)
    assert response.status_code == 200, response.status_code
    assert isinstance(response, StreamingHttpResponse)
    first = None
    size = lines = 0
    for chunk in response.streaming_content:
        if first is None:
            first = time.perf_counter() - begun
        size += len(chunk)
        lines += chunk.count(b"\n")
    response.close()
    return first or 0.0, time.perf_counter() - begun, time.process_time() - cpu, size, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rng = random.Random(5)
    agent = create_agent(workspace=default_workspace(), agent_id=f"export-{time.time_ns()}")
    users = max(1, args.facts // 100)
    start = timezone.now() - timedelta(days=400)
    for u in range(users):
        Fact.objects.bulk_create(bulk_facts(agent, f"user-{u}", 100, rng, start), batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    staff = get_user_model().objects.create_user(
        username=f"bench-{time.time_ns()}", password="x", is_staff=True
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(staff)
    client.get("/healthz")  # the first request loads the middleware: not timed
    print(f"\n## Facts export on {connection.vendor} ({users * 100:,} facts)\n")
    print("| format | rows | MB | first chunk ms | total s | CPU s | rows/s | peak Python MB |")
    print("|---|---|---|---|---|---|---|---|")
    for fmt in ("csv", "json"):
        params = {"agent": agent.agent_id, "format": fmt}
        first, total, cpu, size, lines = export(client, params)
        tracemalloc.start()
        export(client, params)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows = lines - 1 if fmt == "csv" else lines - 2  # the header; the brackets' lines
        print(
            f"| {fmt} | {rows:,} | {size / 1e6:.1f} | {1000 * first:.0f} | {total:.2f} | "
            f"{cpu:.2f} | {rows / total:,.0f} | {peak / 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
