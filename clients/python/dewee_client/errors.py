"""One exception class per error code the server answers with.

Every error the API answers has the shape ``{"error": {"code", "message", "details"}}``; the
client raises the class registered for its code (``ERRORS``), a subclass of the class for its
HTTP status, so a caller may catch as narrowly as it needs: ``except FactNotDisputed``,
``except Conflict`` or ``except DeweeError``. A code this client does not know (a newer
server's) raises the class of its status. tests/client/test_errors.py fails when the server
has a code that has no class here.
"""

from typing import Any


class DeweeError(Exception):
    """An error answered by the server (``status``, ``code``, ``message``, ``details``), or,
    for :class:`TransportError`, no answer at all."""

    status: int = 0
    code: str = ""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Any = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.details = details
        # Seconds the server asked the client to wait (its Retry-After header), if any.
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.code or self.status}: {self.message}" if self.code else self.message


class TransportError(DeweeError):
    """The server could not be reached or did not answer in time (after the retries)."""


class RequestTimeout(TransportError):
    """No answer within the client's timeout (after the retries)."""


# One class per HTTP status; each code's class derives from its status's.
class BadRequest(DeweeError):
    status = 400
    code = "bad_request"


class Unauthenticated(DeweeError):
    status = 401
    code = "unauthenticated"


class Forbidden(DeweeError):
    status = 403


class NotFound(DeweeError):
    status = 404
    code = "not_found"


class MethodNotAllowed(DeweeError):
    status = 405
    code = "method_not_allowed"


class Conflict(DeweeError):
    status = 409
    code = "conflict"


class PayloadTooLarge(DeweeError):
    status = 413
    code = "too_large"


class Unprocessable(DeweeError):
    status = 422


class TooManyRequests(DeweeError):
    status = 429


class ServerError(DeweeError):
    status = 500
    code = "internal_error"


class ServiceUnavailable(DeweeError):
    """The server is busy or cannot reach its database or a model; worth retrying after
    ``retry_after`` seconds (the client does, up to its ``max_retries``)."""

    status = 503


_STATUS_CLASSES: dict[int, type[DeweeError]] = {
    cls.status: cls
    for cls in (
        BadRequest,
        Unauthenticated,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        Conflict,
        PayloadTooLarge,
        Unprocessable,
        TooManyRequests,
        ServerError,
        ServiceUnavailable,
    )
}


# One class per code, under its status's class.
class InvalidInput(BadRequest):
    """A field fails a rule; details name it."""

    code = "invalid_input"


class MalformedJson(BadRequest):
    """The body is not one JSON object."""

    code = "malformed_json"


class InvalidUnicode(BadRequest):
    """A lone surrogate in the body."""

    code = "invalid_unicode"


class InvalidTime(BadRequest):
    """A time outside the years 1 to 9999."""

    code = "invalid_time"


class UnknownParameter(BadRequest):
    """A list got a parameter it lacks."""

    code = "unknown_parameter"


class TooManyParameters(BadRequest):
    """Over 1,000 query parameters."""

    code = "too_many_parameters"


class UserMismatch(BadRequest):
    """The user contradicts the session's."""

    code = "user_mismatch"


class ConflictingScope(BadRequest):
    """scope=all_users with a user."""

    code = "conflicting_scope"


class MixedUsers(BadRequest):
    """Memories of different users in one merge."""

    code = "mixed_users"


class InvalidAgentId(BadRequest):
    """An agent id with a '/'."""

    code = "invalid_agent_id"


class AgentAmbiguous(BadRequest):
    """A bare id several workspaces hold."""

    code = "agent_ambiguous"


class InvalidMemoryPolicy(BadRequest):
    """A policy key is wrong."""

    code = "invalid_memory_policy"


class InvalidLink(BadRequest):
    """A memory linked to itself."""

    code = "invalid_link"


class ConfirmationRequired(BadRequest):
    """A destructive call without its confirm flag."""

    code = "confirmation_required"


class InsufficientScope(Forbidden):
    """The key lacks the scope."""

    code = "insufficient_scope"


class RouteNotFound(NotFound):
    """No API route at this path."""

    code = "route_not_found"


class MemoryNotFound(NotFound):
    """No such memory for this key."""

    code = "memory_not_found"


class SessionNotFound(NotFound):
    """No such session for this key."""

    code = "session_not_found"


class LinkNotFound(NotFound):
    """No such link."""

    code = "link_not_found"


class EntityNotFound(NotFound):
    """No such entity."""

    code = "entity_not_found"


class NoPath(NotFound):
    """No chain of edges within reach."""

    code = "no_path"


class AgentNotFound(NotFound):
    """No such agent for this key."""

    code = "agent_not_found"


class WorkspaceNotFound(NotFound):
    """No such workspace."""

    code = "workspace_not_found"


class NoMembership(NotFound):
    """Not a member of the workspace."""

    code = "no_membership"


class UserNotFound(NotFound):
    """No such person."""

    code = "user_not_found"


class MemberNotFound(NotFound):
    """No such member."""

    code = "member_not_found"


class ApiKeyNotFound(NotFound):
    """No such API key."""

    code = "api_key_not_found"


