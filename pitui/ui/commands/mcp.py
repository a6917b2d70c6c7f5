"""MCP in the TUI: ``/mcp`` and the questions about project servers.

``/mcp`` opens the servers screen (``/mcp reconnect NAME`` reconnects one directly). At
start-up the launcher asks about each project server not allowed yet, one question after
another; an answer is remembered in the pitui home and an allowed server starts at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.host import push_for_result, require_session

if TYPE_CHECKING:
    from pitui.core.mcp.runtime import McpRuntime
    from pitui.ui.host import UiHost

USAGE = "Usage: /mcp, /mcp reconnect <server>"


async def servers(host: UiHost, arg: str) -> None:
    """``/mcp``: the session's MCP servers; ``/mcp reconnect NAME``."""
    from pitui.ui.screens.mcp import McpScreen

    session = require_session(host)
    words = arg.split()
    if not words:
        host.push_screen(McpScreen(session.mcp))
        return
    runtime = session.mcp
    if words[0] != "reconnect" or len(words) != 2:
        await host.notice(USAGE, "warning")
        return
    if runtime is None or words[1] not in runtime.connections:
        await host.notice(f'No connected MCP server named "{words[1]}".', "error")
        return
    from pitui.core.mcp.manage import reconnect

    await reconnect(runtime, words[1])
    connection = runtime.connections[words[1]]
    if connection.state == "connected":
        await host.notice(
            f'Reconnected to MCP server "{words[1]}" ({len(connection.tools)} tools).'
        )
    else:
        await host.notice(
            f'MCP server "{words[1]}": {connection.error or connection.state}', "error"
        )


def server_names(host: UiHost, arg: str) -> list[str]:
    """Completions after ``/mcp``: ``reconnect`` and then a server name."""
    live = host.live
    runtime = live.session.mcp if live is not None else None
    words = arg.split()
    if len(words) <= 1 and not arg.endswith(" "):
        return [c for c in ["reconnect "] if c.startswith(arg)]
    if words and words[0] == "reconnect" and runtime is not None:
        typed = words[1] if len(words) > 1 else ""
        return [f"reconnect {n}" for n in runtime.connections if n.startswith(typed)]
    return []


async def ask_project_servers(host: UiHost, runtime: McpRuntime) -> None:
    """Each project server not allowed yet: a question (Esc: asked again next time)."""
    from pitui.core.mcp.manage import allow_project_server
    from pitui.ui.screens.mcp_trust import McpTrustScreen

    for entry in list(runtime.untrusted):
        answer = await push_for_result(host, McpTrustScreen(entry))
        if answer is not None:
            await allow_project_server(runtime, entry.name, answer)
