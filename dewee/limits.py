"""Rate limits on the REST API and on the dashboard's sign-in.

Fixed windows as django-ratelimit draws them, one counter per limit and client, in the
counters every web process shares: Dewee's own (dewee.rate_counters), where checking and
counting a request against a limit is one statement, or the operator's Redis or Memcached,
through django-ratelimit. The limits come from the settings (DEWEE_RATE_LIMIT_*,
DEWEE_SIGNIN_FAILURES_*); each may be off.

- Every API request counts against its client address; every authenticated one against its
  key (dewee.api). Over either: 429 ``rate_limited``, before the request does anything.
- An API request refused 401 counts as a failure of its address; past the failures' limit
  every request from that address whose key fails is refused 429 until the window ends. A
  valid key is still accepted: behind a proxy (or a NAT) many clients share one address,
  and one client's wrong guesses must not lock out everyone else's right keys. Accepting a
  right key tells a guesser nothing useful: a key holds 256 random bits.
- A failed sign-in counts against the address and the username; past either, sign-in is
  refused, the right password too, until the window ends.

A store that cannot count lets requests through (logged): the limits guard the service, and
must not be what takes it down. A database outage is left to answer 503 as it does elsewhere.
"""

import ipaddress
import logging
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest
from django_ratelimit import ALL

# get_usage's own window (with its per-client offset) and key, so that Dewee's counters
# count in the windows django-ratelimit would (a private part of the pinned 4.1.0).
from django_ratelimit.core import (
    EXPIRATION_FUDGE,
    _get_window,
    _make_cache_key,
    _split_rate,
    get_usage,
)

from dewee.errors import RateLimited
from dewee.outage import database_trouble
from dewee.rate_counters import Counters

logger = logging.getLogger("dewee.limits")

