"""The client and the live server's OpenAPI schema agree: each model has its component's fields
(and a default exactly where the schema does not promise a field), each operation the client
calls is there with the method, body fields and query parameters the client sends, and answers
with the component the client reads. A change to either side that the other has not followed
fails here, not in a user's agent."""

import dataclasses
import inspect
import json
import urllib.request

import pytest

from dewee_client import AsyncDewee, Dewee, models
from dewee_client._core import ENDPOINTS, Endpoint


@pytest.fixture(scope="module")
def openapi(dewee_server) -> dict:
    with urllib.request.urlopen(f"{dewee_server.url}/v1/openapi.json", timeout=60) as answer:
        return json.load(answer)


def _ref(schema: dict) -> str | None:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    return None


@pytest.mark.parametrize("model", models.MODELS, ids=lambda model: model.__name__)
def test_each_model_has_its_components_fields_and_required_ness(openapi, model):
    component = openapi["components"]["schemas"][model.COMPONENT]
    fields = {field.name: field for field in dataclasses.fields(model)}
    assert set(fields) == set(component["properties"]), model.COMPONENT
    required = set(component.get("required", []))
    has_default = {
        name
        for name, field in fields.items()
        if field.default is not dataclasses.MISSING
        or field.default_factory is not dataclasses.MISSING
    }
    assert has_default == set(fields) - required, model.COMPONENT


def _operation(openapi: dict, endpoint: Endpoint) -> dict:
    operations = openapi["paths"].get(endpoint.path)
    assert operations, f"no path {endpoint.path}"
    operation = operations.get(endpoint.method.lower())
    assert operation, f"no {endpoint.method} {endpoint.path}"
    return operation


def _success_schema(operation: dict) -> dict:
    [success] = [r for status, r in operation["responses"].items() if status.startswith("2")]
    return success["content"]["application/json"]["schema"]


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
def test_each_operation_the_client_calls_is_in_the_schema_as_the_client_calls_it(openapi, name):
    endpoint = ENDPOINTS[name]
    operation = _operation(openapi, endpoint)
    parameters = {p["name"]: p for p in operation.get("parameters", [])}
    query = {n for n, p in parameters.items() if p["in"] == "query"}
    assert endpoint.query <= query, f"{name} sends {sorted(endpoint.query - query)}"
    in_path = {n for n, p in parameters.items() if p["in"] == "path"}
    assert {n for n in query | in_path if parameters[n].get("required")} <= (
        endpoint.query | in_path
    ), f"{name} leaves out a required parameter"

    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if endpoint.body is None:
        assert body is None, f"{name} sends no body"
    else:
        assert body is not None
        assert _ref(body["schema"]) == endpoint.body
        component = openapi["components"]["schemas"][endpoint.body]
        assert endpoint.body_fields <= set(component["properties"]), name
        assert set(component.get("required", [])) <= endpoint.body_fields, name

    answer = _success_schema(operation)
    if endpoint.response is not None:
        assert _ref(answer) == endpoint.response.COMPONENT, name
    elif endpoint.list_of is not None:
        assert answer["type"] == "array"
        assert _ref(answer["items"]) == endpoint.list_of.COMPONENT, name
    elif endpoint.page_of is not None:
        page = openapi["components"]["schemas"][_ref(answer)]
        assert set(page["properties"]) == {"items", "next_cursor"}
        assert _ref(page["properties"]["items"]["items"]) == endpoint.page_of.COMPONENT, name
    else:  # forget_facts: a receipt, or a preview with dry_run
        assert {_ref(option) for option in answer["anyOf"]} == {
            models.ForgetReceipt.COMPONENT,
            models.ForgetPreview.COMPONENT,
        }


def _public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") and name not in {"close", "aclose"}
    }


def test_the_sync_and_async_clients_have_the_same_methods_and_parameters():
    sync, asynchronous = _public_methods(Dewee), _public_methods(AsyncDewee)
    assert set(sync) == set(asynchronous)
    for name, signature in sync.items():
        assert list(signature.parameters.values()) == list(
            asynchronous[name].parameters.values()
        ), name
    assert inspect.signature(Dewee.__init__).parameters.keys() == (
        inspect.signature(AsyncDewee.__init__).parameters.keys()
    )
