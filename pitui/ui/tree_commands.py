"""``/tree``, ``/fork`` and ``/clone``: the branch tree's slash commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.commands import Commands


async def tree_command(commands: Commands, _arg: str) -> None:
    """``/tree``: show and focus the Branches pane."""
    commands.require_session()
    commands.app.main.focus_branches()


async def fork_command(commands: Commands, _arg: str) -> None:
    """``/fork``: pick a user message to continue from in a new session file."""
    commands.require_session()
    commands.app.branches.open_fork_picker()


async def clone_command(commands: Commands, _arg: str) -> None:
    """``/clone``: continue in a new session file holding the current path."""
    commands.require_session()
    await commands.app.branches.clone()
