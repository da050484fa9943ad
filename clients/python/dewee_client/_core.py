"""What the sync and async clients share: the endpoints they call, how a call is built, and
when and how long to wait before trying again.

``ENDPOINTS`` is the one list of the API operations the client calls, with the body fields and
query parameters it may send; tests/client/test_schema.py checks each against the live
OpenAPI schema, so a renamed route or field fails a test rather than a user's call.
"""

import email.utils
import random
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from dewee_client import models
from dewee_client.errors import DeweeError, error_for

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
DEFAULT_MAX_RETRIES = 3
# The longest Retry-After the client waits out; a longer one is raised at once, since a caller
# that waits minutes inside one call is worse off than one told to come back.
DEFAULT_MAX_RETRY_WAIT = 30.0
# What the client waits before trying again after a refused connection (no Retry-After):
# this, doubled at each try, with jitter.
BACKOFF_SECS = 0.5
RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    # The request body's schema component, and the fields of it the client may send.
    body: str | None = None
    body_fields: frozenset[str] = frozenset()
    query: frozenset[str] = frozenset()
    # What a 2xx answer is: a model, a page of a model (items, next_cursor), or a list of one.
    response: type[models.Model] | None = None
    page_of: type[models.Model] | None = None
    list_of: type[models.Model] | None = None


_STORE_FIELDS = frozenset(
    [
        "content",
        "memory_type",
        "importance",
        "tags",
        "metadata",
        "session_id",
        "user",
        "speaker",
        "ttl_seconds",
        "expires_at",
        "source_refs",
        "created_at",
    ]
)
_PAGE = frozenset({"cursor", "limit"})

ENDPOINTS: dict[str, Endpoint] = {
    "store": Endpoint(
        "POST",
        "/v1/memories",
        body="StoreMemoryIn",
        body_fields=_STORE_FIELDS | {"agent_id", "extract_facts"},
        response=models.StoredMemory,
    ),
    "store_batch": Endpoint(
        "POST",
        "/v1/memories/batch",
        body="BatchIn",
        body_fields=frozenset({"agent_id", "items", "extract_facts"}),
        response=models.BatchResult,
    ),
    "memories": Endpoint(
        "GET",
        "/v1/memories",
        query=_PAGE
        | {"agent_id", "user", "shared", "session_id", "type", "tags", "since", "until"},
        page_of=models.Memory,
    ),
    "get_memory": Endpoint("GET", "/v1/memories/{memory_id}", response=models.Memory),
    "update_memory": Endpoint(
        "PATCH",
        "/v1/memories/{memory_id}",
        body="MemoryPatchIn",
        body_fields=frozenset({"content", "memory_type", "importance", "tags", "metadata"}),
        response=models.PatchedMemory,
    ),
    "delete_memory": Endpoint(
        "DELETE",
        "/v1/memories/{memory_id}",
        query=frozenset({"reason"}),
        response=models.ForgetResult,
    ),
    "forget": Endpoint(
        "POST",
        "/v1/memories/forget",
        body="ForgetMemoriesIn",
        body_fields=frozenset({"agent_id", "ids", "tags", "below_importance"}),
        response=models.ForgetResult,
    ),
    "recall": Endpoint(
        "POST",
        "/v1/memory/recall",
        body="RecallIn",
        body_fields=frozenset(
            [
                "agent_id",
                "query",
                "top_k",
                "routing",
                "fusion",
                "weights",
                "session_id",
                "tags",
                "memory_type",
                "min_importance",
                "max_importance",
                "since",
                "until",
                "explain",
                "rerank",
                "user",
                "scope",
            ]
        ),
        response=models.RecallResult,
    ),
    "context": Endpoint(
        "POST",
        "/v1/context",
        body="ContextIn",
        body_fields=frozenset(
            {"agent_id", "query", "user", "session_id", "budget_tokens", "top_k"}
        ),
        response=models.Context,
    ),
    "start_session": Endpoint(
        "POST",
        "/v1/sessions",
        body="SessionIn",
        body_fields=frozenset({"agent_id", "user", "metadata", "idle_timeout_secs"}),
        response=models.Session,
    ),
    "sessions": Endpoint(
        "GET", "/v1/sessions", query=_PAGE | {"agent_id", "user", "status"}, page_of=models.Session
    ),
    "get_session": Endpoint("GET", "/v1/sessions/{session_id}", response=models.Session),
    "end_session": Endpoint(
        "POST",
        "/v1/sessions/{session_id}/end",
        body="SessionEndIn",
        body_fields=frozenset({"summary"}),
        response=models.Session,
    ),
    "touch_session": Endpoint("POST", "/v1/sessions/{session_id}/touch", response=models.Session),
    "session_memories": Endpoint(
        "GET", "/v1/sessions/{session_id}/memories", query=_PAGE, page_of=models.Memory
    ),
    "check_facts": Endpoint(
        "POST",
        "/v1/facts/check",
        body="FactCheckIn",
        body_fields=frozenset({"agent_id", "user", "text", "apply", "source", "now"}),
        response=models.CheckResult,
    ),
    "facts": Endpoint(
        "GET",
        "/v1/facts",
        query=_PAGE
        | {"agent_id", "user", "subject", "predicate", "status", "valid_at", "in_force", "q"},
        page_of=models.Fact,
    ),
    "assert_fact": Endpoint(
        "POST",
        "/v1/facts",
        body="FactAssertIn",
        body_fields=frozenset(
            [
                "agent_id",
                "user",
                "subject",
                "predicate",
                "qualifier",
                "value",
                "verification",
                "confidence",
                "category",
                "valid_from",
                "valid_to",
                "source",
            ]
        ),
        response=models.AssertResult,
    ),
    "get_fact": Endpoint("GET", "/v1/facts/{fact_id}", response=models.FactDetail),
    "resolve_fact": Endpoint(
        "POST",
        "/v1/facts/{fact_id}/resolve",
        body="ResolveIn",
        body_fields=frozenset({"action", "reason"}),
        response=models.FactDetail,
    ),
    "delete_fact": Endpoint(
        "DELETE", "/v1/facts/{fact_id}", query=frozenset({"reason"}), response=models.FactDetail
    ),
    "forget_facts": Endpoint(
        "POST",
        "/v1/facts/forget",
        body="ForgetIn",
        body_fields=frozenset({"agent_id", "user", "subject", "dry_run", "confirm"}),
    ),
    "agents": Endpoint("GET", "/v1/agents", list_of=models.Agent),
    "create_agent": Endpoint(
        "POST",
        "/v1/agents",
        body="AgentIn",
        body_fields=frozenset({"agent_id", "name", "metadata"}),
        response=models.Agent,
    ),
}


