"""A database that is busy or out of reach is the server's condition, not a bug: requests
answer 503 with Retry-After (the API's one error shape, or a plain page for people) and the
next request tries again, so everything works as soon as the database does.

Django's handler500 is the one place every uncaught exception reaches (from views and from
middleware alike); the API's own exception handler calls the same function."""

import logging
import sys
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

logger = logging.getLogger("dewee.outage")

# Phrases of "the database is there but full or locked" (PostgreSQL's connection limit,
# SQLite's write lock, a lock or statement timeout); anything else is "unavailable".
_BUSY_PHRASES = (
    "too many clients",
    "remaining connection slots",
    "database is locked",
    "database table is locked",
    "canceling statement due to",
    "deadlock detected",
    "could not serialize access",
)
BUSY_RETRY_AFTER_SECS = 2
UNAVAILABLE_RETRY_AFTER_SECS = 5


@dataclass(frozen=True)
class DatabaseTrouble:
    code: str
    message: str
    retry_after: int


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
    text = " ".join(f"{type(c).__name__} {c}" for c in causes).lower()
    pool_waited = "pooltimeout" in text or "toomanyrequests" in text
    if (pool_waited and not _pool_cannot_connect()) or any(p in text for p in _BUSY_PHRASES):
        return DatabaseTrouble(
            "database_busy",
            "The database is busy; try again shortly",
            BUSY_RETRY_AFTER_SECS,
        )
    return DatabaseTrouble(
        "database_unavailable",
        "The database cannot be reached; try again shortly",
        UNAVAILABLE_RETRY_AFTER_SECS,
    )


def _pool_cannot_connect() -> bool:
    """Whether this process's pool failed to open a connection since the last time we
    asked: a wait for a connection then means the database is out of reach, not that every
    connection was in use."""
    pool = getattr(connections[DEFAULT_DB_ALIAS], "pool", None)
    if pool is None:
        return False
    return bool(pool.pop_stats().get("connections_errors", 0))


def trouble_response(request: HttpRequest, trouble: DatabaseTrouble) -> HttpResponse:
    logger.warning("%s on %s %s", trouble.code, request.method, request.path)
    response: HttpResponse
    if request.path.startswith("/v1/"):
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
    if request.path.startswith("/v1/"):
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
