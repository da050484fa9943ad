"""Django's handler400: what it answers when Django itself refuses to read a request."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token
from django.views.defaults import bad_request as django_bad_request

from dewee.api import unreadable_request
from dewee.errors import speaks_json


@requires_csrf_token
def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE is 413 wherever it is first read (a dashboard
    or admin form, the CSRF check, an API path without the size middleware), as the API's own
    handler and the middleware answer it; under /v1/ every refusal keeps the error shape."""
    if speaks_json(request.path):
        return unreadable_request(exception)
    if isinstance(exception, RequestDataTooBig):
        page = loader.get_template("413.html").render(
            {"limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}, request
        )
        return HttpResponse(page, status=413)
    return django_bad_request(request, exception)
