"""Django settings for Dewee.

Every setting a deployment may change is read from the environment and has a default
that works out of the box: the embedded edition keeps everything under ``var/``. Here are
Django's settings and its apps'; Dewee's own are in dewee.config, by subject, and imported
whole.
"""

import os
import secrets

from django.utils.csp import CSP

from dewee.config.databases import *  # noqa: F403
from dewee.config.environment import BASE_DIR, VAR_DIR, env_bool, env_list, private_var_dir
from dewee.config.facts import *  # noqa: F403
from dewee.config.maintenance import *  # noqa: F403
from dewee.config.memory import *  # noqa: F403
from dewee.config.privacy import *  # noqa: F403
from dewee.config.processes import *  # noqa: F403
from dewee.config.rate_limits import *  # noqa: F403
from dewee.config.worker import *  # noqa: F403


def _secret_key() -> str:
    """The key from DEWEE_SECRET_KEY, else one generated on first run and kept in var/."""
    if key := os.environ.get("DEWEE_SECRET_KEY"):
        return key
    private_var_dir()
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
DEBUG = env_bool("DEWEE_DEBUG", False)
ALLOWED_HOSTS = env_list("DEWEE_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DEWEE_CSRF_TRUSTED_ORIGINS", [])

# Production hardening (docs/SECURITY.md): DEWEE_SECURE=true when Dewee is served over HTTPS
# by a reverse proxy. Off by default, so that `make run` works over plain http on localhost.
DEWEE_SECURE = env_bool("DEWEE_SECURE", False)
if DEWEE_SECURE:
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Preloading is a promise to browsers that is slow to take back: only on request.
    SECURE_HSTS_PRELOAD = env_bool("DEWEE_HSTS_PRELOAD", False)
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
SILENCED_SYSTEM_CHECKS = [] if env_bool("DEWEE_HSTS_PRELOAD", False) else ["security.W021"]

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
# A form's fields: a bulk action of the review queue, and its Undo, carry up to 1,000 fact
# ids (facts.forms.BULK_MAX_FACTS) beside their own few; Django's default is 1,000.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2_000

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
