"""The application server's settings (gunicorn, threaded workers), from the same environment
variables as the rest of Dewee. Used by `manage.py serve` (what `make run` starts) and in
production:

    gunicorn -c python:dewee.gunicorn_conf dewee.wsgi

Threads, not more processes, carry concurrency: each process loads the embedding model once
and keeps one bounded database pool (see dewee.serving)."""

import os
from typing import Any

from dewee import metrics_dirs

# Read by dewee.settings in every worker process: web processes use the connection pool.
os.environ["DEWEE_PROCESS"] = "web"

bind = os.environ.get("DEWEE_BIND", "127.0.0.1:8000").split(",")
# Prometheus counts, per process, in this server's own folder (dewee.metrics_dirs), emptied
# now: in the master, before it or any worker imports prometheus-client, which reads it once.
if metrics_dirs.enabled():
    metrics_dirs.start_fresh(metrics_dirs.web_dir(os.environ.get("DEWEE_BIND", "127.0.0.1:8000")))
workers = int(os.environ.get("DEWEE_WEB_WORKERS", 2))
threads = int(os.environ.get("DEWEE_WEB_THREADS", 8))
worker_class = "gthread"
# Connections beyond the busy threads wait in the kernel's queue, up to this many.
backlog = int(os.environ.get("DEWEE_WEB_BACKLOG", 2048))
# A worker silent this long (its main loop stuck, not a slow request) is replaced.
timeout = int(os.environ.get("DEWEE_WEB_TIMEOUT_SECS", 60))
graceful_timeout = int(os.environ.get("DEWEE_WEB_GRACEFUL_TIMEOUT_SECS", 20))
keepalive = 5
# Behind a reverse proxy on the same host, trust its X-Forwarded-* headers.
forwarded_allow_ips = os.environ.get("DEWEE_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# Errors go to stderr with the rest of the logs; the access log is off unless asked for.
errorlog = "-"
accesslog = os.environ.get("DEWEE_ACCESS_LOG") or None
# Paths without their query strings (which carry user ids, search words, a fact's value),
# and no Referer, which is a whole URL: client, time, method, path, status, bytes, seconds.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(L)s'
# ... and a person's id in a path masked (dewee.logs.masked_path).
logger_class = "dewee.access_log.MaskingLogger"
loglevel = os.environ.get("DEWEE_LOG_LEVEL", "info").lower()
proc_name = "dewee-web"
# gunicornc's control socket lives in a per-user folder shared by every instance: off.
control_socket_disable = True


def on_starting(server: object) -> None:
    """Refuse to start on a configuration Django's checks reject (a connection plan over
    its budget, say), before any worker boots."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("check")


def child_exit(server: object, worker: Any) -> None:
    """A web process is gone (stopped, crashed, replaced): its gauges of live values (the
    requests in flight) go with it; its counts stay, as counts do."""
    if os.environ.get(metrics_dirs.MULTIPROC_VAR):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
