"""Django settings for Dewee.

Every setting a deployment may change is read from the environment and has a default
that works out of the box: the embedded edition keeps everything under ``var/``.
"""

import contextlib
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from dewee import metrics_dirs

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DEWEE_VAR_DIR", BASE_DIR / "var"))


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def _private_var_dir() -> None:
    """var/ holds the database, the secret key and the models: only Dewee's user may
    enter it (mode 0700 when created; an existing folder is left as the operator set it)."""
    VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)


def _secret_key() -> str:
    """The key from DEWEE_SECRET_KEY, else one generated on first run and kept in var/."""
    if key := os.environ.get("DEWEE_SECRET_KEY"):
        return key
    _private_var_dir()
    key_file = VAR_DIR / "secret_key"
    try:
        # O_EXCL: two processes starting together must not write two different keys.
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return key_file.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        key = secrets.token_urlsafe(50)
        handle.write(key)
    return key


SECRET_KEY = _secret_key()
DEBUG = _env_bool("DEWEE_DEBUG", False)
ALLOWED_HOSTS = _env_list("DEWEE_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = _env_list("DEWEE_CSRF_TRUSTED_ORIGINS", [])

# Production hardening (docs/SECURITY.md): DEWEE_SECURE=true when Dewee is served over HTTPS
# by a reverse proxy. Off by default, so that `make run` works over plain http on localhost.
DEWEE_SECURE = _env_bool("DEWEE_SECURE", False)
if DEWEE_SECURE:
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Preloading is a promise to browsers that is slow to take back: only on request.
    SECURE_HSTS_PRELOAD = _env_bool("DEWEE_HSTS_PRELOAD", False)
    SECURE_SSL_REDIRECT = True
    # Probes reach the process directly, over http.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # The proxy says whether the client came over HTTPS. Only safe when every request comes
    # through a proxy that sets (or strips) this header: a client that reaches Dewee
    # directly could claim HTTPS with it.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The preload list is an opt-in (above), so its reminder is silenced unless it was asked for.
SILENCED_SYSTEM_CHECKS = [] if _env_bool("DEWEE_HSTS_PRELOAD", False) else ["security.W021"]

# Content-Security-Policy on every response, plain http or not: no inline script or style,
# nothing loaded from another origin (the API docs' Swagger UI is served from our own static
# files), no framing. Nonces are only for Django admin's few inline styles.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # Required by pgvector fields on Django 6 (check postgres.E005); harmless on SQLite.
    "django.contrib.postgres",
    # Serves the API docs' Swagger UI from its own static files (pinned with django-ninja),
    # not from a CDN.
    "ninja",
    "django_htmx",
    # Before django_q: its `qcluster` command is dewee's (a cluster that restarts whole).
    "dewee",
    "django_q",
    "tenancy",
    "memory",
    "facts",
    "knowledge",
    "privacy",
]

MIDDLEWARE = [
    # Outermost: counts every answer, the ones the middleware below gives too (dewee.metrics).
    "dewee.metrics.request_metrics",
    # A span per request, only when an OTLP endpoint is configured (dewee.tracing).
    *(
        ["dewee.tracing.request_span"]
        if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        else []
    ),
    "dewee.middleware.api_error_shape",
    # Before anything reads the request or the database (dewee.limits).
    "dewee.middleware.api_rate_limits",
    # Where the request reads: a replica or the primary; answered again from the primary
    # when a replica fails it (dewee.replicas). Inside the rate limits: counted once.
    "dewee.replicas.replica_reads",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "dewee.middleware.MountGate",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dewee.middleware.htmx_sign_in",
    "dewee.middleware.viewer_time_zone",
]

ROOT_URLCONF = "dewee.urls"
WSGI_APPLICATION = "dewee.wsgi.application"
ASGI_APPLICATION = "dewee.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
            # Every template shows times the same way (dewee/templatetags/times.py).
            "builtins": ["dewee.templatetags.times"],
        },
    },
]


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
        _private_var_dir()
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


