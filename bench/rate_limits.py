"""What the rate limits cost per API request (dewee.limits, dewee.rate_counters).

    .venv/bin/python bench/rate_limits.py                                        # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/rate_limits.py  # PostgreSQL

In a database of its own (SQLite: a temporary var/; PostgreSQL: the DATABASE_URL server),
with the edition's default counter store, times:

- one trivial query on the main database, for scale (on a loaded machine a round trip to
  the PostgreSQL server costs a scheduling delay);
- the limiter alone, as an API request with a valid key meets it (its address's rate, then
  its key's: one statement each, an upsert), from 1 thread and from 8;
- GET /v1/agents in process (Django's test client: no network), limits on and off.
"""

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable

if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-limits-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.cache import caches  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, RequestFactory, override_settings  # noqa: E402

from dewee.limits import api_address_refusal, check_key_rate  # noqa: E402
from tenancy.services import create_api_key, create_workspace  # noqa: E402


def timed(fn: Callable[[], object], n: int) -> list[float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"mean {statistics.fmean(samples):.3f} ms, p50 {statistics.median(samples):.3f} ms, "
        f"p99 {p99:.3f} ms ({len(samples)} requests)"
    )


def limiter_once(factory: RequestFactory, n: int) -> None:
    request = factory.get("/v1/agents", REMOTE_ADDR=f"10.0.{n % 250}.{n % 7}")
    assert api_address_refusal(request) is None
    check_key_rate(request, key_id=f"key:bench{n % 16}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    store = caches["rate_limits"]
    print(f"edition: {connection.vendor}; counter store: {type(store).__name__}")
    factory = RequestFactory()

    def round_trip() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchall()

    print(f"one query (SELECT 1) on the database, for scale: {summary(timed(round_trip, 500))}")
    counter = iter(range(10**9))
    one = timed(lambda: limiter_once(factory, next(counter)), args.requests)
    print(f"limiter alone, 1 thread:  {summary(one)}")

    threads_out: list[list[float]] = []

    def worker() -> None:
        threads_out.append(timed(lambda: limiter_once(factory, next(counter)), args.requests // 8))
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"limiter alone, 8 threads: {summary([s for out in threads_out for s in out])}")

    workspace = create_workspace(slug=f"bench-{os.getpid()}")
    _key, secret = create_api_key(workspace=workspace, name="bench", actor="bench")
    client = Client(headers={"Authorization": f"Bearer {secret}"}, HTTP_HOST="localhost")
    n = max(100, args.requests // 4)

    def get() -> None:
        assert client.get("/v1/agents").status_code == 200

    timed(get, 50)  # warm up
    with override_settings(
        DEWEE_RATE_LIMIT_KEY=None,
        DEWEE_RATE_LIMIT_ADDRESS=None,
        DEWEE_RATE_LIMIT_AUTH_FAILURES=None,
    ):
        off = timed(get, n)
    on = timed(get, n)
    print(f"GET /v1/agents, limits off: {summary(off)}")
    print(f"GET /v1/agents, limits on:  {summary(on)}")
    print(
        f"difference of the means: {statistics.fmean(on) - statistics.fmean(off):+.3f} ms "
        f"(DEWEE_RATE_LIMIT_FILE={settings.DEWEE_RATE_LIMIT_FILE})"
    )


if __name__ == "__main__":
    main()
