"""The session itself: ``/new``, ``/name``, ``/session``, ``/copy``, ``/quit``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.host import require_session

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def new(host: UiHost, _arg: str) -> None:
    """``/new``: abort any run and start an empty session file."""
    session = require_session(host)
    if session.is_streaming:
        session.abort()
        await session.wait_for_idle()
    await session.new_session()
    host.refresh_status()
    host.notice_after_events("✓ New session started")


async def name(host: UiHost, arg: str) -> None:
    """``/name [name]``: set the session name; without one show it."""
    session = require_session(host)
    if not arg:
        current = session.session_name
        if current:
            await host.notice(f"Session name: {current}")
        else:
            await host.notice("Usage: /name <name>", "warning")
        return
    await session.set_name(arg)
    host.refresh_status()
    await host.notice(f"Session name set: {arg}")


async def info_panel(host: UiHost, _arg: str) -> None:
    """``/session``: the session panel over the conversation, until dismissed."""
    from pitui.ui.screens.session_panel import SessionPanel  # a screen: loaded when used

    session = require_session(host)
    host.push_screen(SessionPanel(session, lambda: host.chat.usage.context_tokens))


async def copy_last(host: UiHost, _arg: str) -> None:
    """``/copy``: the last assistant text to the clipboard (OSC 52 via Textual)."""
    session = require_session(host)
    text = session.last_assistant_text()
    if not text:
        await host.notice("No agent messages to copy yet.", "error")
        return
    host.copy_to_clipboard(text)
    await host.notice("Copied last agent message to clipboard")


async def quit_app(host: UiHost, _arg: str) -> None:
    """``/quit`` and Ctrl+Q: exit (a reply still streaming is saved first)."""
    host.exit()
