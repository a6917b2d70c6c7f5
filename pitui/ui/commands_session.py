"""``/session``: the session panel (file, id, parent, entries, messages by role, tool
calls, tokens, cost, context use); it stays until dismissed."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.commands import Commands


async def session_command(commands: Commands, _arg: str) -> None:
    """Open the panel over the conversation."""
    from pitui.ui.screens.session_panel import SessionPanel

    session = commands.require_session()
    app = commands.app
    app.push_screen(SessionPanel(session, lambda: app.chat.usage.context_tokens))