# Rate limits (dewee.limits), each "<count>/<period>": a period of s, m, h or d, optionally
# times a number ("60/10m": 60 in ten minutes); "0" turns one off. Counts run in fixed
# windows; a request over a limit is answered 429 with Retry-After (the window's end).
def _rate(name: str, default: str) -> str | None:
    raw = os.environ.get(name, default).strip().lower()
    if raw in {"0", "off", "none"} or raw.startswith("0/"):
        return None
    if not re.fullmatch(r"\A[1-9][0-9]*/[0-9]*[smhd]", raw):
        raise ImproperlyConfigured(
            f"{name}={raw!r}: expected <count>/<period>, such as 600/m or 60/10m, or 0 (off)"
        )
    return raw


# API requests per key, and per client address (valid keys or not).
DEWEE_RATE_LIMIT_KEY = _rate("DEWEE_RATE_LIMIT_KEY", "6000/m")
DEWEE_RATE_LIMIT_ADDRESS = _rate("DEWEE_RATE_LIMIT_ADDRESS", "12000/m")
# Requests refused 401 (no key, a malformed, unknown or revoked one) per client address: past
# this, the address's failing requests are refused 429 until the window ends; a valid key
# is still accepted, so one client's guesses do not lock out others sharing the address.
DEWEE_RATE_LIMIT_AUTH_FAILURES = _rate("DEWEE_RATE_LIMIT_AUTH_FAILURES", "60/10m")
# Failed dashboard sign-ins per client address and per username: past either, sign-in is
# refused, the right password too, until the window ends.
DEWEE_SIGNIN_FAILURES_ADDRESS = _rate("DEWEE_SIGNIN_FAILURES_ADDRESS", "30/15m")
DEWEE_SIGNIN_FAILURES_USERNAME = _rate("DEWEE_SIGNIN_FAILURES_USERNAME", "10/15m")
# How many reverse proxies stand in front of Dewee, each appending the address it was
# reached from to X-Forwarded-For. 0 (the default): the client address is the connection's
# (REMOTE_ADDR), and X-Forwarded-For, which any client can send, is ignored; a request that
# sends one while this is 0 logs a warning once per process (dewee.limits), as behind a
# proxy every client would otherwise share its address and its failed-key count.
DEWEE_PROXY_COUNT = int(os.environ.get("DEWEE_PROXY_COUNT", 0))
# Where the counts live. Every web process must see the same ones: by default a SQLite file
# of their own under var/ on the embedded edition (counting never takes the main database's
# write lock), a table of the PostgreSQL database on the production edition. DEWEE_CACHE_URL
# (redis://host:6379/0 or memcached://host:11211, with the redis or pymemcache package
# installed) keeps them there instead.
DEWEE_RATE_LIMIT_FILE = os.environ.get("DEWEE_RATE_LIMIT_FILE") or str(
    VAR_DIR / "rate-limits.sqlite3"
)


def _rate_limit_cache() -> dict[str, Any]:
    if url := os.environ.get("DEWEE_CACHE_URL"):
        scheme = url.split("://", 1)[0].lower()
        if scheme in {"redis", "rediss"}:
            return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}
        if scheme == "memcached":
            return {
                "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache",
                "LOCATION": url.split("://", 1)[1].strip("/"),
            }
        raise ImproperlyConfigured(
            f"DEWEE_CACHE_URL: unknown scheme {scheme!r} (redis://, rediss:// or memcached://)"
        )
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        return {
            "BACKEND": "dewee.rate_counters.SQLiteFileCounters",
            "LOCATION": DEWEE_RATE_LIMIT_FILE,
        }
    return {"BACKEND": "dewee.rate_counters.DatabaseCounters", "LOCATION": "default"}


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "rate_limits": {**_rate_limit_cache(), "TIMEOUT": None, "KEY_PREFIX": "dewee"},
}
# django-ratelimit: its counters, and the client address it counts by (dewee.limits).
RATELIMIT_USE_CACHE = "rate_limits"
RATELIMIT_IP_META_KEY = "dewee.limits.client_address"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": os.environ.get(
            "DEWEE_STATICFILES_STORAGE",
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage",
        )
    },
}

