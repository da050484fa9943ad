"""Prometheus metrics: what the server counts, and /metrics, where an operator scrapes them.

Every count lives in the process that made it: under gunicorn (and in the worker cluster) in
prometheus-client's memory-mapped files, one set per process (dewee.metrics_dirs), which a
scrape adds up, so any web process answers for all of them. A scrape reads those files and
asks the database one thing, the queue's depth (one query): it writes nothing, and costs
what the number of label sets (routes, statuses, job kinds) makes it cost, not the number
of requests served.

Who may scrape: with DEWEE_METRICS_TOKEN set, a request carrying it as a Bearer token, from
anywhere; without one, only a client connected from DEWEE_METRICS_ALLOW_IPS (loopback by
default) and not through a proxy, and everyone else gets a 404, as if there were nothing
here. A wrong or missing token is a 401."""

import hmac
import ipaddress
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from dewee import metrics_dirs

logger = logging.getLogger("dewee.metrics")

# Seconds: from a cached recall (a few ms) to a slow context build or a large check.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Jobs: from an idle-session sweep to a decay pass over millions of memories.
JOB_BUCKETS = (0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 600.0, 1800.0)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Paths no URL pattern serves are counted together: each raw path would be a label set of
# its own (and may hold an id).
UNMATCHED = "unmatched"

REQUESTS = Counter(
    "dewee_http_requests",
    "HTTP requests answered, by URL pattern (never the raw path), method and status.",
    ["route", "method", "status"],
)
IN_PROGRESS = Gauge(
    "dewee_http_requests_in_progress",
    "Requests being served now, summed over the live web processes.",
    multiprocess_mode="livesum",
)
OPERATION_SECONDS = Histogram(
    "dewee_operation_duration_seconds",
    "Time to answer the API's main operations: recall, context, store, facts_check.",
    ["operation"],
    buckets=LATENCY_BUCKETS,
)
DATABASE_REFUSALS = Counter(
    "dewee_database_refusals",
    "Requests answered 503 because the database was busy or out of reach, by error code.",
    ["code"],
)
POOL_REQUESTS = Counter(
    "dewee_db_pool_requests", "Connections asked of the web processes' PostgreSQL pools."
)
POOL_WAITS = Counter(
    "dewee_db_pool_waits", "Connection requests that found every pooled connection in use."
)
POOL_WAIT_SECONDS = Counter(
    "dewee_db_pool_wait_seconds", "Time spent waiting for a pooled connection, in seconds."
)
POOL_TIMEOUTS = Counter(
    "dewee_db_pool_timeouts",
    "Connection requests that waited DEWEE_DB_POOL_TIMEOUT_SECS in vain (a 503).",
)
READS_SERVED = Counter(
    "dewee_db_reads_served",
    "Requests that only read, by the database that served them (replica or primary), when "
    "read replicas are configured.",
    ["database"],
)
JOB_SECONDS = Histogram(
    "dewee_job_duration_seconds",
    "Background jobs (django-q2) run, by kind (the task's function) and outcome.",
    ["kind", "outcome"],
    buckets=JOB_BUCKETS,
)
FACTS_WRITTEN = Counter(
    "dewee_facts_written",
    "Facts asserted or learned, by outcome (created, confirmed, superseded, disputed).",
    ["outcome"],
)
FACTS_LEARNED = Counter(
    "dewee_facts_learned", "Facts written from what users said (a facts check applied)."
)
ENTITIES_SKIPPED = Counter(
    "dewee_entities_skipped",
    "New entities not made because a hard entities quota was full (the store went on).",
)
DISPUTES_OPENED = Counter(
    "dewee_fact_disputes_opened", "Disputed facts recorded: a value waiting for a decision."
)
DISPUTES_SETTLED = Counter(
    "dewee_fact_disputes_settled", "Disputed facts accepted or rejected.", ["action"]
)

# (method, route) -> the operation whose latency is kept: the routes behind the agent's
# main calls, whoever serves them.
OPERATIONS = {
    ("POST", "v1/memory/recall"): "recall",
    ("POST", "v1/context"): "context",
    ("POST", "v1/memories"): "store",
    ("POST", "v1/memories/batch"): "store",
    ("POST", "v1/facts/check"): "facts_check",
}


def route_of(request: HttpRequest) -> str:
    """The URL pattern that served ``request`` (v1/memories/<int:memory_id>), or that would
    have, for a request refused before its view was chosen (a 429)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return UNMATCHED
    route = match.route or ""
    # re_path patterns that catch everything else (route_not_found) are not a route.
    return UNMATCHED if route.startswith("^") else route


class _PoolStats:
    """psycopg's pool counts its requests and waits since it opened; each process adds what
    grew since it last looked to the shared counters."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}

    def note(self) -> None:
        pool = getattr(connections[DEFAULT_DB_ALIAS], "pool", None)
        if pool is None:
            return
        stats = pool.get_stats()
        with self.lock:
            for key, counter, scale in (
                ("requests_num", POOL_REQUESTS, 1),
                ("requests_queued", POOL_WAITS, 1),
                ("requests_wait_ms", POOL_WAIT_SECONDS, 1000),
                ("requests_errors", POOL_TIMEOUTS, 1),
            ):
                now = stats.get(key, 0)
                grown = now - self.seen.get(key, 0)
                if grown > 0:
                    counter.inc(grown / scale)
                self.seen[key] = now


_pool_stats = _PoolStats()


