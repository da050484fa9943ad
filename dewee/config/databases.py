"""The databases: SQLite under var/ or PostgreSQL at DATABASE_URL, each process's
connections to it (the web's pool, timeouts), its partitions and its read replicas."""

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import dj_database_url

from dewee.config.environment import VAR_DIR, private_var_dir
from dewee.config.processes import (
    DEWEE_DB_CONNECT_TIMEOUT_SECS,
    DEWEE_DB_POOL_SIZE,
    DEWEE_DB_POOL_TIMEOUT_SECS,
    DEWEE_DB_STATEMENT_TIMEOUT_SECS,
    DEWEE_PROCESS,
    DEWEE_SQLITE_BUSY_TIMEOUT_SECS,
)


def _postgres_options(config: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {**config.get("OPTIONS", {})}
    options.setdefault("connect_timeout", DEWEE_DB_CONNECT_TIMEOUT_SECS)
    if DEWEE_DB_STATEMENT_TIMEOUT_SECS > 0:
        millis = round(DEWEE_DB_STATEMENT_TIMEOUT_SECS * 1000)
        options.setdefault("options", f"-c statement_timeout={millis}")
    if DEWEE_PROCESS == "web":
        # A bounded pool per web process (Django's psycopg pool). Connections go back to it
        # after each request; a broken one is checked and replaced, so the server recovers
        # by itself when the database comes back. reconnect_timeout keeps the retries of a
        # lost database short (their backoff doubles from 1 s): once they give up, the next
        # request tries again at once, so a process is back within about a second.
        options["pool"] = {
            "min_size": min(2, DEWEE_DB_POOL_SIZE),
            "max_size": DEWEE_DB_POOL_SIZE,
            "timeout": DEWEE_DB_POOL_TIMEOUT_SECS,
            "max_idle": 300,
            "reconnect_timeout": 2,
        }
    return options


def _create_private_sqlite_file(name: str) -> None:
    """Create the database file readable by Dewee's user only (0600), in a 0700 folder if
    the folder is new, before SQLite creates it with the umask's 0644. SQLite gives its
    -wal and -shm files the database file's mode."""
    if not name or name == ":memory:" or name.startswith("file:"):
        return
    path = Path(name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


POSTGRES_ENGINE = "dewee.postgresql"


def _database(url: str | None = None) -> dict[str, Any]:
    url = url if url is not None else os.environ.get("DATABASE_URL")
    if not url:
        private_var_dir()
        url = f"sqlite:///{VAR_DIR / 'dewee.sqlite3'}"
    # No persistent connections in the web process outside its pool: a thread's idle
    # connection is one PostgreSQL slot that nobody else can use (with 32 clients they ran
    # out). The worker's processes are single-threaded and the budget counts one connection
    # each, so they keep it: closing it after every job and every poll of the queue (what
    # django-q2 does when connections are not persistent) left closing backends that still
    # held their slot while the next connection opened, one over the budget under load.
    max_age = 60 if DEWEE_PROCESS == "worker" else 0
    config: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=max_age, conn_health_checks=True)
    )
    if config["ENGINE"] == "django.db.backends.sqlite3":
        _create_private_sqlite_file(config["NAME"])
        config["OPTIONS"] = {
            # IMMEDIATE takes the write lock when a transaction starts, so two writers
            # queue on the busy timeout instead of failing with "database is locked"
            # when a read lock cannot be upgraded.
            "transaction_mode": "IMMEDIATE",
            "timeout": DEWEE_SQLITE_BUSY_TIMEOUT_SECS,
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; "
                # Deleted rows, index entries and freed pages are overwritten with zeros,
                # so an erasure leaves no copy in the file's free space (docs/PRIVACY.md).
                "PRAGMA secure_delete=ON;"
            ),
        }
        # Tests use a file, not the in-memory default: threads in concurrency tests need
        # real SQLite locking, as in production. One per process, so test runs never meet.
        config["TEST"] = {
            "NAME": str(Path(tempfile.gettempdir()) / f"dewee-test-{os.getpid()}.sqlite3")
        }
    else:
        # Django's backend, told which tables are keyed by their owner (dewee/postgresql).
        config["ENGINE"] = POSTGRES_ENGINE
        config["OPTIONS"] = _postgres_options(config)
    return config


DATABASES = {"default": _database()}

# PostgreSQL: the tables that grow with use (memories with their vectors and keyword index,
# facts with their versions, the audit log) are hash-partitioned into this many partitions
# by agent (the audit log by workspace) when their migrations run (dewee.partitions), each
# with its own indexes, so that one agent's reads use its partition's. 0 (the default) keeps
# plain tables: below tens of millions of memories partitions only add planning to every
# request (docs/SCALING.md). Read by those migrations only: docs/SCALING.md says how to
# partition an installation later.
DEWEE_DB_PARTITIONS = int(os.environ.get("DEWEE_DB_PARTITIONS", 0))

# Read replicas (dewee.replicas): PostgreSQL servers streaming from the primary, comma-separated
# URLs. Reads that may be slightly stale go to one in rotation; a client that wrote in the last
# DEWEE_DB_READ_OWN_WRITES_SECS reads the primary. A replica further behind than
# DEWEE_DB_REPLICA_MAX_LAG_SECS (checked every DEWEE_DB_REPLICA_CHECK_SECS) is out of
# rotation; the window must be longer than that bound (a check says so).
DEWEE_DB_REPLICA_URLS = [
    url.strip() for url in os.environ.get("DEWEE_DB_REPLICA_URLS", "").split(",") if url.strip()
]
DEWEE_DB_READ_OWN_WRITES_SECS = float(os.environ.get("DEWEE_DB_READ_OWN_WRITES_SECS", 5))
DEWEE_DB_REPLICA_MAX_LAG_SECS = float(os.environ.get("DEWEE_DB_REPLICA_MAX_LAG_SECS", 2))
DEWEE_DB_REPLICA_CHECK_SECS = float(os.environ.get("DEWEE_DB_REPLICA_CHECK_SECS", 1))
# A replica's pool waits this long for a connection before the read goes to the primary.
DEWEE_DB_REPLICA_POOL_TIMEOUT_SECS = float(os.environ.get("DEWEE_DB_REPLICA_POOL_TIMEOUT_SECS", 1))
for _number, _url in enumerate(DEWEE_DB_REPLICA_URLS, start=1):
    _replica = _database(_url)
    if "pool" in _replica["OPTIONS"]:
        # No connections kept open for their own sake: a replica that is down is not
        # reconnected to in the background (and logged) while reads go elsewhere.
        _replica["OPTIONS"]["pool"].update(min_size=0, timeout=DEWEE_DB_REPLICA_POOL_TIMEOUT_SECS)
    # The test runner makes no database on a replica: it reads the primary's test database.
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica{_number}"] = _replica
DATABASE_ROUTERS = ["dewee.replicas.ReplicaRouter"]
