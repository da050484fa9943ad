"""The API's rate limits and the dashboard's sign-in limits (dewee.limits): their rates,
how the client address is found behind proxies, and the cache their counts live in."""

import os
import re
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from dewee.config.databases import DATABASES
from dewee.config.environment import VAR_DIR


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