@dataclass(frozen=True)
class Call:
    endpoint: Endpoint
    url: str
    params: dict[str, Any] | None
    json: dict[str, Any] | None


def build(name: str, /, *, path: Mapping[str, Any] | None = None, **values: Any) -> Call:
    """The request for ``ENDPOINTS[name]`` with ``values`` as its body or query (a None value
    is not sent: the server's default applies)."""
    endpoint = ENDPOINTS[name]
    sent = {key: value for key, value in values.items() if value is not None}
    allowed = endpoint.body_fields if endpoint.body else endpoint.query
    unknown = set(sent) - allowed
    if unknown:  # a mistake of this package's, not the caller's
        raise AssertionError(f"{name} does not send {sorted(unknown)}")
    url = endpoint.path.format(**{k: _path_part(v) for k, v in (path or {}).items()})
    if endpoint.body:
        return Call(endpoint, url, None, sent)
    return Call(endpoint, url, sent or None, None)


def _path_part(value: Any) -> str:
    return urllib.parse.quote(str(value), safe="")


def parse(call: Call, response: httpx.Response) -> Any:
    """The answer of a successful call, as its model."""
    data = response.json()
    endpoint = call.endpoint
    if endpoint.response is not None:
        return endpoint.response.from_dict(data)
    if endpoint.list_of is not None:
        return [endpoint.list_of.from_dict(item) for item in data]
    if endpoint.page_of is not None:
        items = [endpoint.page_of.from_dict(item) for item in data["items"]]
        return items, data.get("next_cursor")
    if endpoint.path == "/v1/facts/forget":
        model = models.ForgetPreview if data.get("dry_run") else models.ForgetReceipt
        return model.from_dict(data)
    return data


def error_from(response: httpx.Response) -> DeweeError:
    """The exception for an error response (its body may not be JSON: a proxy's page)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_for(response.status_code, body, retry_after=retry_after(response))


def retry_after(response: httpx.Response) -> float | None:
    """The Retry-After header in seconds (it may be a number or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = DEFAULT_MAX_RETRIES
    max_wait: float = DEFAULT_MAX_RETRY_WAIT

    def wait_after_response(self, attempt: int, response: httpx.Response) -> float | None:
        """Seconds to wait before trying again, or None to give up and raise. Only 429 and
        503 are retried: the server refused those before doing anything."""
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        wait = retry_after(response)
        if wait is None:
            wait = self._backoff(attempt)
        return wait if wait <= self.max_wait else None

    def wait_after_error(
        self, attempt: int, method: str, error: httpx.TransportError
    ) -> float | None:
        """A refused connection never reached the server, so any call may be sent again; a
        request that was sent and got no answer may have been carried out, so only a read
        (GET) is."""
        if attempt >= self.max_retries:
            return None
        if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or method == "GET":
            return min(self._backoff(attempt), self.max_wait)
        return None

    def _backoff(self, attempt: int) -> float:
        return float(BACKOFF_SECS * 2**attempt * (0.5 + random.random()))


def transport_error(error: httpx.TransportError) -> DeweeError:
    from dewee_client.errors import RequestTimeout, TransportError

    cls = RequestTimeout if isinstance(error, httpx.TimeoutException) else TransportError
    return cls(f"{type(error).__name__}: {error}")


def headers(api_key: str | None, user_agent: str) -> dict[str, str]:
    found = {"User-Agent": user_agent, "Accept": "application/json"}
    if api_key:
        found["Authorization"] = f"Bearer {api_key}"
    return found


def source_dict(source: "models.JSON | str | None") -> "models.JSON | None":
    """A fact's source: a dict as the API takes it, or just its kind."""
    return {"kind": source} if isinstance(source, str) else source


def agent_id(given: str | None, default: str | None) -> str:
    chosen = given or default
    if not chosen:
        raise ValueError("no agent_id: give one to the call or to the client")
    return chosen


def as_list(values: "Sequence[Any] | None") -> list[Any] | None:
    return None if values is None else list(values)