LOGIN_URL = "login"
# "/" sends staff to /dashboard/ and workspace members to /app/.
LOGIN_REDIRECT_URL = "home"
# How long an invited person's one-time sign-in link stays good (tenancy.invites).
DEWEE_INVITE_HOURS = int(os.environ.get("DEWEE_INVITE_HOURS", 72))
LOGOUT_REDIRECT_URL = "login"

# Request bodies above this size are refused with 413 before they are parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DEWEE_MAX_REQUEST_BYTES", 2 * 1024 * 1024))

# A background job running longer than this is stopped.
DEWEE_WORKER_TIMEOUT_SECS = int(os.environ.get("DEWEE_WORKER_TIMEOUT_SECS", 600))
# A running maintenance run writes a heartbeat this often; one silent for the stale time was
# stopped with its worker and shows as interrupted. The cluster itself beats every minute
# (a scheduled task), and /readyz wants a beat within DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS.
DEWEE_RUN_HEARTBEAT_SECS = float(os.environ.get("DEWEE_RUN_HEARTBEAT_SECS", 10))
DEWEE_RUN_STALE_SECS = float(os.environ.get("DEWEE_RUN_STALE_SECS", 45))
DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS = int(
    os.environ.get("DEWEE_WORKER_HEARTBEAT_MAX_AGE_SECS", 180)
)
# Jobs a workspace's key may have waiting in the worker's queue (the API's maintenance
# trigger); a trigger past it is refused 429 too_many_jobs. 0: no cap. A job queued this
# long ago and still not started is taken to be lost and no longer counts; so is one a worker
# took and did not start within DEWEE_RUN_STALE_SECS (the worker died in between).
DEWEE_MAX_QUEUED_JOBS = int(os.environ.get("DEWEE_MAX_QUEUED_JOBS", 20))
DEWEE_QUEUED_JOB_STALE_SECS = int(os.environ.get("DEWEE_QUEUED_JOB_STALE_SECS", 3600))
Q_CLUSTER = {
    "name": "dewee",
    "orm": "default",
    "workers": DEWEE_WORKERS,
    "timeout": DEWEE_WORKER_TIMEOUT_SECS,
    "retry": DEWEE_WORKER_TIMEOUT_SECS + 300,
    # A job whose worker died is delivered once more; the passes are safe to repeat.
    "max_attempts": 2,
    "catch_up": False,
    "sync": _env_bool("DEWEE_Q_SYNC", False),
}

DEWEE_LOG_FORMAT = os.environ.get("DEWEE_LOG_FORMAT", "text").strip().lower()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # No value that a database error names (docs/PRIVACY.md, "Logs").
    "filters": {
        "without_database_values": {"()": "dewee.logs.WithoutDatabaseValues"},
        "refusals_without_traceback": {"()": "dewee.logs.RefusalsWithoutTraceback"},
    },
    # DEWEE_LOG_FORMAT=json: one JSON object a line (dewee.logs.JsonFormatter).
    "formatters": {"json": {"()": "dewee.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["without_database_values"],
            **({"formatter": "json"} if DEWEE_LOG_FORMAT == "json" else {}),
        }
    },
    # A refused request (4xx) is one line, not a traceback: on the loggers themselves, so
    # every handler (and the records tests capture) sees it so.
    "loggers": {
        "django.request": {"filters": ["refusals_without_traceback"]},
        "django.security": {"filters": ["refusals_without_traceback"]},
        # The MCP SDK's session manager says at INFO that it starts and stops, which /mcp
        # does for every request (stateless: dewee.mcp_server.http); its warnings remain.
        "mcp": {"level": "WARNING"},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DEWEE_LOG_LEVEL", "INFO")},
}

