"""Dewee as an MCP server (Model Context Protocol): the tools and resources an agent host
sees (tools.py, resources.py), the SDK server built for one caller (server.py), and its two
transports: streamable HTTP under /mcp on the application server (http.py) and stdio for a
local host (stdio.py, ``dewee mcp --stdio``). Every tool calls the services the REST API
calls, through the same access helper; nothing here holds a rule of its own."""
