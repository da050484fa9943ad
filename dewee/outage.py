"""A database that is busy or out of reach is the server's condition, not a bug: requests
answer 503 with Retry-After (the API's one error shape, or a plain page for people) and the
next request tries again, so everything works as soon as the database does.

Django's handler500 is the one place every uncaught exception reaches (from views and from
middleware alike); the API's own exception handler calls the same function."""

import logging
import sys
import threading
import time
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

from dewee.errors import speaks_json
from dewee.metrics import count_database_refusal
from dewee.replicas import answered_again

logger = logging.getLogger("dewee.outage")

# PostgreSQL error states of a database that is there but full, locked or slow: too many
# connections, statement or lock timeout, deadlock, serialization failure.
_BUSY_STATES = {"53300", "57014", "55P03", "40P01", "40001"}
# ... and of one going away: shut down by an operator, crashed, starting up.
_GONE_STATES = {"57P01", "57P02", "57P03"}
# SQLite says it in words.
_SQLITE_BUSY = ("database is locked", "database table is locked")
_SQLITE_GONE = ("unable to open database file", "disk i/o error")
# PostgreSQL refuses a new connection with a message, not a state.
_CONNECT_BUSY = ("too many clients", "remaining connection slots")
BUSY_RETRY_AFTER_SECS = 2
UNAVAILABLE_RETRY_AFTER_SECS = 5
# A pool that failed to connect within this time is taken to face a database outage.
POOL_ERRORS_RECENT_SECS = 15.0


@dataclass(frozen=True)
class DatabaseTrouble:
    code: str
    message: str
    retry_after: int
    # What the database or the pool said, for the log: which wait ran out (the pool's, a
    # lock's, a deadlock). The first line of the deepest cause; no values of a query.
    cause: str = ""


def database_trouble(exc: BaseException | None) -> DatabaseTrouble | None:
    """What to tell the client when ``exc`` is the database being busy or out of reach;
    None for every other error."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return None
    causes: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(causes) < 5:
        causes.append(seen)
        seen = seen.__cause__ or seen.__context__
    kind = _kind_of_trouble(exc, causes)
    deepest = causes[-1]
    cause = f"{type(deepest).__name__}: {(str(deepest).splitlines() or [''])[0][:160]}"
    if kind == "busy":
        return DatabaseTrouble(
            "database_busy",
            "The database is busy; try again shortly",
            BUSY_RETRY_AFTER_SECS,
            cause,
        )
    if kind == "gone":
        return DatabaseTrouble(
            "database_unavailable",
            "The database cannot be reached; try again shortly",
            UNAVAILABLE_RETRY_AFTER_SECS,
            cause,
        )
    return None


def _kind_of_trouble(exc: BaseException, causes: list[BaseException]) -> str | None:
    """busy, gone, or None when the error is not the database's condition (a query the
    database refuses, for instance, stays an error of ours)."""
    names = {type(cause).__name__ for cause in causes}
    if names & {"PoolTimeout", "TooManyRequests"}:
        return "gone" if _pool_cannot_connect() else "busy"
    if isinstance(exc, InterfaceError):
        return "gone"  # the connection was closed under us
    text = " ".join(str(cause) for cause in causes).lower()
    if any(phrase in text for phrase in (*_SQLITE_BUSY, *_CONNECT_BUSY)):
        return "busy"
    if any(phrase in text for phrase in _SQLITE_GONE):
        return "gone"
    states = [getattr(cause, "sqlstate", None) for cause in causes]
    psycopg_error = any(type(cause).__module__.startswith("psycopg") for cause in causes)
    if not psycopg_error:
        return None
    if any(state in _BUSY_STATES for state in states):
        return "busy"
    if any(state in _GONE_STATES or (state or "").startswith("08") for state in states):
        return "gone"
    # No state at all: the client library lost the server (refused, reset, timed out).
    return "gone" if all(state is None for state in states) else None


class _PoolErrors:
    """When this process's pool last failed to open a connection. psycopg's pool counts its
    failed attempts; a count that grew since the last look means a failure just now."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen = 0
        self.failed_at = float("-inf")

    def failing_recently(self) -> bool:
        pool = getattr(connections[DEFAULT_DB_ALIAS], "pool", None)
        if pool is None:
            return False
        errors = pool.get_stats().get("connections_errors", 0)
        with self.lock:
            if errors > self.seen:
                self.seen, self.failed_at = errors, time.monotonic()
            return time.monotonic() - self.failed_at < POOL_ERRORS_RECENT_SECS


_pool_errors = _PoolErrors()


def _pool_cannot_connect() -> bool:
    """Whether this process's pool failed to open a connection lately: a wait for a
    connection then means the database is out of reach, not that all were in use."""
    return _pool_errors.failing_recently()


def trouble_response(request: HttpRequest, trouble: DatabaseTrouble) -> HttpResponse:
    if answered_again():
        # A replica failed a read: the primary answers it again (dewee.replicas), so the
        # client is refused nothing; the replica's own line says it left rotation.
        logger.info("%s on %s %s (%s)", trouble.code, request.method, request.path, trouble.cause)
    else:
        logger.warning(
            "%s on %s %s (%s)", trouble.code, request.method, request.path, trouble.cause
        )
        count_database_refusal(trouble.code)
    response: HttpResponse
    if speaks_json(request.path):
        response = JsonResponse(
            {"error": {"code": trouble.code, "message": trouble.message, "details": None}},
            status=503,
        )
    else:
        page = loader.get_template("503.html").render({"trouble": trouble})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(trouble.retry_after)
    return response


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database outage becomes a 503; any other error keeps Django's 500
    (in the API's shape under /v1/)."""
    trouble = database_trouble(sys.exc_info()[1])
    if trouble is not None:
        return trouble_response(request, trouble)
    if speaks_json(request.path):
        return JsonResponse(
            {
                "error": {
                    "code": "internal_error",
                    "message": "An unexpected error occurred; it was logged",
                    "details": None,
                }
            },
            status=500,
        )
    return HttpResponse(loader.get_template("500.html").render({}), status=500)