# Memory: embeddings and recall.
DEWEE_EMBEDDING_MODEL = os.environ.get("DEWEE_EMBEDDING_MODEL") or None
DEWEE_EMBEDDING_TOKENIZER = os.environ.get("DEWEE_EMBEDDING_TOKENIZER") or None
DEWEE_EMBEDDING_THREADS = int(os.environ.get("DEWEE_EMBEDDING_THREADS", 0))
DEWEE_EMBEDDING_BATCH = int(os.environ.get("DEWEE_EMBEDDING_BATCH", 0))
DEWEE_EMBEDDING_MAX_TOKENS = int(os.environ.get("DEWEE_EMBEDDING_MAX_TOKENS", 256))
DEWEE_EMBED_SESSION_CONTEXT = _env_bool("DEWEE_EMBED_SESSION_CONTEXT", True)
# Where the graph of newly stored memories (entities, mentions, edges; memory.services.graph)
# is built: "worker" (default: a django-q2 job queued when the store commits, so a store
# costs what it did without the graph), "inline" (in the store's own transaction), or "off"
# (`dewee memory graph-rebuild` builds it later: a bulk load, say). "true"/"false" read as
# inline/off.
_GRAPH_ON_STORE = (os.environ.get("DEWEE_GRAPH_ON_STORE") or "worker").strip().lower()
DEWEE_GRAPH_ON_STORE = {"true": "inline", "1": "inline", "false": "off", "0": "off"}.get(
    _GRAPH_ON_STORE, _GRAPH_ON_STORE
)
# The region (ISO 3166 alpha-2, "GB") phone numbers written without a country code are read
# in, to store them as E.164 (language.values); empty: such numbers are kept as typed.
DEWEE_PHONE_REGION = os.environ.get("DEWEE_PHONE_REGION", "").strip().upper()
# Memories stored without a session form a conversation until a silence this long.
DEWEE_CONVERSATION_GAP_MINUTES = float(os.environ.get("DEWEE_CONVERSATION_GAP_MINUTES", 30))
DEWEE_RERANK_MODEL = os.environ.get("DEWEE_RERANK_MODEL") or None
DEWEE_RERANK_TOKENIZER = os.environ.get("DEWEE_RERANK_TOKENIZER") or None
# Recall's second stage (memory.recall.ranker): "off" (the default: the first stage's order),
# "learned" (the shipped model), or the path of a model file bench/train_ranker.py wrote.
DEWEE_RECALL_RANKER = (os.environ.get("DEWEE_RECALL_RANKER") or "off").strip()

