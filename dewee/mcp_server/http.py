"""POST /mcp: the MCP streamable-HTTP transport on the application server.

Why a Django view driving the SDK's own session manager (stateless, JSON responses), and not
a separate ASGI app behind an ASGI-to-WSGI bridge: the server is gunicorn with threaded WSGI
workers, and everything that makes a request safe here is Django's: the body guard
(dewee.wsgi), the size limit, the address and key rate limits (dewee.middleware,
dewee.limits), the API keys and their scopes, the access log, and each thread's pooled
database connection. In a view, a /mcp request passes through all of them as a /v1/ one
does. The view hands the SDK the request as an ASGI scope and runs it on an event loop of
the request thread's own (dewee.mcp_server.inline.drive); the tools run in that thread
between turns of the loop, so they use its database connection, as a REST view would, and
no request crosses threads. Stateless mode keeps no session between requests, so any
worker of any process can answer any request and nothing lives in a process's memory; JSON
responses (no SSE stream) fit a worker thread that answers and moves on.
"""

from collections.abc import MutableMapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from dewee.api import domain_error_response
from dewee.errors import DeweeError, InvalidInput
from dewee.limits import check_key_rate
from dewee.mcp_server.auth import Caller, Unauthenticated, caller_for, key_for_token
from dewee.mcp_server.inline import drive
from dewee.mcp_server.server import build_server

# Hop-by-hop or recomputed by Django: not copied from the SDK's answer.
_DROPPED_HEADERS = {"content-length", "connection", "transfer-encoding"}


def _caller(request: HttpRequest) -> Caller:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("A valid API key is required: send 'Authorization: Bearer <key>'")
    key = key_for_token(token.strip())
    # The key's requests count against its rate, as REST's (dewee.api_auth).
    check_key_rate(request, key_id=str(key.pk))
    agent_id = request.GET.get("agent")
    if not agent_id:
        raise InvalidInput("agent", "required: connect to /mcp?agent=<agent id>")
    return caller_for(key, agent_id)


def _asgi_scope(request: HttpRequest) -> dict[str, Any]:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.META.get("SERVER_NAME", ""), int(request.META.get("SERVER_PORT") or 0)),
    }


async def _serve(caller: Caller, scope: dict[str, Any], body: bytes) -> tuple[int, list, bytes]:
    manager = StreamableHTTPSessionManager(
        app=build_server(lambda: caller), json_response=True, stateless=True
    )
    sent_body = False
    status, headers, chunks = 500, [], []

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return status, headers, b"".join(chunks)


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """Authenticated as REST is (a bearer API key, its rate); the SDK answers the rest."""
    try:
        caller = _caller(request)
    except DeweeError as exc:
        return domain_error_response(exc)
    status, headers, body = drive(_serve(caller, _asgi_scope(request), request.body))
    response = HttpResponse(body, status=status)
    for name, value in headers:
        if name.decode("latin-1").lower() not in _DROPPED_HEADERS:
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response
