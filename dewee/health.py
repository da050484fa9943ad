"""Health for orchestrators and load balancers.

- ``/healthz``: the process is alive and serving (touches nothing else).
- ``/readyz``: this server can do its work: the database answers, every migration is
  applied, and the worker cluster has beaten recently. 503 names what failed.

Both read only."""

import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from dewee.limits import proxy_notice
from dewee.replica_health import monitor, replica_aliases

# Migrations are checked again at most this often once found applied (loading the
# migration graph costs tens of milliseconds).
MIGRATIONS_RECHECK_SECS = 60
_migrations_applied_at = 0.0


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _database() -> dict[str, Any]:
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True, "latency_ms": round((time.monotonic() - started) * 1000, 1)}


def _migrations() -> dict[str, Any]:
    global _migrations_applied_at
    if time.monotonic() - _migrations_applied_at < MIGRATIONS_RECHECK_SECS:
        return {"ok": True}
    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        names = [f"{migration.app_label}.{migration.name}" for migration, _ in pending]
        return {"ok": False, "error": f"{len(names)} migration(s) not applied", "pending": names}
    _migrations_applied_at = time.monotonic()
    return {"ok": True}


def _worker() -> dict[str, Any]:
    from memory.models import WorkerHeartbeat

    beat = WorkerHeartbeat.objects.order_by("-beat_at").first()
    if beat is None:
        return {"ok": False, "error": "the worker cluster has never beaten"}
    age = (timezone.now() - beat.beat_at).total_seconds()
    check: dict[str, Any] = {
        "ok": age <= settings.DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS,
        "last_heartbeat": beat.beat_at.isoformat(),
        "age_secs": round(age),
        "host": beat.host,
    }
    if not check["ok"]:
        check["error"] = f"no worker heartbeat for {round(age)} s"
    return check


QUEUE_KEY_NOTICE = (
    "Jobs in the worker queue are signed with another secret key than this host's: every web "
    "and worker host must have the same DEWEE_SECRET_KEY, or the jobs one host queues are "
    "never run by the others' workers."
)
# How many of the oldest waiting jobs are looked at: enough to see a second key at once.
QUEUE_KEY_SAMPLE = 20


def queue_key_notice() -> str | None:
    """The secret-key notice when a job in the queue was signed with another key (another
    host's): looked at without unpickling anything, a read."""
    from django_q import core_signing
    from django_q.conf import Conf
    from django_q.models import OrmQ

    signer = core_signing.TimestampSigner(key=Conf.SECRET_KEY, salt=Conf.PREFIX)
    payloads = (
        OrmQ.objects.using(Conf.ORM)
        .filter(key=Conf.CLUSTER_NAME)
        .order_by("id")
        .values_list("payload", flat=True)[:QUEUE_KEY_SAMPLE]
    )
    try:
        for payload in payloads:
            try:
                signer.unsign(payload)
            except core_signing.BadSignature:
                return QUEUE_KEY_NOTICE
    except DatabaseError:
        return None  # the database check says what is wrong
    return None


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, dict[str, Any]] = {}
    for name, probe in (("database", _database), ("migrations", _migrations), ("worker", _worker)):
        try:
            checks[name] = probe()
        except DatabaseError as exc:
            checks[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()}
            if name == "database":
                # Without a database the other checks can only fail the same way.
                for rest in ("migrations", "worker"):
                    checks[rest] = {"ok": False, "error": "the database cannot be reached"}
                break
    failed = [name for name, check in checks.items() if not check["ok"]]
    body: dict[str, Any] = {
        "status": "not_ready" if failed else "ready",
        "failed": failed,
        "checks": checks,
    }
    if replica_aliases():
        # Out of rotation is no failure: reads go to the primary meanwhile.
        replicas = monitor()
        replicas.ensure_running()
        body["replicas"] = replicas.report()
    # What the operator should fix although the server can work (never a 503).
    notices = [notice for notice in (proxy_notice(), queue_key_notice()) if notice]
    if notices:
        body["notices"] = notices
    response = JsonResponse(body, status=503 if failed else 200)
    if failed:
        response["Retry-After"] = "5"
    return response
