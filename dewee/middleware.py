"""Keeps the API's promise of one error shape for errors raised outside its views."""

from collections.abc import Callable
from http import HTTPStatus

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from dewee.api import error_response

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
            return error_response(
                413, "too_large", f"The request body is over the {limit}-byte limit"
            )
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
