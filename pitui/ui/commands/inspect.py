"""Looking inside: ``/context`` (the inspector), ``/hotkeys``, ``/permissions``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.host import require_session

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def context(host: UiHost, _arg: str) -> None:
    """``/context``: what the model receives on the next request, built by the request's
    own code (the same report as ``pitui session context``)."""
    from pitui.core.context_report import build_context_report
    from pitui.ui.screens.context import ContextScreen  # a screen: loaded when used

    session = require_session(host)
    report = await build_context_report(session)
    host.push_screen(ContextScreen(report))


async def hotkeys(host: UiHost, _arg: str) -> None:
    """``/hotkeys``: every action with its keys and id, and the fixed keys."""
    from pitui.paths import keybindings_file
    from pitui.ui.screens.hotkeys import HotkeysScreen

    source = keybindings_file()
    shown = str(source) if source.is_file() else ""
    host.push_screen(HotkeysScreen(host.keys.hotkey_rows(), shown))


async def permissions(host: UiHost, _arg: str) -> None:
    """``/permissions``: the remembered approval rules, with Delete to remove one."""
    from pitui.ui.screens.permissions import PermissionsScreen

    session = require_session(host)
    host.push_screen(PermissionsScreen(session.gate))
