"""How many database connections a host's processes may hold, checked against the budget
the operator sets (``DEWEE_DB_MAX_CONNECTIONS``).

A web process holds at most its pool (``DEWEE_DB_POOL_SIZE``); each process of the django-q2
cluster holds at most one (the worker does not pool: its processes are single-threaded and
short jobs would keep idle connections open for nothing)."""

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import checks


def worker_connections(workers: int) -> int:
    """One per worker process, plus the cluster's sentinel (which runs the scheduler),
    pusher, monitor and the cluster process itself."""
    return workers + 4


@dataclass(frozen=True)
class ConnectionPlan:
    web_workers: int
    pool_size: int
    workers: int
    budget: int
    # Read replicas: each web process pools to each of them as to the primary, and checks
    # every database once a second on one connection per database of its own.
    replicas: int = 0

    @property
    def web(self) -> int:
        return self.web_workers * (self.pool_size + (1 if self.replicas else 0))

    @property
    def per_replica(self) -> int:
        """What the web processes hold on each replica (the worker reads the primary)."""
        return self.web_workers * (self.pool_size + 1) if self.replicas else 0

    @property
    def worker(self) -> int:
        return worker_connections(self.workers)

    @property
    def total(self) -> int:
        return self.web + self.worker

    def describe(self) -> str:
        per_web = f"{self.pool_size}" if not self.replicas else f"({self.pool_size} + 1 check)"
        text = (
            f"database connections: web {self.web_workers} x {per_web} = {self.web} "
            f"+ worker {self.worker} = {self.total}, budget {self.budget}"
        )
        if self.replicas:
            text += f"; each of {self.replicas} replicas: {self.per_replica}"
        return text


def connection_plan() -> ConnectionPlan:
    return ConnectionPlan(
        web_workers=settings.DEWEE_WEB_WORKERS,
        pool_size=settings.DEWEE_DB_POOL_SIZE,
        workers=settings.DEWEE_WORKERS,
        budget=settings.DEWEE_DB_MAX_CONNECTIONS,
        replicas=len(settings.DEWEE_DB_REPLICA_URLS),
    )


def check_connection_budget(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for name in ("DEWEE_WEB_WORKERS", "DEWEE_WEB_THREADS", "DEWEE_DB_POOL_SIZE", "DEWEE_WORKERS"):
        if getattr(settings, name) < 1:
            errors.append(checks.Error(f"{name} must be at least 1", id="dewee.E201"))
    if settings.DEWEE_DB_POOL_TIMEOUT_SECS <= 0:
        errors.append(checks.Error("DEWEE_DB_POOL_TIMEOUT_SECS must be above 0", id="dewee.E202"))
    if errors:
        return errors
    plan = connection_plan()
    if plan.total > plan.budget or plan.per_replica > plan.budget:
        errors.append(
            checks.Error(
                f"Over the connection budget: {plan.describe()}.",
                hint="Raise DEWEE_DB_MAX_CONNECTIONS (and PostgreSQL's max_connections), or "
                "lower DEWEE_WEB_WORKERS, DEWEE_DB_POOL_SIZE or DEWEE_WORKERS.",
                id="dewee.E203",
            )
        )
    return errors + check_replica_settings()


def check_replica_settings() -> list[checks.CheckMessage]:
    """Replicas are PostgreSQL servers beside a PostgreSQL primary, and a client that wrote
    reads the primary for longer than a replica may lag and stay in rotation."""
    if not settings.DEWEE_DB_REPLICA_URLS:
        return []
    return replica_setting_errors(
        engines={config["ENGINE"] for config in settings.DATABASES.values()},
        own_writes_secs=settings.DEWEE_DB_READ_OWN_WRITES_SECS,
        max_lag_secs=settings.DEWEE_DB_REPLICA_MAX_LAG_SECS,
        check_secs=settings.DEWEE_DB_REPLICA_CHECK_SECS,
    )


def replica_setting_errors(
    *, engines: set[str], own_writes_secs: float, max_lag_secs: float, check_secs: float
) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    if engines != {settings.POSTGRES_ENGINE}:
        errors.append(
            checks.Error(
                "DEWEE_DB_REPLICA_URLS needs PostgreSQL: the primary (DATABASE_URL) and every "
                "replica must be postgres:// URLs.",
                id="dewee.E204",
            )
        )
    # A replica's lag is known as of its last check: it may have grown by one interval since.
    if own_writes_secs <= max_lag_secs + check_secs:
        errors.append(
            checks.Error(
                f"DEWEE_DB_READ_OWN_WRITES_SECS ({own_writes_secs}) must be above "
                "DEWEE_DB_REPLICA_MAX_LAG_SECS + DEWEE_DB_REPLICA_CHECK_SECS "
                f"({max_lag_secs + check_secs}): a client could read a replica that lacks its "
                "own write.",
                id="dewee.E205",
            )
        )
    if check_secs <= 0:
        errors.append(checks.Error("DEWEE_DB_REPLICA_CHECK_SECS must be above 0", id="dewee.E206"))
    return errors
