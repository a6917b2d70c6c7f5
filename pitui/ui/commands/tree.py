"""The branch tree's commands: ``/tree``, ``/fork``, ``/clone``, Alt+← / Alt+→."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.host import require_session, wait_for_session

if TYPE_CHECKING:
    from pitui.ui.host import UiHost


async def tree(host: UiHost, _arg: str) -> None:
    """``/tree`` and Ctrl+B: show and focus the Branches pane; again, from the tree: back
    to the composer (the tree hides where it is not always shown)."""
    host.main.action_toggle_branches()


async def fork(host: UiHost, _arg: str) -> None:
    """``/fork``: pick a user message to continue from in a new session file."""
    require_session(host)
    host.branches.open_fork_picker()


async def clone(host: UiHost, _arg: str) -> None:
    """``/clone``: continue in a new session file holding the current path as it is
    (with its files, when they differ from the working tree and you want them)."""
    require_session(host)
    await host.branches.clone()


async def previous_branch(host: UiHost, _arg: str) -> None:
    """Alt+←: the previous sibling branch of a user message."""
    wait_for_session(host)
    host.branches.switch_sibling(-1)


async def next_branch(host: UiHost, _arg: str) -> None:
    """Alt+→: the next sibling branch of a user message."""
    wait_for_session(host)
    host.branches.switch_sibling(1)


async def diff(host: UiHost, arg: str) -> None:
    """``/diff [entry]``: the files at an entry (default: here) against the working tree,
    as a restore would change them."""
    session = require_session(host)
    entry_id = None
    if arg.strip():
        from pitui.core.session.entry_ids import resolve_entry_id

        entry_id = resolve_entry_id(session.store.table, arg.strip())
    host.branches.show_files(entry_id)


async def rewind(host: UiHost, _arg: str) -> None:
    """``/rewind``: pick a user message; the conversation, the files or both go back to
    just before it."""
    require_session(host)
    host.branches.open_rewind()
