"""Dewee as an MCP server (Model Context Protocol): the tools and resources an agent host
sees (tools.py, with their handlers in handlers.py; resources.py), who a connection acts as
(auth.py), the SDK server built for one caller (server.py), and its two transports:
streamable HTTP under /mcp on the application server (http.py) and stdio for a local host
(stdio.py, ``dewee mcp --stdio``). Every tool calls the services the REST API calls,
through the same access helper; nothing here holds a rule of its own."""
