"""Every error code the server can answer has its class in the client, under the class of the
status the server answers it with. The codes are read from the server's source (each
``code = "..."`` of an error class, ``code="..."`` given to one, and the codes the API's
handlers and the outage handler answer directly), so a new code fails here until the client
has a class for it."""

import ast
from pathlib import Path

from dewee.errors import DeweeError
from dewee_client import errors
from tests.layout import product_packages
from tests.servers import BASE_DIR

SERVER_PACKAGES = product_packages()
# Not errors: the one warning a successful store may carry (memory.quotas.QuotaWarning).
NOT_ERRORS = {"quota_warning"}
# The MCP server's own codes (an unknown tool, an unknown resource) reach an agent host inside
# an MCP answer, never this client as an HTTP error body.
MCP_SERVER = "dewee/mcp_server"


def _codes_in(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        # class X(DeweeError): code = "..."
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if (
                    isinstance(statement, ast.Assign)
                    and [getattr(t, "id", None) for t in statement.targets] == ["code"]
                    and isinstance(statement.value, ast.Constant)
                ):
                    found.add(statement.value.value)
        # SomeError(..., code="...")
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "code" and isinstance(keyword.value, ast.Constant):
                    found.add(keyword.value.value)
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            # error_response(status, "code", ...) and DatabaseTrouble("code", ...)
            literal = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if name == "error_response" and len(literal) >= 2:
                found.add(literal[1])
            if name == "DatabaseTrouble" and literal:
                found.add(literal[0])
        # {"code": "...", ...} written out as an error body
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "code"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    found.add(value.value)
    return {code for code in found if isinstance(code, str)}


def server_codes() -> set[str]:
    codes: set[str] = set()
    for package in SERVER_PACKAGES:
        for path in (Path(BASE_DIR) / package).rglob("*.py"):
            if "migrations" in path.parts or MCP_SERVER in path.as_posix():
                continue
            codes |= _codes_in(ast.parse(path.read_text(), filename=str(path)))
    return codes - NOT_ERRORS


def test_the_scan_finds_the_codes_of_every_layer():
    codes = server_codes()
    # a class attribute, a keyword, a handler's literal and the outage handler's
    assert {"fact_not_disputed", "user_mismatch", "route_not_found", "database_busy"} <= codes


def test_every_error_code_of_the_server_has_a_class_in_the_client():
    missing = server_codes() - set(errors.ERRORS)
    assert not missing, f"add a class to dewee_client/errors.py for: {sorted(missing)}"


def _subclasses(cls: type[DeweeError]) -> list[type[DeweeError]]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in _subclasses(child))]


def test_each_codes_class_is_under_the_status_the_server_answers_it_with():
    import dewee.api  # noqa: F401 - its error classes
    import facts.exceptions  # noqa: F401
    import memory.exceptions  # noqa: F401
    import tenancy.exceptions  # noqa: F401

    for server_class in _subclasses(DeweeError):
        if server_class.__module__.startswith(MCP_SERVER.replace("/", ".")):
            continue
        client_class = errors.ERRORS[server_class.code]
        assert client_class.status == server_class.status, server_class.code


def test_an_error_body_becomes_its_codes_class_or_its_statuss():
    known = errors.error_for(409, {"error": {"code": "session_ended", "message": "m"}})
    assert type(known) is errors.SessionEnded
    newer = errors.error_for(409, {"error": {"code": "some_new_conflict", "message": "m"}})
    assert type(newer) is errors.Conflict
    assert newer.code == "some_new_conflict"
    proxy = errors.error_for(502, None)
    assert isinstance(proxy, errors.ServerError)
    assert proxy.status == 502
