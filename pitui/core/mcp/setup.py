"""Open a session's MCP runtime: read the files, apply trust and filters, start servers.

Called by :func:`pitui.core.session_setup.create_agent_session`. Without any server
configured it returns None having read two small files and imported nothing of the MCP
SDK. Invalid entries become warnings the mode shows once; project servers not allowed
yet are left in ``runtime.untrusted`` for the mode (the TUI asks, print mode says how to
allow them).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pitui.core.mcp.config import load_config
from pitui.core.mcp.runtime import McpRuntime
from pitui.core.mcp.trust import is_allowed, is_refused
from pitui.core.trust import load_trust


async def open_mcp(
    cwd: Path,
    *,
    tools: Sequence[str] | None,
    exclude: Sequence[str],
    warnings: list[str],
) -> McpRuntime | None:
    """The runtime (servers connecting in the background), or None without servers."""
    config = await load_config(cwd)
    warnings += [f"MCP config error: {error}" for error in config.errors]
    warnings += config.notices
    if not config.servers:
        return None
    store = await load_trust()
    runtime = McpRuntime(
        cwd,
        config,
        allowed=lambda entry: is_allowed(store, cwd, entry),
        tools_filter=tools,
        exclude=exclude,
    )
    runtime.refused = {e.name for e in runtime.untrusted if is_refused(store, cwd, e)}
    runtime.untrusted = [e for e in runtime.untrusted if e.name not in runtime.refused]
    runtime.start()
    return runtime