_PERIOD_WORDS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused, and how many seconds until it may be tried again."""

    message: str
    retry_after: int


_proxy_warning_given = False
PROXY_NOTICE = (
    "Requests arrive with X-Forwarded-For but DEWEE_PROXY_COUNT is 0: every client is "
    "counted under the connection's address. Behind a reverse proxy, set "
    "DEWEE_PROXY_COUNT to the number of proxies that append to X-Forwarded-For."
)


def proxy_notice() -> str | None:
    """The proxy warning when this process has seen a request that calls for it (shown by
    /readyz beside its checks: it needs the operator, not a restart)."""
    return PROXY_NOTICE if _proxy_warning_given and not settings.DEWEE_PROXY_COUNT else None


def _warn_proxy_count_once() -> None:
    """A request came with X-Forwarded-For while DEWEE_PROXY_COUNT is 0: behind a proxy that
    is wrong (every client would share the proxy's address, its limits and its lockout), so
    the operator is told, once per process: a system check cannot see requests, and a line
    per request would bury the log. Not behind a proxy, the header is the client's own
    (and ignored, as it should be)."""
    global _proxy_warning_given
    if _proxy_warning_given:
        return
    _proxy_warning_given = True
    logger.warning(PROXY_NOTICE)


def client_address(request: HttpRequest) -> str:
    """The address a request came from: the connection's, or with DEWEE_PROXY_COUNT proxies
    in front, the one the outermost proxy was reached from, that many entries from the right
    of X-Forwarded-For (entries further left are whatever the client chose to send)."""
    remote = request.META.get("REMOTE_ADDR") or ""
    hops = settings.DEWEE_PROXY_COUNT
    if hops == 0 and request.META.get("HTTP_X_FORWARDED_FOR"):
        _warn_proxy_count_once()
    if hops > 0:
        forwarded = [
            part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        ]
        forwarded = [part for part in forwarded if part]
        if len(forwarded) >= hops:
            remote = forwarded[-hops]
    try:
        return str(ipaddress.ip_address(remote))
    except ValueError:
        # A Unix socket without a proxy's header: every client is one, unknown, address.
        return "0.0.0.0"


def describe_rate(rate: str | None) -> str:
    """For people: "60/10m" is "60 per 10 minutes"."""
    if rate is None:
        return "no limit"
    count, period = rate.split("/")
    unit, multiple = _PERIOD_WORDS[period[-1]], period[:-1]
    return f"{count} per {multiple} {unit}s" if multiple else f"{count} per {unit}"


def _counted(
    store: Counters, group: str, rate: str, value: str, *, increment: bool, unless_used_up: bool
) -> dict[str, Any]:
    """get_usage's answer from Dewee's own counters, in one statement: a read, or a count
    (an upsert) that also says whether the request was past the limit."""
    limit, period = _split_rate(rate)
    window = _get_window(value, period)
    key = _make_cache_key(group, window, rate, value, ALL)
    if not increment:
        count = int(store.get(key, 0))
    else:
        below = limit if unless_used_up else None
        counted = store.count(key, period + EXPIRATION_FUDGE, below=below)
        # Not counted: the attempts were used up, and this one would have been over.
        count = limit + 1 if counted is None else counted
    return {
        "count": count,
        "limit": limit,
        "should_limit": count > limit,
        "time_left": window - int(time.time()),
    }


def _elsewhere(
    request: HttpRequest,
    group: str,
    rate: str,
    value: str,
    *,
    increment: bool,
    unless_used_up: bool,
) -> dict[str, Any] | None:
    """The same from the operator's Redis or Memcached, through django-ratelimit (an add,
    then an incr or a get; a read first, with ``unless_used_up``)."""

    def key(_group: str, _request: HttpRequest) -> str:
        return value

    if increment and unless_used_up:
        before = get_usage(request, group=group, key=key, rate=rate, increment=False)
        if before is not None and before["count"] >= before["limit"]:
            return {**before, "should_limit": True}
    return get_usage(request, group=group, key=key, rate=rate, increment=increment)


def _usage(
    request: HttpRequest,
    group: str,
    rate: str | None,
    value: str,
    *,
    increment: bool,
    unless_used_up: bool = False,
) -> dict[str, Any] | None:
    """The count of ``value`` under the limit ``rate`` (None: no limit), this request
    counted when ``increment``; with ``unless_used_up`` too, counted only if the limit was
    not reached before it (else ``should_limit``, and nothing written)."""
    if rate is None:
        return None
    try:
        store = caches[settings.RATELIMIT_USE_CACHE]
        if isinstance(store, Counters):
            return _counted(
                store, group, rate, value, increment=increment, unless_used_up=unless_used_up
            )
        return _elsewhere(
            request, group, rate, value, increment=increment, unless_used_up=unless_used_up
        )
    except Exception as exc:
        if database_trouble(exc) is not None:
            raise
        logger.warning("Rate limit %s not counted: %s", group, exc, exc_info=True)
        return None


def _retry_after(usage: dict[str, Any]) -> int:
    return max(1, int(usage["time_left"]))


def _over(usage: dict[str, Any] | None) -> bool:
    """Past the limit, counting this request."""
    return usage is not None and bool(usage["should_limit"])


def _used_up(usage: dict[str, Any] | None) -> bool:
    """No attempt left, before this one."""
    return usage is not None and usage["count"] >= usage["limit"]


def api_address_refusal(request: HttpRequest) -> Refusal | None:
    """Before an API request: refused if its address (the request counted) went over its
    rate. Failed attempts are checked after the key is (auth_failure_refusal)."""
    address = client_address(request)
    usage = _usage(
        request, "api-address", settings.DEWEE_RATE_LIMIT_ADDRESS, address, increment=True
    )
    if usage is not None and _over(usage):
        rate = describe_rate(settings.DEWEE_RATE_LIMIT_ADDRESS)
        return Refusal(
            f"Too many requests from this address ({rate}); try again in {_retry_after(usage)} s",
            _retry_after(usage),
        )
    return None


def auth_failure_refusal(request: HttpRequest) -> Refusal | None:
    """An API request was refused 401: one failed attempt of its address, checked and
    counted at once; refused (and not counted) when the address has none left."""
    failures = _usage(
        request,
        "api-auth-failures",
        settings.DEWEE_RATE_LIMIT_AUTH_FAILURES,
        client_address(request),
        increment=True,
        unless_used_up=True,
    )
    if failures is not None and _over(failures):
        rate = describe_rate(settings.DEWEE_RATE_LIMIT_AUTH_FAILURES)
        return Refusal(
            f"Too many requests without a valid API key from this address ({rate}); "
            f"try again in {_retry_after(failures)} s",
            _retry_after(failures),
        )
    return None


def check_key_rate(request: HttpRequest, *, key_id: str) -> None:
    """Count an authenticated request against its key; raises RateLimited past the rate."""
    usage = _usage(request, "api-key", settings.DEWEE_RATE_LIMIT_KEY, key_id, increment=True)
    if usage is not None and _over(usage):
        rate = describe_rate(settings.DEWEE_RATE_LIMIT_KEY)
        raise RateLimited(
            f"Too many requests with this API key ({rate}); try again in {_retry_after(usage)} s",
            retry_after=_retry_after(usage),
        )


def _sign_in_counts(request: HttpRequest, *, increment: bool) -> list[dict[str, Any] | None]:
    username = str(request.POST.get("username", "")).strip().lower()
    counts = [
        _usage(
            request,
            "sign-in-address",
            settings.DEWEE_SIGNIN_FAILURES_ADDRESS,
            client_address(request),
            increment=increment,
        )
    ]
    if username:
        counts.append(
            _usage(
                request,
                "sign-in-username",
                settings.DEWEE_SIGNIN_FAILURES_USERNAME,
                username,
                increment=increment,
            )
        )
    return counts


def sign_in_refusal(request: HttpRequest) -> Refusal | None:
    """Before a sign-in is checked: refused when its address or its username has no failed
    attempt left in the window."""
    used_up = [usage for usage in _sign_in_counts(request, increment=False) if _used_up(usage)]
    if not used_up:
        return None
    wait = max(_retry_after(usage) for usage in used_up if usage is not None)
    minutes = -(-wait // 60)
    return Refusal(
        "Too many failed sign-ins for this account or from this address. Sign-in is "
        f"paused, even with the right password: try again in {minutes} minute"
        f"{'s' if minutes != 1 else ''}.",
        wait,
    )


def count_sign_in_failure(request: HttpRequest) -> None:
    _sign_in_counts(request, increment=True)
