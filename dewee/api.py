"""The REST API under /v1/: authentication, the one error shape, and the routers."""

import json
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.datastructures import MultiValueDict
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.schema import REF_TEMPLATE, OpenAPISchema
from ninja.parser import Parser

from dewee import __version__
from dewee.api_auth import UNDECLARED
from dewee.errors import DeweeError, InvalidInput
from dewee.outage import database_trouble, trouble_response
from dewee.schemas import ErrorOut
from tenancy.validation import refuse_lone_surrogates

logger = logging.getLogger("dewee.api")


class MalformedJson(DeweeError):
    code = "malformed_json"


class _StrictJsonParser(Parser):
    """JSON bodies must be one object; NaN and Infinity (which Python's json accepts)
    are not JSON and are refused, and so are strings no UTF-8 text can hold (lone
    surrogates). Query parameters must not hold NUL, which PostgreSQL text refuses."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        def refuse_constant(name: str) -> float:
            raise ValueError(f"{name} is not valid JSON")

        try:
            data = json.loads(request.body, parse_constant=refuse_constant)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise MalformedJson(f"The request body is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise MalformedJson("The request body must be a JSON object")
        refuse_lone_surrogates(data)
        return data

    def parse_querydict(
        self, data: MultiValueDict, list_fields: list[str], request: HttpRequest
    ) -> dict[str, Any]:
        for name, values in data.lists():
            if any("\x00" in value for value in values):
                raise InvalidInput(name, "must not contain NUL characters")
        return super().parse_querydict(data, list_fields, request)


def error_response(status: int, code: str, message: str, details: Any = None) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "details": details}}, status=status
    )


def body_too_large() -> JsonResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return error_response(413, "too_large", f"The request body is over the {limit}-byte limit")


def unreadable_request(exc: BaseException | None) -> JsonResponse:
    """The answer to a request Django refuses to read (SuspiciousOperation, BadRequest),
    whichever layer catches it: the API's handlers or Django's handler400."""
    if isinstance(exc, RequestDataTooBig):
        return body_too_large()
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return error_response(
            400, "too_many_parameters", f"The request has more than {limit} parameters"
        )
    return error_response(400, "bad_request", "The request was refused as malformed")


# What any operation may answer besides its own results: each in the one error shape.
COMMON_ERRORS = {
    400: "Invalid input: a parameter or body field fails a rule (code invalid_input and others)",
    401: "No valid API key (code unauthenticated)",
    403: "The key lacks the scope this operation needs (code insufficient_scope)",
    404: "Something the request names is not in this key's workspace (code not_found and others)",
    429: "Too many requests from this key or address (code rate_limited); retry after "
    "Retry-After seconds",
    503: "The database is busy or out of reach; retry after Retry-After seconds",
}
BODY_ERRORS = {413: "The request body, or a value in it, is over its size limit (code too_large)"}
# An operation that can also answer these declares them in its route, e.g.
# ``response={201: LinkOut, 409: ErrorOut}``.
ERROR_DESCRIPTIONS = {
    409: "The request conflicts with the current state (code conflict and others)",
    422: "The request cannot be carried out as asked (see the code)",
}


class DeweeApi(NinjaAPI):
    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        declare_errors(schema)
        return schema


def declare_errors(schema: OpenAPISchema) -> None:
    """Declares the error shape once, as a component, and the errors every operation can
    answer, so the schema describes every response a client can get."""
    error_schema = ErrorOut.model_json_schema(ref_template=REF_TEMPLATE)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.update(error_schema.pop("$defs", {}))
    components["ErrorOut"] = error_schema
    content = {"application/json": {"schema": {"$ref": REF_TEMPLATE.format(model="ErrorOut")}}}
    for operations in schema["paths"].values():
        for operation in operations.values():
            responses = operation["responses"]
            errors = COMMON_ERRORS | (BODY_ERRORS if "requestBody" in operation else {})
            for status, description in errors.items():
                responses.setdefault(status, {"description": description, "content": content})
            for status, response in responses.items():
                if status in ERROR_DESCRIPTIONS:
                    response["description"] = ERROR_DESCRIPTIONS[status]
            operation["responses"] = dict(sorted(responses.items(), key=lambda item: int(item[0])))


api = DeweeApi(
    title="Dewee",
    version=__version__,
    description="Memory for LLM agents: memories, recall and sourced facts.",
    # Each operation declares its scope (dewee.api_auth); one that does not is refused.
    auth=UNDECLARED,
    parser=_StrictJsonParser(),
    urls_namespace="api",
    docs_url="/docs",
    openapi_url="/openapi.json",
)


def domain_error_response(exc: DeweeError) -> JsonResponse:
    """A domain error as every JSON interface answers it (the REST API, /mcp's refusals)."""
    response = error_response(exc.status, exc.code, exc.message, exc.details)
    if exc.status == 401:  # an expired key (tenancy.exceptions.ApiKeyExpired)
        response["WWW-Authenticate"] = "Bearer"
    if exc.retry_after is not None:
        response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(DeweeError)
def _domain_error(request: HttpRequest, exc: DeweeError) -> HttpResponse:
    return domain_error_response(exc)


@api.exception_handler(ValidationError)
def _validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = []
    for error in exc.errors:
        # ninja prefixes locations with the parameter source ("body", "query", "path")
        # and the schema's argument name; users know only the field names.
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
        if len(loc) > 1 and loc[0] in {"payload", "params"}:
            loc = loc[1:]
        errors.append({"field": ".".join(loc) or None, "message": error.get("msg", "")})
    first = errors[0] if errors else {"field": None, "message": "invalid request"}
    message = str(first["message"])
    if first["field"]:
        message = f"{first['field']}: {message}"
    return error_response(400, "invalid_input", message, {"errors": errors})


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = error_response(
        401,
        "unauthenticated",
        "A valid API key is required: send 'Authorization: Bearer <key>'",
    )
    response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    cause = exc.__cause__
    if isinstance(cause, DeweeError):
        return _domain_error(request, cause)
    if isinstance(cause, RequestDataTooBig):
        return body_too_large()
    return error_response(exc.status_code, f"http_{exc.status_code}", str(exc))


@api.exception_handler(SuspiciousOperation)
def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    # What Django itself answers 400 to (a request it will not read) must not reach the
    # catch-all below as a 500.
    return unreadable_request(exc)


@api.exception_handler(Exception)
def _unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
    if (trouble := database_trouble(exc)) is not None:
        return trouble_response(request, trouble)
    logger.exception("Unhandled error in %s %s", request.method, request.path)
    return error_response(500, "internal_error", "An unexpected error occurred; it was logged")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(404, "not_found", str(exc) or "Not found")


# The API authenticates with bearer keys, never cookies, so a CSRF check has nothing to
# protect here (ninja's own views are exempt too); it would answer 403, not 404, to a POST.
@csrf_exempt
def route_not_found(request: HttpRequest) -> HttpResponse:
    """Every method to a path under /v1/ that no route serves (a trailing slash included)."""
    return error_response(404, "route_not_found", f"No API route {request.path}")


api.add_router("/", "memory.api.router")
api.add_router("/", "knowledge.api.router")
api.add_router("/", "facts.api.router")
