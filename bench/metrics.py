"""What one /metrics scrape costs (dewee.metrics), at 100 routes, and that it does not grow
with the requests served.

    .venv/bin/python bench/metrics.py                                        # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/metrics.py  # PostgreSQL

In multiprocess mode, as under gunicorn: two forked "web processes" each count requests on
100 URL patterns (GET 200, GET 404, POST 201: 300 series each) and time the four main
operations; then GET /metrics is timed in process (Django's test client: the middleware, the
access check, the queue's depth read from the database, the merge of every process's files).
Then each process serves --requests more requests on the same routes and the scrape is timed
again: its cost follows the number of series, not of requests.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-metrics-")
# As gunicorn's config does, before anything imports prometheus-client.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="dewee-metrics-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, override_settings  # noqa: E402

from dewee.metrics import OPERATION_SECONDS, REQUESTS  # noqa: E402

ROUTES = [f"v1/things-{i}/<int:thing_id>" for i in range(100)]
OPERATIONS = ("recall", "context", "store", "facts_check")
WEB_PROCESSES = 2


def serve(requests: int) -> None:
    """``requests`` answers counted as the middleware counts them, spread over the routes."""
    for n in range(requests):
        route = ROUTES[n % len(ROUTES)]
        kind = n % 3
        if kind == 0:
            REQUESTS.labels(route, "GET", "200").inc()
        elif kind == 1:
            REQUESTS.labels(route, "GET", "404").inc()
        else:
            REQUESTS.labels(route, "POST", "201").inc()
        OPERATION_SECONDS.labels(OPERATIONS[n % 4]).observe((n % 97) / 1000)


class WebProcesses:
    """WEB_PROCESSES forked processes that stay up, as gunicorn's workers do, and serve
    what they are told to (each counts into its own files)."""

    def __init__(self) -> None:
        self.children: list[tuple[int, int, int]] = []
        for _ in range(WEB_PROCESSES):
            orders_r, orders_w = os.pipe()
            done_r, done_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(orders_w)
                os.close(done_r)
                # The pipes of the processes forked before: kept open here, their ends
                # would never see the parent close them.
                for _other, other_orders, other_done in self.children:
                    os.close(other_orders)
                    os.close(other_done)
                while line := os.read(orders_r, 64):
                    serve(int(line))
                    os.write(done_w, b"ok")
                os._exit(0)
            os.close(orders_r)
            os.close(done_w)
            self.children.append((pid, orders_w, done_r))

    def serve(self, requests: int) -> None:
        for _pid, orders, _done in self.children:
            os.write(orders, str(requests).encode())
        for _pid, _orders, done in self.children:
            assert os.read(done, 2) == b"ok"

    def stop(self) -> None:
        for pid, orders, done in self.children:
            os.close(orders)
            os.close(done)
            os.waitpid(pid, 0)


def time_scrapes(client: Client, n: int) -> tuple[list[float], int, int]:
    samples, size = [], 0
    for _ in range(n):
        t0 = time.perf_counter()
        answer = client.get("/metrics")
        samples.append((time.perf_counter() - t0) * 1000)
        assert answer.status_code == 200
        size = len(answer.content)
    series = sum(
        1 for line in answer.content.decode().splitlines() if line and not line.startswith("#")
    )
    return samples, size, series


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(samples):.2f} ms, p95 {p95:.2f} ms, max {ordered[-1]:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scrapes", type=int, default=200)
    parser.add_argument("--requests", type=int, default=100_000, help="Per web process and round.")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    # Forked processes must not share the parent's database connection.
    connection.close()
    print(f"edition: {connection.vendor}; {WEB_PROCESSES} web processes, {len(ROUTES)} routes")
    with override_settings(DEWEE_METRICS_TOKEN=""):
        client = Client(REMOTE_ADDR="127.0.0.1", HTTP_HOST="localhost")
        web = WebProcesses()
        web.serve(len(ROUTES) * 3 * 4)
        client.get("/metrics")  # warm: imports, the first connection
        first, size, series = time_scrapes(client, args.scrapes)
        print(
            f"after {len(ROUTES) * 3 * 4 * WEB_PROCESSES:,} requests: {summary(first)} "
            f"({series} series, {size / 1024:.0f} KiB; counting files "
            f"{files_size() / 1024:.0f} KiB)"
        )
        medians = [statistics.median(first)]
        total = len(ROUTES) * 3 * 4 * WEB_PROCESSES
        for _round in range(args.rounds):
            connection.close()
            t0 = time.perf_counter()
            web.serve(args.requests)
            served = time.perf_counter() - t0
            total += args.requests * WEB_PROCESSES
            later, size, series = time_scrapes(client, args.scrapes)
            medians.append(statistics.median(later))
            print(
                f"after {total:,} requests: {summary(later)} ({series} series, "
                f"{size / 1024:.0f} KiB; counting files {files_size() / 1024:.0f} KiB)"
            )
        print(
            "counting one request (a counter and a histogram): "
            f"{served / args.requests * 1e6:.1f} us"
        )
        web.stop()
        print("scrape p50 by round: " + ", ".join(f"{m:.2f}" for m in medians) + " ms")


def files_size() -> int:
    folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    return sum(entry.stat().st_size for entry in os.scandir(folder))


if __name__ == "__main__":
    main()
