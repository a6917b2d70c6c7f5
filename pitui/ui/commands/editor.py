"""The keys of the editor and the run: Esc, Ctrl+C, Ctrl+D, Alt+Up.

Their behaviour belongs to the controllers (what is typed and queued, pi's double
presses); these handlers are how the action table reaches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def interrupt(host: UiHost, _arg: str) -> None:
    """Esc: cancel a summary or a compaction, else put the queue back and abort."""
    await host.prompts.interrupt()


async def clear(host: UiHost, _arg: str) -> None:
    """Ctrl+C: clear the composer (twice within 0.5 s: quit)."""
    host.keys.clear_editor()


async def exit_if_empty(host: UiHost, _arg: str) -> None:
    """Ctrl+D on an empty composer: quit."""
    host.exit()


async def dequeue(host: UiHost, _arg: str) -> None:
    """Alt+Up: take queued messages back into the composer."""
    await host.prompts.dequeue()