# Decay and maintenance (issue: memory that ages). Intervals are in seconds.
DEWEE_DECAY_STRATEGY = os.environ.get("DEWEE_DECAY_STRATEGY", "exponential")
DEWEE_DECAY_HALF_LIFE_HOURS = float(os.environ.get("DEWEE_DECAY_HALF_LIFE_HOURS", 168))
DEWEE_DECAY_MIN_IMPORTANCE = float(os.environ.get("DEWEE_DECAY_MIN_IMPORTANCE", 0.01))
DEWEE_DECAY_INTERVAL_SECS = int(os.environ.get("DEWEE_DECAY_INTERVAL_SECS", 3600))
DEWEE_DECAY_BATCH_SIZE = int(os.environ.get("DEWEE_DECAY_BATCH_SIZE", 20_000))
DEWEE_EXPIRY_INTERVAL_SECS = int(os.environ.get("DEWEE_EXPIRY_INTERVAL_SECS", 300))
DEWEE_SESSION_IDLE_TIMEOUT_SECS = int(os.environ.get("DEWEE_SESSION_IDLE_TIMEOUT_SECS", 4 * 3600))
DEWEE_SESSION_SWEEP_INTERVAL_SECS = int(os.environ.get("DEWEE_SESSION_SWEEP_INTERVAL_SECS", 300))
# Ends expired facts, for the agents whose memory policy sets end_expired_facts.
DEWEE_FACT_FRESHNESS_INTERVAL_SECS = int(os.environ.get("DEWEE_FACT_FRESHNESS_INTERVAL_SECS", 3600))
# How long after accepting or rejecting a disputed fact its resolver may undo it.
DEWEE_UNDO_SECONDS = int(os.environ.get("DEWEE_UNDO_SECONDS", 30))
# A dotted path to a callable (list of texts -> summary text) for deployments with an LLM.
DEWEE_SESSION_SUMMARISER = os.environ.get(
    "DEWEE_SESSION_SUMMARISER", "memory.summaries.extractive_summary"
)
# For memory.summaries.http_summary: where it POSTs the texts, and how long it waits.
DEWEE_SUMMARISER_URL = os.environ.get("DEWEE_SUMMARISER_URL", "")
DEWEE_SUMMARISER_TIMEOUT_SECS = float(os.environ.get("DEWEE_SUMMARISER_TIMEOUT_SECS", 30))
# Facts learned from text: "rules" (local, no model, no network) or "llm", an
# OpenAI-compatible chat completions API the operator runs or rents (language.extraction.llm).
DEWEE_FACTS_EXTRACTOR = os.environ.get("DEWEE_FACTS_EXTRACTOR", "rules")
# The learned clause classifier (language/extraction/classifier.py) beside the rules: vetoes a
# statement in a clause it is sure states nothing about the speaker; false: the rules alone.
DEWEE_CLAUSE_CLASSIFIER = _env_bool("DEWEE_CLAUSE_CLASSIFIER", True)
DEWEE_FACTS_LLM_URL = os.environ.get("DEWEE_FACTS_LLM_URL", "")
DEWEE_FACTS_LLM_MODEL = os.environ.get("DEWEE_FACTS_LLM_MODEL", "")
DEWEE_FACTS_LLM_API_KEY = os.environ.get("DEWEE_FACTS_LLM_API_KEY", "")
DEWEE_FACTS_LLM_TIMEOUT_SECS = float(os.environ.get("DEWEE_FACTS_LLM_TIMEOUT_SECS", 30))
DEWEE_AUTOPILOT_ENABLED = _env_bool("DEWEE_AUTOPILOT_ENABLED", True)
DEWEE_AUTOPILOT_DEDUP_INTERVAL_SECS = int(
    os.environ.get("DEWEE_AUTOPILOT_DEDUP_INTERVAL_SECS", 6 * 3600)
)
DEWEE_AUTOPILOT_CONSOLIDATE_INTERVAL_SECS = int(
    os.environ.get("DEWEE_AUTOPILOT_CONSOLIDATE_INTERVAL_SECS", 12 * 3600)
)

# Erasure on disk (docs/PRIVACY.md): the worker compacts the database's storage this often
# when anything was erased since the last compaction (0: never; `dewee privacy compact` by
# hand). Full rewrites every table (on PostgreSQL VACUUM FULL, which locks each table while
# it is rewritten; on SQLite VACUUM, which locks the whole database).
DEWEE_COMPACTION_INTERVAL_SECS = int(os.environ.get("DEWEE_COMPACTION_INTERVAL_SECS", 24 * 3600))
DEWEE_COMPACTION_FULL = _env_bool("DEWEE_COMPACTION_FULL", False)
# PostgreSQL: ANALYZE first, so that the planner's samples of values are of live rows only.
DEWEE_COMPACTION_ANALYZE = _env_bool("DEWEE_COMPACTION_ANALYZE", False)
# PostgreSQL: the default compaction also rewrites (VACUUM FULL) every table whose size with
# its TOAST table and indexes is at most this many MB, so that erased rows leave its table
# files too; each is locked for the short time its rewrite takes. Larger tables get the
# lock-free VACUUM and REINDEX only. 0: rewrite none.
DEWEE_COMPACTION_REWRITE_MAX_MB = int(os.environ.get("DEWEE_COMPACTION_REWRITE_MAX_MB", 8))
