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

    @property
    def web(self) -> int:
        return self.web_workers * self.pool_size

    @property
    def worker(self) -> int:
        return worker_connections(self.workers)

    @property
    def total(self) -> int:
        return self.web + self.worker

    def describe(self) -> str:
        return (
            f"database connections: web {self.web_workers} x {self.pool_size} = {self.web} "
            f"+ worker {self.worker} = {self.total}, budget {self.budget}"
        )


def connection_plan() -> ConnectionPlan:
    return ConnectionPlan(
        web_workers=settings.DEWEE_WEB_WORKERS,
        pool_size=settings.DEWEE_DB_POOL_SIZE,
        workers=settings.DEWEE_WORKERS,
        budget=settings.DEWEE_DB_MAX_CONNECTIONS,
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
    if plan.total > plan.budget:
        errors.append(
            checks.Error(
                f"Over the connection budget: {plan.describe()}.",
                hint="Raise DEWEE_DB_MAX_CONNECTIONS (and PostgreSQL's max_connections), or "
                "lower DEWEE_WEB_WORKERS, DEWEE_DB_POOL_SIZE or DEWEE_WORKERS.",
                id="dewee.E203",
            )
        )
    return errors
