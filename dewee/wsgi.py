"""The WSGI application, behind a guard that reads each request body in full before Django
sees it.

- A body that ends before its Content-Length (the client went away) is refused with 400:
  nothing half-sent is ever stored.
- A chunked body (no Content-Length) is read up to the size limit and handed on with its
  length, so Django parses it instead of seeing an empty body; a longer one is refused
  with 413.
- No database connection is taken while a slow client is still sending, and a client that
  takes longer than DEWEE_BODY_TIMEOUT_SECS to send its body (or stalls for a third of
  that) is answered 408 and let go, so slow senders cannot hold the server's threads.
"""

import contextlib
import io
import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
django_application = get_wsgi_application()

StartResponse = Callable[..., Any]
READ_CHUNK = 64 * 1024
BODY_TIMEOUT_SECS = float(os.environ.get("DEWEE_BODY_TIMEOUT_SECS", 30))


class BodyTimeout(Exception):
    pass


def _refuse(
    environ: dict[str, Any], start_response: StartResponse, status: str, code: str, message: str
) -> Iterable[bytes]:
    from dewee.errors import speaks_json

    if speaks_json(environ.get("PATH_INFO", "")):
        body = json.dumps({"error": {"code": code, "message": message, "details": None}})
        content_type = "application/json"
    else:
        body, content_type = message, "text/plain; charset=utf-8"
    payload = body.encode()
    start_response(
        status,
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(payload))),
            ("Connection", "close"),
        ],
    )
    return [payload]


def _read_up_to(environ: dict[str, Any], limit: int) -> bytes:
    """At most ``limit`` bytes, fewer only when the stream ends first; BodyTimeout when the
    client takes too long."""
    stream = environ["wsgi.input"]
    sock = environ.get("gunicorn.socket")
    deadline = time.monotonic() + BODY_TIMEOUT_SECS
    parts, size = [], 0
    if isinstance(sock, socket.socket):
        sock.settimeout(BODY_TIMEOUT_SECS / 3)
    try:
        while size < limit:
            part = stream.read(min(READ_CHUNK, limit - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
            if time.monotonic() > deadline:
                raise BodyTimeout
    except TimeoutError as exc:
        raise BodyTimeout from exc
    finally:
        if isinstance(sock, socket.socket):
            sock.settimeout(None)
    return b"".join(parts)


def _too_slow(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    sock = environ.get("gunicorn.socket")
    if isinstance(sock, socket.socket):
        # Nothing more is read from this client: without this, closing the connection
        # would wait (in the server's main loop) for the rest of its body.
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)
    return _refuse(
        environ,
        start_response,
        "408 Request Timeout",
        "body_timeout",
        f"The request body took longer than {BODY_TIMEOUT_SECS:g} s to arrive",
    )


def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
    raw_length = environ.get("CONTENT_LENGTH") or ""
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    if raw_length.isdigit() and 0 < int(raw_length) <= limit:
        expected = int(raw_length)
        try:
            body = _read_up_to(environ, expected)
        except BodyTimeout:
            return _too_slow(environ, start_response)
        except Exception:  # the server's reader raises on a broken connection
            body = b""
        if len(body) < expected:
            return _refuse(
                environ,
                start_response,
                "400 Bad Request",
                "incomplete_body",
                f"The request body ended after {len(body)} of {expected} bytes",
            )
        environ["wsgi.input"] = io.BytesIO(body)
    elif chunked and not raw_length:
        try:
            body = _read_up_to(environ, limit + 1)
        except BodyTimeout:
            return _too_slow(environ, start_response)
        except Exception:
            return _refuse(
                environ,
                start_response,
                "400 Bad Request",
                "incomplete_body",
                "The chunked request body is malformed or ended early",
            )
        if len(body) > limit:
            return _refuse(
                environ,
                start_response,
                "413 Content Too Large",
                "too_large",
                f"The request body is over the {limit}-byte limit",
            )
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
    return django_application(environ, start_response)
