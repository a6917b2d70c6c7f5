"""``/context`` (also the palette and the ``contextInspector`` binding): the inspector."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.commands import Commands


async def context_command(commands: Commands, _arg: str) -> None:
    """Show what the model receives on the next request."""
    from pitui.ui.screens.context import open_context_inspector  # a screen: loaded when used

    await open_context_inspector(commands)
