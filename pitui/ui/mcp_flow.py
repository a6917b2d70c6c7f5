"""MCP in the TUI: the questions about project servers, and the ``/mcp`` screen.

Kept apart from the app so that wiring it is two calls: :func:`ask_project_servers`
once the session is attached (each project server not allowed yet gets its question,
one after another; an answer is remembered in the pitui home and an allowed server
starts at once), and :func:`open_mcp_screen` for ``/mcp``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from pitui.core.agent_session import AgentSession
from pitui.core.mcp import manage
from pitui.core.mcp.runtime import McpRuntime
from pitui.ui.screens.mcp import McpScreen
from pitui.ui.screens.mcp_trust import McpTrustScreen


def ask_project_servers(
    app: App[Any], runtime: McpRuntime, done: Callable[[], None] | None = None
) -> None:
    """Ask about each untrusted project server in turn (Esc: ask again next session)."""
    pending = list(runtime.untrusted)

    def next_question() -> None:
        if not pending:
            if done is not None:
                done()
            return
        entry = pending.pop(0)

        def answered(answer: bool | None) -> None:
            if answer is not None:
                app.run_worker(manage.allow_project_server(runtime, entry.name, answer))
            next_question()

        app.push_screen(McpTrustScreen(entry), answered)

    next_question()


def open_mcp_screen(app: App[Any], session: AgentSession) -> None:
    """``/mcp``: the session's servers (an empty list when none are configured)."""
    app.push_screen(McpScreen(session.mcp))
