"""The Branches pane's messages, handed to the branches controller (the app inherits them).

The tree's keys that open a screen held the keys typed after them (the app's key gate):
each handler starts its screen or flow, then lets those keys go on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pitui.ui.widgets.branch_tree import BranchTree

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from pitui.ui.controllers.branches import BranchesController
    from pitui.ui.widgets.key_gate import KeyGate


class _TreeHost(Protocol):
    @property
    def branches(self) -> BranchesController: ...
    @property
    def key_gate(self) -> KeyGate: ...
    def run_guarded(self, work: Awaitable[None], group: str = "default") -> None: ...


class TreeMessages:
    """``on_branch_tree_*`` handlers; needs ``branches``, ``key_gate`` and ``run_guarded``
    of the class it is mixed into."""

    def on_branch_tree_navigate(self: _TreeHost, message: BranchTree.Navigate) -> None:
        self.branches.navigate(message.entry_id)
        self.key_gate.release()

    def on_branch_tree_edit_label(self: _TreeHost, message: BranchTree.EditLabel) -> None:
        self.branches.edit_label(message.entry_id, message.label)
        self.key_gate.release()

    def on_branch_tree_fork(self: _TreeHost, message: BranchTree.Fork) -> None:
        held = self.key_gate.hold()  # until the fork's question is open (or none is)
        self.run_guarded(self.branches.fork(message.entry_id, held))
        self.key_gate.release()

    def on_branch_tree_show_files(self: _TreeHost, message: BranchTree.ShowFiles) -> None:
        self.branches.show_files(message.entry_id)
        self.key_gate.release()
