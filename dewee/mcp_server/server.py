"""The SDK's low-level MCP server for one caller: its tools and resources, each call run in
the thread Django's database connection belongs to (dewee.mcp_server.inline.run_sync)."""

import json
import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from dewee import __version__
from dewee.errors import DeweeError
from dewee.mcp_server.auth import Caller
from dewee.mcp_server.inline import run_sync
from dewee.mcp_server.resources import TEMPLATES, read_resource
from dewee.mcp_server.tools import TOOLS_BY_NAME, tools_for
from dewee.metrics import count_database_refusal
from dewee.outage import database_trouble

logger = logging.getLogger("dewee.mcp")

INSTRUCTIONS = (
    "Dewee is this agent's long-term memory. At the start of a turn, call context with the "
    "user's message and put its prompt in yours. Store what is worth knowing later with "
    "remember (one self-contained sentence per memory, with the user). Use recall to look "
    "something up, facts_list for what is known about a user, facts_check when the user "
    "says something that may change a fact. Errors carry a stable code, e.g. not_found, "
    "invalid_input, insufficient_scope, quota_exceeded, rate_limited."
)


class UnknownTool(DeweeError):
    status = 404
    code = "unknown_tool"


def error_body(exc: BaseException) -> dict[str, Any]:
    """The REST error shape for what a call raised: a domain error as it is, the database
    being busy or gone as REST's 503 codes, anything else an internal error (logged)."""
    if isinstance(exc, DeweeError):
        return exc.as_dict()
    if (trouble := database_trouble(exc)) is not None:
        # Logged and counted as REST's 503s are (dewee.outage.trouble_response).
        logger.warning("%s in an MCP call (%s)", trouble.code, trouble.cause)
        count_database_refusal(trouble.code)
        details = {"retry_after": trouble.retry_after}
        return {"error": {"code": trouble.code, "message": trouble.message, "details": details}}
    logger.exception("Unhandled error in an MCP call", exc_info=exc)
    return {
        "error": {
            "code": "internal_error",
            "message": "An unexpected error occurred; it was logged",
            "details": None,
        }
    }


def call_tool(caller: Caller, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """A tool's result as structured content and as text; a refusal as an error result
    carrying REST's error body, so a model reads the code and the message."""
    try:
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            raise UnknownTool(f"No tool {name!r}; the tools are {', '.join(TOOLS_BY_NAME)}")
        result = tool.call(caller, arguments)
    except Exception as exc:
        body = error_body(exc)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(body))],
            structured_content=body,
            is_error=True,
        )
    text = tool.text(result) if tool.text is not None else json.dumps(result)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=result
    )


def list_tools(caller: Caller) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.input_schema,
                annotations=types.ToolAnnotations(
                    read_only_hint=tool.read_only,
                    destructive_hint=tool.destructive,
                    open_world_hint=False,
                ),
            )
            for tool in tools_for(caller.access)
        ]
    )


def read(caller: Caller, uri: str) -> types.ReadResourceResult:
    try:
        contents = read_resource(caller, uri)
    except Exception as exc:
        body = error_body(exc)["error"]
        # A resource has no error result: a JSON-RPC error, with REST's body as its data.
        raise MCPError(types.INVALID_PARAMS, body["message"], data=body) from exc
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(
                uri=uri, mime_type="application/json", text=json.dumps(contents)
            )
        ]
    )


def _protocol_error(exc: DeweeError) -> MCPError:
    body = exc.as_dict()["error"]
    return MCPError(types.INVALID_REQUEST, body["message"], data=body)


# What every caller is answered alike: resources are read by template only.
async def on_list_resources(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[])


async def on_list_resource_templates(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                name=t.name,
                uri_template=t.uri_template,
                description=t.description,
                mime_type="application/json",
            )
            for t in TEMPLATES
        ]
    )


def tool_input_schema(name: str) -> dict[str, Any] | None:
    tool = TOOLS_BY_NAME.get(name)
    return tool.input_schema if tool is not None else None


def build_server(current_caller: Callable[[], Caller]) -> Server[Any]:
    """``current_caller`` is called for each request, in the database's thread: HTTP hands
    the request's caller; stdio authenticates its key again, so a revoked key stops."""

    def caller() -> Caller:
        try:
            return current_caller()
        except DeweeError as exc:
            raise _protocol_error(exc) from exc

    def tools_of_caller() -> types.ListToolsResult:
        return list_tools(caller())

    def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return call_tool(caller(), name, arguments)

    def read_of_caller(uri: str) -> types.ReadResourceResult:
        return read(caller(), uri)

    async def on_list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return await run_sync(tools_of_caller)

    async def on_call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        return await run_sync(call, params.name, arguments)

    async def on_read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await run_sync(read_of_caller, str(params.uri))

    return Server(
        "dewee",
        get_tool_input_schema=tool_input_schema,
        version=__version__,
        title="Dewee memory",
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_resource_templates,
        on_read_resource=on_read_resource,
    )