class FactNotFound(NotFound):
    """No such fact for this key."""

    code = "fact_not_found"


class ReceiptNotFound(NotFound):
    """No such erasure receipt."""

    code = "receipt_not_found"


class EmbeddingModelMismatch(Conflict):
    """Memories embedded by another model."""

    code = "embedding_model_mismatch"


class LinkExists(Conflict):
    """The link is there already."""

    code = "link_exists"


class MemberExists(Conflict):
    """The member is there already."""

    code = "member_exists"


class AgentExists(Conflict):
    """The agent id is taken."""

    code = "agent_exists"


class WorkspaceExists(Conflict):
    """The workspace is there already."""

    code = "workspace_exists"


class FactNotDisputed(Conflict):
    """Only a disputed fact is resolved."""

    code = "fact_not_disputed"


class FactAlreadyDeleted(Conflict):
    """The fact is deleted already."""

    code = "fact_already_deleted"


class JobAlreadyRunning(Conflict):
    """A run of the same maintenance job is under way (on this worker or another host's)."""

    code = "job_running"


class FactNotDeleted(Conflict):
    """Only a deleted fact is restored."""

    code = "fact_not_deleted"


class SlotBusy(Conflict):
    """Another value holds the fact's slot."""

    code = "slot_busy"


class FactNotCurrent(Conflict):
    """The fact is not current."""

    code = "fact_not_current"


class UndoRefused(Conflict):
    """The change can no longer be undone."""

    code = "undo_refused"


class FactNotRejected(Conflict):
    """Only a rejected fact is reopened."""

    code = "fact_not_rejected"


class ValueAlreadyCurrent(Conflict):
    """That value is current."""

    code = "value_already_current"


class ChangeNotPending(Conflict):
    """Only a change still to take effect is called off or moved."""

    code = "change_not_pending"


class SessionEnded(Conflict):
    """The session has ended."""

    code = "session_ended"


class QuotaExceeded(PayloadTooLarge):
    """A quota in enforce mode is full."""

    code = "quota_exceeded"


class TooManyCandidates(Unprocessable):
    """Narrow the deduplication."""

    code = "too_many_candidates"


class RateLimited(TooManyRequests):
    """Over the key's or address's rate."""

    code = "rate_limited"


class TooManyJobs(TooManyRequests):
    """Too many maintenance jobs queued."""

    code = "too_many_jobs"


class DatabaseBusy(ServiceUnavailable):
    """The database is busy."""

    code = "database_busy"


class DatabaseUnavailable(ServiceUnavailable):
    """The database cannot be reached."""

    code = "database_unavailable"


class EmbeddingModelUnavailable(ServiceUnavailable):
    """The embedding model is not ready."""

    code = "embedding_model_unavailable"


class RerankerUnavailable(ServiceUnavailable):
    """The reranker is not ready."""

    code = "reranker_unavailable"


ERRORS: dict[str, type[DeweeError]] = {
    cls.code: cls
    for cls in (
        BadRequest,
        Unauthenticated,
        NotFound,
        MethodNotAllowed,
        Conflict,
        PayloadTooLarge,
        ServerError,
        InvalidInput,
        MalformedJson,
        InvalidUnicode,
        InvalidTime,
        UnknownParameter,
        TooManyParameters,
        UserMismatch,
        ConflictingScope,
        MixedUsers,
        InvalidAgentId,
        AgentAmbiguous,
        InvalidMemoryPolicy,
        InvalidLink,
        ConfirmationRequired,
        InsufficientScope,
        RouteNotFound,
        MemoryNotFound,
        SessionNotFound,
        LinkNotFound,
        EntityNotFound,
        NoPath,
        AgentNotFound,
        WorkspaceNotFound,
        NoMembership,
        UserNotFound,
        MemberNotFound,
        ApiKeyNotFound,
        FactNotFound,
        ReceiptNotFound,
        EmbeddingModelMismatch,
        LinkExists,
        MemberExists,
        AgentExists,
        WorkspaceExists,
        FactNotDisputed,
        FactAlreadyDeleted,
        FactNotDeleted,
        JobAlreadyRunning,
        SlotBusy,
        FactNotCurrent,
        UndoRefused,
        FactNotRejected,
        ValueAlreadyCurrent,
        ChangeNotPending,
        SessionEnded,
        QuotaExceeded,
        TooManyCandidates,
        RateLimited,
        TooManyJobs,
        DatabaseBusy,
        DatabaseUnavailable,
        EmbeddingModelUnavailable,
        RerankerUnavailable,
    )
}


def error_for(status: int, body: Any, *, retry_after: float | None = None) -> DeweeError:
    """The exception for an error response: its code's class, else its status's."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {"code": "", "message": f"HTTP {status}", "details": body}
    code = str(error.get("code") or "")
    cls = ERRORS.get(code)
    if cls is None or cls.status != status:
        cls = _STATUS_CLASSES.get(status) or (ServerError if status >= 500 else DeweeError)
    return cls(
        str(error.get("message") or f"HTTP {status}"),
        status=status,
        code=code or None,
        details=error.get("details"),
        retry_after=retry_after,
    )
