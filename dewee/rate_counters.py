"""Where the rate limits (dewee.limits) keep their counts: a Django cache backend that
holds integer counters only, which is all django-ratelimit asks of a cache (add, incr, get).

Every web process of a deployment must see the same counts, and an increment must not be
lost when two processes count at once. Django's own database cache cannot promise that (its
incr is a read, then a write), so each operation here is one SQL statement, atomic by itself:
an upsert that only replaces an expired counter, and ``UPDATE ... RETURNING``. The rate
limits themselves count with ``count``: one upsert that adds one, or starts an expired
counter again, and returns the count (one statement per limit and request, not two).

- ``DatabaseCounters`` keeps them in a table of a Django database (the PostgreSQL
  edition's own database; the table is the ``dewee.RateCounter`` model).
- ``SQLiteFileCounters`` keeps them in a small SQLite file of their own (the embedded
  edition), so that counting a request never takes the write lock of the main database,
  which every memory write needs.

An operator with Redis or Memcached may use it instead (DEWEE_CACHE_URL, dewee.settings).
"""

import itertools
import os
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.db import connections

TABLE = "dewee_rate_counter"
# Expired counters are deleted every this many additions (per process).
PURGE_EVERY = 1000
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(key varchar(255) NOT NULL PRIMARY KEY, value bigint NOT NULL, expires double precision "
    "NOT NULL)"
)


class Counters(BaseCache):
    """The statements; subclasses say where they run (``_execute``)."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.location = location
        self._additions = itertools.count(1)

    def _execute(self, sql: str, params: list[Any]) -> tuple[int, list[tuple[Any, ...]]]:
        """Run one statement in autocommit; the number of rows it changed and its rows."""
        raise NotImplementedError

    def _expiry(self, timeout: float | None) -> float:
        seconds = self.get_backend_timeout(timeout)
        return float("inf") if seconds is None else float(seconds)

    def _purge_now_and_then(self, now: float) -> None:
        """Expired counters are deleted every PURGE_EVERY additions (per process)."""
        if next(self._additions) % PURGE_EVERY == 0:
            self._execute(f"DELETE FROM {TABLE} WHERE expires <= %s", [now])

    @staticmethod
    def _count(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("The rate limit counters hold integers only")
        return value

    def add(
        self,
        key: str,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        now = time.time()
        self._purge_now_and_then(now)
        # Most calls find the window's counter there: a read, which takes no write lock.
        _, rows = self._execute(
            f"SELECT 1 FROM {TABLE} WHERE key = %s AND expires > %s", [key, now]
        )
        if rows:
            return False
        changed, _ = self._execute(
            f"INSERT INTO {TABLE} (key, value, expires) VALUES (%s, %s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires "
            f"WHERE {TABLE}.expires <= %s",
            [key, self._count(value), self._expiry(timeout), now],
        )
        return changed == 1

    def count(self, key: str, timeout: float, *, below: int | None = None) -> int | None:
        """One more in the counter ``key``, in one statement (an upsert), and its count now.
        A counter not there, or expired, starts again at 1 and lasts ``timeout`` seconds.
        With ``below``: a counter already at ``below`` or more is left as it is, and the
        answer is None. What the rate limits call (dewee.limits); ``add`` then ``incr`` is
        the same count in two statements, for django-ratelimit."""
        key = self.make_and_validate_key(key)
        now = time.time()
        self._purge_now_and_then(now)
        expired = f"{TABLE}.expires <= %s"
        sql = (
            f"INSERT INTO {TABLE} (key, value, expires) VALUES (%s, 1, %s) "
            f"ON CONFLICT (key) DO UPDATE SET value = CASE WHEN {expired} THEN 1 "
            f"ELSE {TABLE}.value + 1 END, "
            f"expires = CASE WHEN {expired} THEN excluded.expires ELSE {TABLE}.expires END"
        )
        params: list[Any] = [key, self._expiry(timeout), now, now]
        if below is not None:
            sql += f" WHERE {expired} OR {TABLE}.value < %s"
            params += [now, below]
        _, rows = self._execute(f"{sql} RETURNING value", params)
        return int(rows[0][0]) if rows else None

    def set(
        self,
        key: str,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> None:
        key = self.make_and_validate_key(key, version=version)
        self._execute(
            f"INSERT INTO {TABLE} (key, value, expires) VALUES (%s, %s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires",
            [key, self._count(value), self._expiry(timeout)],
        )

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        key = self.make_and_validate_key(key, version=version)
        _, rows = self._execute(
            f"SELECT value FROM {TABLE} WHERE key = %s AND expires > %s", [key, time.time()]
        )
        return rows[0][0] if rows else default

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        _, rows = self._execute(
            f"UPDATE {TABLE} SET value = value + %s WHERE key = %s AND expires > %s "
            "RETURNING value",
            [self._count(delta), key, time.time()],
        )
        if not rows:
            raise ValueError(f"Key '{key}' not found")
        return int(rows[0][0])

    def touch(
        self, key: str, timeout: float | None = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        changed, _ = self._execute(
            f"UPDATE {TABLE} SET expires = %s WHERE key = %s AND expires > %s",
            [self._expiry(timeout), key, time.time()],
        )
        return changed == 1

    def delete(self, key: str, version: int | None = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        changed, _ = self._execute(f"DELETE FROM {TABLE} WHERE key = %s", [key])
        return changed == 1

    def has_key(self, key: str, version: int | None = None) -> bool:
        return self.get(key, version=version) is not None

    def clear(self) -> None:
        self._execute(f"DELETE FROM {TABLE}", [])


class DatabaseCounters(Counters):
    """Counters in a Django database: LOCATION is its alias (``default``). Each statement
    commits by itself, outside any transaction of the request."""

    def _execute(self, sql: str, params: list[Any]) -> tuple[int, list[tuple[Any, ...]]]:
        with connections[self.location].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall() if cursor.description else []
            return cursor.rowcount, rows


class SQLiteFileCounters(Counters):
    """Counters in a SQLite file of their own: LOCATION is its path, created readable by
    Dewee's user only. One connection per thread; WAL, so counting never waits on a
    reader, and every statement is a transaction of its own."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(location, params)
        self._local = threading.local()
        # The threads of one process take turns here rather than in SQLite's busy handler,
        # which sleeps for milliseconds at a time while another writer holds the file.
        self._turn = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            path = Path(self.location)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with suppress(FileExistsError):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            conn = sqlite3.connect(path, timeout=5, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            self._local.conn = conn
        return conn

    def _execute(self, sql: str, params: list[Any]) -> tuple[int, list[tuple[Any, ...]]]:
        conn = self._connection()
        with self._turn:
            cursor = conn.execute(sql.replace("%s", "?"), params)
            rows = cursor.fetchall()
            return cursor.rowcount, rows

    def close(self, **kwargs: Any) -> None:
        # Django closes caches after every request; the connection is kept for the next one.
        pass
