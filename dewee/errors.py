"""The error every layer speaks: a stable code, a message, an HTTP status, details.

Services raise subclasses of :class:`DeweeError` (from ``<app>/exceptions.py``); the REST API
turns them into ``{"error": {"code", "message", "details"}}`` with ``status``, and the CLI into
a one-line message and exit code 1.
"""

from typing import Any

MCP_PATH = "/mcp"


def speaks_json(path: str) -> bool:
    """The paths every answer of which, errors included, is JSON in the one error shape:
    the REST API under /v1/ and the MCP endpoint (dewee.mcp_server.http)."""
    return path.startswith("/v1/") or path == MCP_PATH


class DeweeError(Exception):
    status = 400
    code = "bad_request"
    # Seconds after which trying again may succeed (a Retry-After header), when known.
    retry_after: int | None = None

    def __init__(self, message: str, *, details: Any = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        if code is not None:
            self.code = code

    def for_item(self, index: int) -> "DeweeError":
        """This error, saying which item of a batch caused it."""
        self.message = f"items[{index}]: {self.message}"
        self.details = {**(self.details if isinstance(self.details, dict) else {}), "index": index}
        self.args = (self.message,)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class InvalidInput(DeweeError):
    """A value that fails a domain rule; ``details`` names the field."""

    status = 400
    code = "invalid_input"

    def __init__(self, field: str, message: str, *, code: str | None = None) -> None:
        super().__init__(f"{field}: {message}", details={"field": field}, code=code)
        self.field = field


class TooLarge(InvalidInput):
    status = 413
    code = "too_large"


class NotFound(DeweeError):
    status = 404
    code = "not_found"


class Conflict(DeweeError):
    status = 409
    code = "conflict"


class ConfirmationRequired(DeweeError):
    """A destructive action was asked for without its explicit confirmation."""

    status = 400
    code = "confirmation_required"


class RateLimited(DeweeError):
    """Too many requests in the limit's window; ``retry_after`` says when it ends."""

    status = 429
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, details={"retry_after": retry_after})
        self.retry_after = retry_after
