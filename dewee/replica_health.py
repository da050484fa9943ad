"""Which read replicas may serve reads now: up, still a replica, and not further behind the
primary than ``DEWEE_DB_REPLICA_MAX_LAG_SECS``.

Each web process checks every replica once per ``DEWEE_DB_REPLICA_CHECK_SECS`` from a thread
of its own, on connections of its own (never the pool's), so a request never waits for a
check. The lag is measured against the primary's write position, not against the last
replayed transaction's time (which grows on an idle primary although nothing is missing):
each check samples the primary's WAL position, and a replica is as far behind as the oldest
sample it has not replayed yet. A replica that fails a query mid-request is taken out at
once (``mark_down``) until a check finds it well again.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

logger = logging.getLogger("dewee.replicas")

# How long the primary's positions are kept: a replica further behind than this counts as
# this far behind (far past any sensible bound).
SAMPLES_KEPT_SECS = 300.0
_REPLAYED = (
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
    "(SELECT status FROM pg_stat_wal_receiver)"
)
_PRIMARY_POSITION = "SELECT pg_current_wal_lsn()::text"


def lsn(text: str) -> int:
    """A WAL position ("16/B374D848") as a number, to compare."""
    high, low = text.split("/")
    return (int(high, 16) << 32) + int(low, 16)


@dataclass
class ReplicaState:
    alias: str
    ok: bool = False
    lag_secs: float | None = None
    error: str = "not checked yet"
    checked_at: float = 0.0
    # Taken out by a failed request: out of rotation until a check after this time.
    down_until: float = 0.0

    def in_rotation(self, now: float) -> bool:
        return (
            self.ok
            and now >= self.down_until
            and self.lag_secs is not None
            and self.lag_secs <= settings.DEWEE_DB_REPLICA_MAX_LAG_SECS
        )

    def as_dict(self, now: float) -> dict[str, Any]:
        body: dict[str, Any] = {
            "in_rotation": self.in_rotation(now),
            "lag_secs": None if self.lag_secs is None else round(self.lag_secs, 3),
        }
        if not self.in_rotation(now):
            if not self.ok:
                body["reason"] = self.error
            elif now < self.down_until:
                body["reason"] = "failed a request: out until the next check"
            else:
                body["reason"] = f"lag above {settings.DEWEE_DB_REPLICA_MAX_LAG_SECS} s"
        return body


def connection_kwargs(alias: str) -> dict[str, Any]:
    """What psycopg needs to reach ``alias``'s server on a connection of the monitor's own."""
    config = settings.DATABASES[alias]
    kwargs: dict[str, Any] = {
        "dbname": config.get("NAME") or "postgres",
        "autocommit": True,
        "connect_timeout": max(1, round(settings.DEWEE_DB_REPLICA_CHECK_SECS * 2)),
    }
    for key, name in (("USER", "user"), ("PASSWORD", "password"), ("HOST", "host")):
        if config.get(key):
            kwargs[name] = config[key]
    if config.get("PORT"):
        kwargs["port"] = int(config["PORT"])
    return kwargs


@dataclass
class Monitor:
    aliases: tuple[str, ...]
    states: dict[str, ReplicaState] = field(default_factory=dict)
    # (monotonic time, the primary's WAL position then), oldest first.
    samples: deque[tuple[float, int]] = field(default_factory=deque)
    lock: threading.Lock = field(default_factory=threading.Lock)
    connections: dict[str, Any] = field(default_factory=dict)
    pid: int = 0

    def __post_init__(self) -> None:
        self.states = {alias: ReplicaState(alias) for alias in self.aliases}

    def ensure_running(self) -> None:
        """Start this process's checking thread (again after a fork: threads do not follow)."""
        if self.pid == os.getpid() or not self.aliases:
            return
        with self.lock:
            if self.pid == os.getpid():
                return
            self.pid = os.getpid()
            self.connections = {}
            self.check_all()  # the first answer before the first read, not a second later
            threading.Thread(target=self._run, name="dewee-replica-health", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(settings.DEWEE_DB_REPLICA_CHECK_SECS)
            try:
                self.check_all()
            except Exception:  # never let the thread die: replicas would stay as last seen
                logger.exception("replica check failed")

    def _query(self, alias: str, sql: str) -> tuple[Any, ...]:
        import psycopg

        conn = self.connections.get(alias)
        if conn is None or conn.closed:
            conn = psycopg.connect(**connection_kwargs(alias))
            self.connections[alias] = conn
        try:
            row = conn.execute(sql).fetchone()
        except psycopg.Error:
            conn.close()
            self.connections.pop(alias, None)
            raise
        assert row is not None
        return tuple(row)

    def check_all(self) -> None:
        import psycopg

        now = time.monotonic()
        try:
            (position,) = self._query(DEFAULT_DB_ALIAS, _PRIMARY_POSITION)
            self.samples.append((now, lsn(position)))
        except psycopg.Error as exc:
            # Without the primary's position no lag can be known: the replicas keep their
            # last state (reads fail over to the primary anyway when it is back).
            logger.warning("replica check: the primary cannot be read (%s)", exc)
            return
        while self.samples and now - self.samples[0][0] > SAMPLES_KEPT_SECS:
            self.samples.popleft()
        for alias in self.aliases:
            self._check(alias, now)

    def _check(self, alias: str, now: float) -> None:
        import psycopg

        state = self.states[alias]
        state.checked_at = now
        try:
            in_recovery, replayed, receiver = self._query(alias, _REPLAYED)
        except psycopg.Error as exc:
            was_ok, state.ok, state.lag_secs = state.ok, False, None
            state.error = f"cannot be reached: {(str(exc).splitlines() or [''])[0][:160]}"
            if was_ok:
                logger.warning("replica %s out of rotation: %s", alias, state.error)
            return
        if not in_recovery or replayed is None:
            state.ok, state.lag_secs = False, None
            state.error = "not a replica (not in recovery): promoted, or the wrong server"
            return
        state.lag_secs = self._lag(lsn(replayed), now)
        state.ok = True
        state.error = "" if receiver in (None, "streaming") else f"receiver {receiver}"

    def _lag(self, replayed: int, now: float) -> float:
        """How long ago the primary had written the first thing the replica has not
        replayed: 0 when it has everything the primary had at this check."""
        for sampled_at, position in self.samples:
            if position > replayed:
                return now - sampled_at
        return 0.0

    def answers(self, alias: str) -> bool:
        """Whether ``alias`` answers a query now, on a new connection of its own: asked
        after a request that read it failed, to tell its failure from the request's."""
        import psycopg

        try:
            with psycopg.connect(**{**connection_kwargs(alias), "connect_timeout": 1}) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def mark_down(self, alias: str, reason: str) -> None:
        state = self.states.get(alias)
        if state is None:
            return
        state.down_until = time.monotonic() + 2 * settings.DEWEE_DB_REPLICA_CHECK_SECS
        state.ok, state.error = False, f"failed a request: {reason}"
        logger.warning("replica %s failed a request (%s): reads go to the primary", alias, reason)

    def in_rotation(self) -> list[str]:
        now = time.monotonic()
        return [alias for alias, state in self.states.items() if state.in_rotation(now)]

    def report(self) -> dict[str, dict[str, Any]]:
        now = time.monotonic()
        return {alias: state.as_dict(now) for alias, state in self.states.items()}


def replica_aliases() -> tuple[str, ...]:
    return tuple(alias for alias in settings.DATABASES if alias.startswith("replica"))


_monitor: Monitor | None = None
_monitor_lock = threading.Lock()


def monitor() -> Monitor:
    """This process's monitor of the configured replicas (none: a monitor of nothing)."""
    global _monitor
    aliases = replica_aliases()
    if _monitor is None or _monitor.aliases != aliases:
        with _monitor_lock:
            if _monitor is None or _monitor.aliases != aliases:
                _monitor = Monitor(aliases)
    return _monitor
