"""Which process this is (the application server, the worker cluster or a command) and what
the processes of one host run with: their number, their threads, the database connections
they may hold together, the metrics they count."""

import os
import sys
from pathlib import Path

from dewee import metrics_dirs


def _process_role() -> str:
    """``web`` (the application server, set by its config), ``worker`` (the django-q2
    cluster) or ``command`` (migrate, the CLI, tests): each gets its own database settings."""
    if role := os.environ.get("DEWEE_PROCESS"):
        return role
    return "worker" if sys.argv[1:2] == ["qcluster"] else "command"


DEWEE_PROCESS = _process_role()

# Metrics (dewee.metrics, README "Watch it in production"). The worker cluster keeps its
# counts in its instance's folder, for the web's /metrics to read; chosen before anything
# imports prometheus-client, which reads it once (the web's is chosen by gunicorn's config).
DEWEE_METRICS_ENABLED = metrics_dirs.enabled()
DEWEE_METRICS_TOKEN = os.environ.get("DEWEE_METRICS_TOKEN", "").strip()
DEWEE_METRICS_ALLOW_IPS = os.environ.get("DEWEE_METRICS_ALLOW_IPS", "127.0.0.0/8,::1")
if DEWEE_PROCESS == "worker" and DEWEE_METRICS_ENABLED:
    os.environ.setdefault(metrics_dirs.MULTIPROC_VAR, str(metrics_dirs.worker_dir()))
    # Emptied by `manage.py qcluster` as the cluster starts; it must exist before then.
    Path(os.environ[metrics_dirs.MULTIPROC_VAR]).mkdir(mode=0o700, parents=True, exist_ok=True)

# Serving (see README, "Production"): the application server's processes and threads, and
# the database connections every process of one host may hold together.
DEWEE_WEB_WORKERS = int(os.environ.get("DEWEE_WEB_WORKERS", 2))
DEWEE_WEB_THREADS = int(os.environ.get("DEWEE_WEB_THREADS", 8))
# Time the web server gives requests in flight to finish when it stops (read by gunicorn's
# config too).
DEWEE_WEB_GRACEFUL_TIMEOUT_SECS = int(os.environ.get("DEWEE_WEB_GRACEFUL_TIMEOUT_SECS", 20))
DEWEE_WORKERS = int(os.environ.get("DEWEE_WORKERS", 2))
DEWEE_DB_MAX_CONNECTIONS = int(os.environ.get("DEWEE_DB_MAX_CONNECTIONS", 40))
# Connections per web process; a request that finds them all in use waits this long for one,
# then gets 503 database_busy.
DEWEE_DB_POOL_SIZE = int(os.environ.get("DEWEE_DB_POOL_SIZE", DEWEE_WEB_THREADS))
DEWEE_DB_POOL_TIMEOUT_SECS = float(os.environ.get("DEWEE_DB_POOL_TIMEOUT_SECS", 5))
# How long a new connection may take, and a query (0 = no limit), on PostgreSQL.
DEWEE_DB_CONNECT_TIMEOUT_SECS = int(os.environ.get("DEWEE_DB_CONNECT_TIMEOUT_SECS", 5))
DEWEE_DB_STATEMENT_TIMEOUT_SECS = float(os.environ.get("DEWEE_DB_STATEMENT_TIMEOUT_SECS", 0))
# How long a SQLite writer waits for the write lock before the request gets 503.
DEWEE_SQLITE_BUSY_TIMEOUT_SECS = float(os.environ.get("DEWEE_SQLITE_BUSY_TIMEOUT_SECS", 30))
