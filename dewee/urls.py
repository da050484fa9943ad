from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from dewee.api import api, route_not_found
from dewee.dashboard import APP_MOUNT
from dewee.health import healthz, readyz
from dewee.metrics import metrics_view
from dewee.sign_in import sign_in
from dewee.site import favicon
from knowledge.views_inbox import home

# A database outage answers 503 with Retry-After here too, not 500 (dewee.outage).
handler500 = "dewee.outage.server_error"
# A body over the size limit is 413, whoever reads it first (dewee.error_pages).
handler400 = "dewee.error_pages.bad_request"


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """/mcp, with the MCP SDK loaded on its first request: the SDK imports opentelemetry's
    API and more, which a process that never serves /mcp (a worker, the CLI, a server with
    no agent host) has no reason to load (tests/test_tracing.py)."""
    from dewee.mcp_server.http import mcp_endpoint as serve

    return serve(request)


urlpatterns = [
    # Every path under /v1/ that no API route serves, any method, is 404 route_not_found.
    # The root first: ninja's view there only lets the API reverse its prefix, and without
    # this APPEND_SLASH would redirect /v1, losing a POST.
    re_path(r"^v1/?$", route_not_found),
    path("v1/", api.urls),
    re_path(r"^v1/", route_not_found),
    # The MCP server (streamable HTTP) for agent hosts: dewee.mcp_server.http.
    path("mcp", mcp_endpoint, name="mcp"),
    path("admin/", admin.site.urls),
    # Django's sign-in view, with failed attempts limited (dewee.sign_in).
    path("accounts/login/", sign_in, name="login"),
    # Invitations' one-time sign-in links and the workspace switcher (tenancy.account_views).
    path("accounts/", include("tenancy.account_urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("dashboard/", include("facts.urls")),
    path("dashboard/", include("knowledge.urls")),
    path("dashboard/memory/", include("memory.urls")),
    path("dashboard/members/", include("tenancy.urls")),
    path("dashboard/keys/", include("tenancy.key_urls")),
    path("dashboard/views/", include("tenancy.saved_view_urls")),
    path("app/", include("facts.urls", namespace=APP_MOUNT["facts"])),
    path("app/", include("knowledge.urls", namespace=APP_MOUNT["knowledge"])),
    path("app/memory/", include("memory.urls", namespace=APP_MOUNT["memory"])),
    path("app/keys/", include("tenancy.key_urls", namespace=APP_MOUNT["keys"])),
    path("app/members/", include("tenancy.urls", namespace=APP_MOUNT["members"])),
    path("app/views/", include("tenancy.saved_view_urls", namespace=APP_MOUNT["views"])),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    # Prometheus; a token or a loopback client (dewee.metrics).
    path("metrics", metrics_view, name="metrics"),
    path("favicon.ico", favicon, name="favicon"),
    path("", home, name="home"),
]
