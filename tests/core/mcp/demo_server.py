"""A real MCP server for the tests, built with the SDK's MCPServer (FastMCP in mcp 1.x).

``python demo_server.py`` serves stdio; ``python demo_server.py http`` serves streamable
HTTP on 127.0.0.1 at a free port and prints ``PORT <n>`` on stdout once listening.
Tools: read-only ``echo``/``add``, mutating ``write_note``, ``slow`` (progress),
``crash`` (the process dies), ``fail`` (an ``isError`` result), ``image``, ``big``
(long text), ``grow`` (adds a tool and announces the changed list). Resources: a text
note, a binary blob, a template.
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
READ_ONLY = ToolAnnotations(readOnlyHint=True)

server = MCPServer("demo", instructions="A demo server for pitui's tests.\nSecond line.")


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def write_note(text: str) -> str:
    """Write a note (changes state)."""
    return f"noted: {text}"


@server.tool(annotations=READ_ONLY)
async def slow(seconds: float, ctx: Context) -> str:
    """Take a while, reporting progress every 0.2 s."""
    steps = max(1, int(seconds / 0.2))
    for step in range(steps):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.2)
    return "slow done"


@server.tool(annotations=READ_ONLY)
def hang() -> str:
    """Never answers (the client's timeout must end it)."""
    import time

    time.sleep(3600)
    return "never"


@server.tool(annotations=READ_ONLY)
def crash() -> str:
    """Die mid-call."""
    print("about to crash: goodbye", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(annotations=READ_ONLY)
def fail() -> str:
    """Fail with a tool error."""
    raise ValueError("this tool always fails")


@server.tool(annotations=READ_ONLY)
def image() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool(annotations=READ_ONLY)
def big(size: int) -> str:
    """Text of ``size`` characters: HEAD…TAIL."""
    return "HEAD" + "x" * max(0, size - 8) + "TAIL"


@server.tool(annotations=READ_ONLY)
async def log_something(ctx: Context) -> str:
    """Send a log notification."""
    await ctx.log("warning", "something to log", logger_name="demo")
    return "logged"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool ``extra`` and announce the new list."""

    def extra() -> str:
        """A tool added at run time."""
        return "extra!"

    server.add_tool(extra, annotations=READ_ONLY)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.resource("note://readme", mime_type="text/plain", description="The readme")
def readme() -> str:
    return "Read me, please."


@server.resource("data://blob.bin", mime_type="application/octet-stream")
def blob() -> bytes:
    return bytes(range(16))


@server.resource("note://{name}")
def named_note(name: str) -> str:
    return f"note {name}"


def serve_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    print(f"PORT {port}", flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    print("demo server starting", file=sys.stderr, flush=True)
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run()
