"""Optional OpenTelemetry tracing: a span per request, sent to an OTLP/HTTP collector.

Only when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: without
it nothing of OpenTelemetry is imported and nothing is sent. The packages are not among
Dewee's requirements (requirements-otel.txt); configured without them, the server says so
once and serves untraced. The exporter reads the standard OTEL_* variables (headers,
timeout, batching); OTEL_SERVICE_NAME names the service (default "dewee").

A span is named by the request's method and URL pattern ("POST v1/memory/recall") and
carries no path, query or body: ids and what people said stay out of the traces. A
traceparent header from the caller makes the span part of the caller's trace."""

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

logger = logging.getLogger("dewee.tracing")

_lock = threading.Lock()
_tracer: Any = None
_configured = False


def configured() -> bool:
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def tracer() -> Any:
    """This process's tracer, set up on first use (after gunicorn forks its workers, so each
    has its own exporting thread); None when tracing is off or the packages are missing."""
    global _tracer, _configured
    if _configured:
        return _tracer
    with _lock:
        if _configured:
            return _tracer
        _configured = True
        if not configured():
            return None
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError:
            logger.warning(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry is not installed "
                "(pip install -r requirements-otel.txt); serving without tracing"
            )
            return None
        resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "dewee"})
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        _tracer = provider.get_tracer("dewee")
        return _tracer


def request_span(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable:
    """Middleware (in MIDDLEWARE only when an endpoint is configured): one server span per
    request."""

    def middleware(request: HttpRequest) -> HttpResponse:
        active = tracer()
        if active is None:
            return get_response(request)
        from opentelemetry.propagate import extract
        from opentelemetry.trace import SpanKind, Status, StatusCode

        from dewee.metrics import route_of

        # The propagators look up lower-case names (traceparent); Django's are title-cased.
        parent = extract({name.lower(): value for name, value in request.headers.items()})
        with active.start_as_current_span(
            request.method or "HTTP", context=parent, kind=SpanKind.SERVER
        ) as span:
            response = get_response(request)
            route = route_of(request)
            span.update_name(f"{request.method} {route}")
            span.set_attribute("http.request.method", request.method or "")
            span.set_attribute("http.route", route)
            span.set_attribute("http.response.status_code", response.status_code)
            if response.status_code >= 500:
                span.set_status(Status(StatusCode.ERROR))
            return response

    return middleware
