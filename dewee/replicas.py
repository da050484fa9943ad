"""Reads on read replicas (``DEWEE_DB_REPLICA_URLS``), with read-your-writes.

What may read a replica: a web request that only reads (GET and HEAD: lists, pages, exports;
and the agent's recall and context, POSTs that read), in no transaction, for any model but
the ones that decide who may do what (API keys, members, users, sessions: always fresh).
Everything else reads and writes the primary: writes, the worker, the CLI, and the reads
of a request, a key or a dashboard session that wrote in the last
``DEWEE_DB_READ_OWN_WRITES_SECS`` (a key's last write is kept in the shared counters, so
every web host knows it; a browser's in a cookie). That window is longer than the lag a
replica may have and stay in rotation (``DEWEE_DB_REPLICA_MAX_LAG_SECS``, a check), so a
client always reads what it wrote. A replica that fails a request's query is taken out of
rotation and the request is answered again from the primary: a replica going down costs
no error (dewee.replica_health checks them).
"""

from __future__ import annotations

import contextvars
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, HttpResponse

from dewee.metrics import count_reads_served
from dewee.replica_health import monitor, replica_aliases

logger = logging.getLogger("dewee.replicas")

# POSTs that only read: the agent's calls of every turn.
READING_POSTS = frozenset({"/v1/memory/recall", "/v1/context"})
HEALTH_PATHS = ("/healthz", "/readyz", "/metrics")
# Who may do what is read where it is decided last: a revoked key or a removed member
# must not get in through a replica's older copy.
ALWAYS_PRIMARY = frozenset(
    {"tenancy.apikey", "tenancy.workspacemember", "auth.user", "sessions.session"}
)
# The cookie that keeps a browser that just wrote on the primary.
WROTE_COOKIE = "dewee_wrote"


@dataclass
class RequestReads:
    """One request's routing: whether it may read a replica, and what it used."""

    may_read_replica: bool
    key_id: object = None  # the API key the request came with, once authenticated
    used: set[str] = field(default_factory=set)
    off: bool = False  # the request is being answered again from the primary


_current: contextvars.ContextVar[RequestReads | None] = contextvars.ContextVar(
    "dewee_request_reads", default=None
)


def enabled() -> bool:
    return bool(replica_aliases()) and settings.DEWEE_PROCESS == "web"


class ReplicaRouter:
    """Django's database router: reads as above, every write on the primary, migrations
    only there (a replica is a copy of it)."""

    def db_for_read(self, model: Any, **hints: Any) -> str:
        reads = _current.get()
        if reads is None or not reads.may_read_replica or reads.off:
            return DEFAULT_DB_ALIAS
        if model._meta.label_lower in ALWAYS_PRIMARY:
            return DEFAULT_DB_ALIAS
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS  # a read that a write of the same transaction may rely on
        choices = monitor().in_rotation()
        if not choices:
            return DEFAULT_DB_ALIAS
        alias = next(iter(reads.used & set(choices)), None) or random.choice(choices)
        reads.used.add(alias)
        return alias

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS


def _failed_replicas(reads: RequestReads) -> list[str]:
    """The replicas the request read that do not answer now: what made it fail (a request
    that fails for any other reason fails the same on the primary, and is not repeated)."""
    return [alias for alias in sorted(reads.used) if not monitor().answers(alias)]


def _reads_only(request: HttpRequest) -> bool:
    if request.path.startswith(HEALTH_PATHS):
        return False  # this host's own view of the primary
    return request.method in ("GET", "HEAD") or (
        request.method == "POST" and request.path in READING_POSTS
    )


def answered_again() -> bool:
    """Whether the request being served read a replica and will be answered again from the
    primary if it fails: its failure is then no refusal the client sees."""
    reads = _current.get()
    return reads is not None and bool(reads.used) and not reads.off


def _key_marker(key_id: object) -> str:
    return f"wrote:key:{key_id}"


def note_key(key_id: object) -> None:
    """The request is a key's: a key that wrote lately reads the primary (called where the
    key is authenticated, before its view reads anything)."""
    reads = _current.get()
    if reads is None:
        return
    reads.key_id = key_id
    if reads.may_read_replica and caches["rate_limits"].get(_key_marker(key_id)) is not None:
        reads.may_read_replica = False


def _remember_write(reads: RequestReads, response: HttpResponse) -> None:
    """A request that may have written: its key, or its browser, reads the primary for
    a while."""
    window = settings.DEWEE_DB_READ_OWN_WRITES_SECS
    if reads.key_id is not None:
        caches["rate_limits"].set(_key_marker(reads.key_id), int(time.time()), timeout=window)
    else:
        response.set_cookie(
            WROTE_COOKIE, "1", max_age=max(1, round(window)), httponly=True, samesite="Lax"
        )


def replica_reads(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Middleware: decides where each request reads (see the module), and answers a read
    again from the primary when a replica failed it."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not enabled():
            return get_response(request)
        monitor().ensure_running()
        reads_only = _reads_only(request)
        reads = RequestReads(may_read_replica=reads_only and WROTE_COOKIE not in request.COOKIES)
        token = _current.set(reads)
        try:
            response = get_response(request)
            if reads.used and response.status_code >= 500:
                # A replica that does not answer now made the request fail: out of rotation
                # until a check finds it well. The request is answered again from the
                # primary (a read is safe to repeat) when a replica failed it or when the
                # database was out of reach (503), which a replica stopping mid-query can
                # be before it stops answering.
                failed = _failed_replicas(reads)
                for alias in failed:
                    monitor().mark_down(alias, f"{response.status_code} on {request.path}")
                if failed or response.status_code == 503:
                    reads.off = True
                    response = get_response(request)
            if reads_only:
                count_reads_served("replica" if reads.used and not reads.off else "primary")
            elif not 400 <= response.status_code < 500:
                # A refused request wrote nothing: there is nothing of its to read back.
                _remember_write(reads, response)
            return response
        finally:
            _current.reset(token)

    return middleware
