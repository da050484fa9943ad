"""Keeps the API's promise of one error shape for errors raised outside its views, limits the
API's request rates, sends each signed-in person to their own mount of the dashboard, sends
an htmx request that needs sign-in to the sign-in page, and shows times in the viewer's zone."""

from collections.abc import Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, resolve_url
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect

from dewee.api import body_too_large, error_response
from dewee.dashboard import mount_of, mount_twin
from dewee.errors import speaks_json
from dewee.limits import (
    Refusal,
    api_address_refusal,
    auth_failure_refusal,
)
from tenancy.access import CHOSEN_WORKSPACE_ATTR, WORKSPACE_SESSION_KEY

API_PREFIX = "/v1/"


def api_error_shape(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Under /v1/ and at /mcp: refuse bodies over the size limit with 413 before anything
    reads them, and give Django's own error pages (405, 400, 500...) the API's JSON error
    shape."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not speaks_json(request.path):
            return get_response(request)
        length = request.META.get("CONTENT_LENGTH") or "0"
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if length.isdigit() and limit is not None and int(length) > limit:
            return body_too_large()
        response = get_response(request)
        content_type = response.get("Content-Type", "")
        if response.status_code >= 400 and not content_type.startswith("application/json"):
            status = HTTPStatus(response.status_code)
            code = status.phrase.lower().replace(" ", "_").replace("-", "_")
            converted = error_response(status.value, code, status.phrase)
            if "Allow" in response:
                converted["Allow"] = response["Allow"]
            return converted
        return response

    return middleware


def _rate_limited(refusal: Refusal) -> HttpResponse:
    refused = error_response(
        429, "rate_limited", refusal.message, {"retry_after": refusal.retry_after}
    )
    refused["Retry-After"] = str(refusal.retry_after)
    return refused


def api_rate_limits(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Under /v1/ and at /mcp: refuse with 429 rate_limited an address over its rate,
    before the request reaches anything else; count each 401 as a failed attempt, and once
    the address is out of them answer a failing key 429 instead (a valid key is still
    accepted: one client's guesses must not lock out the others sharing its address). A 401
    has done nothing, so letting the request reach the key check costs one lookup and
    changes nothing. The per-key rate is counted where the key is known (dewee.api, and
    dewee.mcp_server.http)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not speaks_json(request.path):
            return get_response(request)
        if (refusal := api_address_refusal(request)) is not None:
            return _rate_limited(refusal)
        response = get_response(request)
        if response.status_code == 401 and (refusal := auth_failure_refusal(request)) is not None:
            return _rate_limited(refusal)
        return response

    return middleware


class MountGate:
    """/dashboard/ is for staff operators, /app/ for workspace members. Someone in the other
    one is sent to the same page in theirs (its home if it has no such page); a POST there is
    refused rather than redirected, so it can never act twice. Anonymous people pass through
    to the views' sign-in redirect, and what a member may see is the access helper's call."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable, args: Any, kwargs: Any
    ) -> HttpResponse | None:
        mount = mount_of(request)
        user = request.user
        if mount == "app" and user.is_authenticated:
            # The member's choice of workspace, for access_for_user (no query: the session
            # is already loaded to find the user).
            setattr(user, CHOSEN_WORKSPACE_ATTR, request.session.get(WORKSPACE_SESSION_KEY))
        if mount is None or not user.is_authenticated or (mount == "dashboard") == user.is_staff:
            return None
        if request.method not in ("GET", "HEAD"):
            raise PermissionDenied("This page belongs to the other mount.")
        return redirect(mount_twin(request, "dashboard" if user.is_staff else "app"))


def htmx_sign_in(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """An htmx request that a view sends to sign in (the session expired, or the person
    signed out in another tab): htmx would follow the redirect itself and swap the whole
    sign-in page into the item. The browser is told to go there instead (HX-Redirect, no
    body), to come back to the page it was on, not to the fragment's URL."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if (
            response.status_code != 302
            or not request.headers.get("HX-Request")
            or request.user.is_authenticated
        ):
            return response
        login_url = resolve_url(settings.LOGIN_URL)
        if urlsplit(response["Location"]).path != login_url:
            return response
        current = request.headers.get("HX-Current-URL", "")
        if not url_has_allowed_host_and_scheme(
            current, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return HttpResponseClientRedirect(login_url)
        page = urlsplit(current)
        back = page.path + (f"?{page.query}" if page.query else "")
        return HttpResponseClientRedirect(redirect_to_login(back, login_url)["Location"])

    return middleware


def viewer_time_zone(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Times on the pages show in the viewer's zone: the IANA name the browser put in the
    ``tz`` cookie (static/dewee/timezone.js). Without it, or with a name zoneinfo does not
    know, the server's TIME_ZONE. The API answers the same whoever asks: never in a
    cookie's zone."""

    def middleware(request: HttpRequest) -> HttpResponse:
        cookie = "" if request.path.startswith(API_PREFIX) else request.COOKIES.get("tz", "")
        zone = _zone(cookie)
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            return get_response(request)
        finally:
            # The thread serves other requests next: none inherits this viewer's zone.
            timezone.deactivate()

    return middleware


def _zone(name: str) -> ZoneInfo | None:
    if not name or len(name) > 64:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
