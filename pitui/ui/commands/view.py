"""What the screen shows: tool output, thinking blocks, the tool pane, the conversation's
selection and find bar, the command palette."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def toggle_tools(host: UiHost, _arg: str) -> None:
    """Ctrl+O: expand or collapse every tool card's output."""
    from pitui.ui.view.events import ToggleAllTools  # lazy: not first-frame

    await host.apply([ToggleAllTools()])


async def toggle_thinking(host: UiHost, _arg: str) -> None:
    """Ctrl+T: show or hide every thinking block."""
    from pitui.ui.view.events import ToggleAllThinking  # lazy: not first-frame

    await host.apply([ToggleAllThinking()])


async def toggle_tool_pane(host: UiHost, _arg: str) -> None:
    """F2: show or hide the tool pane (narrow: swap it in for the conversation)."""
    host.main.action_toggle_tool_pane()


async def focus_conversation(host: UiHost, _arg: str) -> None:
    """Ctrl+Up: select items in the conversation."""
    host.main.action_focus_conversation()


async def search_conversation(host: UiHost, _arg: str) -> None:
    """Ctrl+F: find in the conversation."""
    await host.main.action_open_search()


async def command_palette(host: UiHost, _arg: str) -> None:
    """Ctrl+P: the command palette."""
    await host.run_action("command_palette")
