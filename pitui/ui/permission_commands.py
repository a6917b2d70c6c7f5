"""``/permissions``: list the approvals remembered for this project and remove them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.commands import Commands


async def permissions_command(commands: Commands, _arg: str) -> None:
    """``/permissions``: the remembered rules, with Delete to remove one."""
    from pitui.ui.screens.permissions import PermissionsScreen

    session = commands.require_session()
    commands.app.push_screen(PermissionsScreen(session.gate))
