"""Site-wide files browsers ask for at fixed addresses."""

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.views.decorators.http import require_GET


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers and feed readers ask for without reading the page's
    ``<link rel="icon">``: the SVG icon. Resolved per request, since the static file's
    hashed name is only known once collectstatic has run."""
    response = HttpResponseRedirect(static("dewee/favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response
