"""MCP servers: their configuration, connections, tools and resources.

Servers come from ``<home>/mcp.json`` and ``<project>/.pitui/mcp.json`` in the
``mcpServers`` format other MCP clients share (pi 1.6's rules). The protocol itself is
the official Python SDK's (``mcp`` on PyPI), imported only once a server connects, so a
session without servers never loads it. This package's ``__init__`` imports nothing.
"""