def request_metrics(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Outermost middleware: counts every answer by route, method and status, and times the
    main operations."""

    def middleware(request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        IN_PROGRESS.inc()
        try:
            response = get_response(request)
        finally:
            IN_PROGRESS.dec()
        elapsed = time.perf_counter() - started
        method = request.method if request.method in METHODS else "other"
        route = route_of(request)
        REQUESTS.labels(route, method, str(response.status_code)).inc()
        if (operation := OPERATIONS.get((method, route))) is not None:
            OPERATION_SECONDS.labels(operation).observe(elapsed)
        if settings.DEWEE_PROCESS == "web":
            _pool_stats.note()
        return response

    return middleware


def count_database_refusal(code: str) -> None:
    DATABASE_REFUSALS.labels(code).inc()


def count_reads_served(database: str) -> None:
    READS_SERVED.labels(database).inc()


def count_fact_written(outcome: str) -> None:
    """Counted when the transaction that wrote the fact commits (a rolled-back write
    never happened); so are the others below."""
    transaction.on_commit(lambda: FACTS_WRITTEN.labels(outcome).inc())


def count_dispute_opened() -> None:
    transaction.on_commit(DISPUTES_OPENED.inc)


def count_facts_learned(count: int) -> None:
    if count:
        transaction.on_commit(lambda: FACTS_LEARNED.inc(count))


def count_entities_skipped(count: int) -> None:
    if count:
        transaction.on_commit(lambda: ENTITIES_SKIPPED.inc(count))


def count_dispute_settled(action: str) -> None:
    transaction.on_commit(lambda: DISPUTES_SETTLED.labels(action).inc())


def job_finished(sender: Any = None, task: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """django-q2's post_execute (in the cluster's monitor process): one job done."""
    if not task:
        return
    started, stopped = task.get("started"), task.get("stopped")
    if started is None or stopped is None:
        return
    func = task.get("func")
    if not isinstance(func, str):
        func = f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', func)}"
    outcome = "success" if task.get("success") else "failure"
    JOB_SECONDS.labels(func, outcome).observe(max(0.0, (stopped - started).total_seconds()))


class QueueCollector:
    """The worker queue's depth, read from django-q2's ORM broker at scrape time: jobs
    waiting, and jobs taken by a worker and not yet acknowledged. A read, no write."""

    def collect(self) -> Iterator[Metric]:
        from django.db.models import Count, Q
        from django.utils import timezone
        from django_q.conf import Conf
        from django_q.models import OrmQ

        family = GaugeMetricFamily(
            "dewee_queue_depth", "Background jobs in the queue, by state.", labels=["state"]
        )
        now = timezone.now()
        try:
            # One query, on the request's connection (the broker's own counts close "old"
            # connections first, which in a web process is the one the request holds).
            counts = (
                OrmQ.objects.using(Conf.ORM)
                .filter(key=Conf.CLUSTER_NAME)
                .aggregate(
                    waiting=Count("id", filter=Q(lock__lte=now)),
                    running=Count("id", filter=Q(lock__gt=now)),
                )
            )
        except Exception:  # the database is out of reach: the rest of the scrape still works
            logger.warning("queue depth not read for /metrics", exc_info=True)
            return
        family.add_metric(["waiting"], counts["waiting"])
        family.add_metric(["running"], counts["running"])
        yield family


class ReplicaCollector:
    """Each read replica's lag and whether it takes reads, as the scraping process sees
    them (every web process checks every replica: dewee.replica_health)."""

    def collect(self) -> Iterator[Metric]:
        from dewee.replica_health import monitor

        replicas = monitor()
        replicas.ensure_running()
        report = replicas.report()
        lag = GaugeMetricFamily(
            "dewee_db_replica_lag_seconds",
            "How far each read replica is behind the primary (NaN when it cannot be read).",
            labels=["replica"],
        )
        rotation = GaugeMetricFamily(
            "dewee_db_replica_in_rotation",
            "1 when a read replica takes reads, 0 when it is out (down, or too far behind).",
            labels=["replica"],
        )
        for alias, state in report.items():
            seconds = state["lag_secs"]
            lag.add_metric([alias], float("nan") if seconds is None else seconds)
            rotation.add_metric([alias], 1.0 if state["in_rotation"] else 0.0)
        yield lag
        yield rotation


class _FilesCollector:
    """The counts of every process of this web server and of its worker cluster."""

    def __init__(self, folders: list[Any]) -> None:
        self.folders = folders

    def collect(self) -> Iterable[Metric]:
        files = [str(path) for folder in self.folders for path in folder.glob("*.db")]
        return MultiProcessCollector.merge(files, accumulate=True)


class _ThisProcess:
    """Without multiprocess mode (runserver, tests, a CLI command): this process's counts."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def exposition() -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    folders = metrics_dirs.scraped_dirs()
    registry.register(_FilesCollector(folders) if folders else _ThisProcess())
    registry.register(QueueCollector())
    if settings.DEWEE_DB_REPLICA_URLS:
        registry.register(ReplicaCollector())
    return generate_latest(registry)


@cache
def _allowed_networks() -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False)
        for part in settings.DEWEE_METRICS_ALLOW_IPS.split(",")
        if part.strip()
    )


# A proxy in front says whose request it passes on: through it, a loopback peer is anyone.
_PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def may_scrape(request: HttpRequest) -> bool:
    if token := settings.DEWEE_METRICS_TOKEN:
        scheme, _, value = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode(), token.encode()
        )
    if any(request.META.get(header) for header in _PROXY_HEADERS):
        return False
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in _allowed_networks())


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not settings.DEWEE_METRICS_ENABLED:
        return HttpResponse("Not Found", status=404, content_type="text/plain; charset=utf-8")
    if not may_scrape(request):
        if settings.DEWEE_METRICS_TOKEN:
            refused = HttpResponse(
                "A metrics token is needed", status=401, content_type="text/plain; charset=utf-8"
            )
            refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return refused
        # Without a token, the endpoint does not exist for anyone outside.
        return HttpResponse("Not Found", status=404, content_type="text/plain; charset=utf-8")
    response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
