"""Optional OpenTelemetry tracing (dewee.tracing): off, nothing of it is imported; with an
OTLP endpoint, the live server sends a span per request, named by its URL pattern, to a
collector (a fake one here, on loopback)."""

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.conf import settings

from tests.factories import make_key, make_workspace
from tests.servers import (
    start_server,
    stop_server,
    wait_for,
    wait_until_serving,
)


def test_without_an_endpoint_nothing_of_opentelemetry_is_loaded():
    script = (
        "import sys, django; django.setup(); "
        "from django.test import Client; "
        "assert Client(HTTP_HOST='localhost').get('/healthz').status_code == 200; "
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'dewee.tracing'))))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "DATABASE_URL"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "dewee.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


class Collector(BaseHTTPRequestHandler):
    received: list[bytes] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/v1/traces":
            Collector.received.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


# solo on SQLite, as the servers of test_serving (see there).
@pytest.mark.django_db(transaction=True)
@(
    pytest.mark.solo
    if not os.environ.get("DATABASE_URL", "").startswith("postgres")
    else (lambda test: test)
)
def test_a_configured_endpoint_gets_a_span_per_request_without_ids(tmp_path):
    pytest.importorskip("opentelemetry.sdk", reason="requirements-otel.txt is not installed")
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    server = start_server(
        tmp_path,
        DEWEE_WEB_WORKERS="1",
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{collector.server_port}",
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_SERVICE_NAME="dewee-test",
    )
    try:
        wait_until_serving(server)
        server.key = make_key(make_workspace("traced"))
        stored = server.request("POST", "/v1/memories", {"agent_id": "a", "content": "Ana, Lisbon"})
        memory_id = stored.json()["id"]
        trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
        parent = f"00-{trace_id}-00f067aa0ba902b7-01"
        answer = server.request("GET", f"/v1/memories/{memory_id}", headers={"traceparent": parent})
        assert answer.status == 200

        def spans() -> list[tuple[Any, Any]]:
            found: list[tuple[Any, Any]] = []
            for body in list(Collector.received):
                export = ExportTraceServiceRequest()
                export.ParseFromString(body)
                for resource_spans in export.resource_spans:
                    for scope in resource_spans.scope_spans:
                        found.extend((resource_spans.resource, span) for span in scope.spans)
            return found

        wanted = "GET v1/memories/<int:memory_id>"
        wait_for(lambda: any(s.name == wanted for _, s in spans()), 30, "the span")
        resource, span = next((r, s) for r, s in spans() if s.name == wanted)
        assert span.trace_id.hex() == trace_id  # part of the caller's trace
        attributes = {a.key: a.value for a in span.attributes}
        assert attributes["http.route"].string_value == "v1/memories/<int:memory_id>"
        assert attributes["http.response.status_code"].int_value == 200
        names = {a.key: a.value.string_value for a in resource.attributes}
        assert names["service.name"] == "dewee-test"
        sent = b"".join(Collector.received)
        assert f"/v1/memories/{memory_id}".encode() not in sent
        assert b"Lisbon" not in sent
        assert any(s.name == "POST v1/memories" for _, s in spans())
    finally:
        stop_server(server)
        collector.shutdown()
        print(server.tail())
