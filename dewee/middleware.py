"""Keeps the API's promise of one error shape for errors raised outside its views, limits the
API's request rates, and sends each signed-in person to their own mount of the dashboard."""

from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from dewee.api import body_too_large, error_response
from dewee.dashboard import mount_of, mount_twin
from dewee.limits import api_address_refusal, count_auth_failure
from tenancy.access import CHOSEN_WORKSPACE_ATTR, WORKSPACE_SESSION_KEY

API_PREFIX = "/v1/"


def api_error_shape(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Under /v1/: refuse bodies over the size limit with 413 before anything reads them,
    and give Django's own error pages (405, 400, 500...) the API's JSON error shape."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
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


def api_rate_limits(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Under /v1/: refuse with 429 rate_limited an address over its rate or out of failed
    attempts, before the request reaches anything else; count each 401 as a failed attempt.
    The per-key rate is counted where the key is known (dewee.api)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return get_response(request)
        if (refusal := api_address_refusal(request)) is not None:
            refused = error_response(
                429, "rate_limited", refusal.message, {"retry_after": refusal.retry_after}
            )
            refused["Retry-After"] = str(refusal.retry_after)
            return refused
        response = get_response(request)
        if response.status_code == 401:
            count_auth_failure(request)
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
