"""The Branches pane's state: the tree rows (core's :class:`TreeView`) and the selection.

Pure: no Textual. The widget turns keys into these calls and draws :attr:`view`'s rows.
The selection follows pi's tree selector: it starts on the leaf (or its nearest visible
ancestor), ↑/↓ wrap, a filter or search change keeps the selected entry or moves to its
nearest visible ancestor.
"""

from __future__ import annotations

from collections.abc import Mapping

from pitui.core.session.table import EntryTable
from pitui.core.session.tree_view import FilterMode, TreeChange, TreeRow, TreeView


class TreePaneState:
    """The pane's tree view and which row is selected."""

    def __init__(
        self,
        table: EntryTable,
        labels: Mapping[str, str],
        leaf_id: str | None,
        filter_mode: FilterMode = "default",
    ) -> None:
        self.view = TreeView(table, labels, leaf_id, filter_mode=filter_mode)
        self.selected = self.view.leaf_row() or 0
        self._selected_id = self._id_at(self.selected)

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self.view)

    @property
    def selected_row(self) -> TreeRow | None:
        """The selected row (None when no row is visible)."""
        return self.view.row(self.selected) if len(self.view) else None

    @property
    def selected_id(self) -> str | None:
        return self._selected_id

    @property
    def query(self) -> str:
        return self.view.query

    def footer(self) -> str:
        """pi's ``(i/n)`` and filter tag."""
        return self.view.footer(self.selected)

    def _id_at(self, index: int) -> str | None:
        return self.view.row(index).entry_id if 0 <= index < len(self.view) else None

    def _select(self, index: int) -> None:
        count = len(self.view)
        self.selected = max(0, min(index, count - 1)) if count else 0
        self._selected_id = self._id_at(self.selected)

    def _reselect(self) -> None:
        """After the rows changed: the same entry, or its nearest visible ancestor."""
        self._select(self.view.nearest_row(self._selected_id))

    # ------------------------------------------------------------------ moving

    def move(self, step: int) -> None:
        """↑ / ↓: one row, wrapping around."""
        count = len(self.view)
        if count:
            self._select((self.selected + step) % count)

    def page(self, step: int, height: int) -> None:
        """PgUp / PgDn: a screen of rows, stopping at the ends."""
        self._select(self.selected + step * max(1, height))

    def home(self) -> None:
        self._select(0)

    def end(self) -> None:
        self._select(len(self.view) - 1)

    def select_entry(self, entry_id: str) -> None:
        """Select an entry's row (or its nearest visible ancestor)."""
        self._select(self.view.nearest_row(entry_id))

    def fold_or_up(self) -> None:
        """←: fold the selected row, or jump to the previous branch segment start."""
        if len(self.view):
            self._select(self.view.fold_or_up(self.selected))

    def unfold_or_down(self) -> None:
        """→: unfold, or jump to the next branch segment start."""
        if len(self.view):
            self._select(self.view.unfold_or_down(self.selected))

    # ------------------------------------------------------------------ filter and search

    def toggle_filter(self, mode: FilterMode) -> None:
        self.view.toggle_filter(mode)
        self._reselect()

    def set_filter(self, mode: FilterMode) -> None:
        self.view.set_filter(mode)
        self._reselect()

    def cycle_filter(self, step: int = 1) -> None:
        self.view.cycle_filter(step)
        self._reselect()

    def type(self, text: str) -> None:
        """Typed characters extend the search."""
        self.view.set_query(self.view.query + text)
        self._reselect()

    def backspace(self) -> None:
        if self.view.query:
            self.view.set_query(self.view.query[:-1])
            self._reselect()

    def clear_query(self) -> bool:
        """Esc with search text: clear it (True); without: nothing to clear (False)."""
        if not self.view.query:
            return False
        self.view.set_query("")
        self._reselect()
        return True

    # ------------------------------------------------------------------ live

    def sync(self, labels: Mapping[str, str], leaf_id: str | None) -> TreeChange:
        """Catch up with the session; the selection stays on its entry, and follows the
        leaf when it was on the leaf's row or the leaf moved elsewhere (a navigation)."""
        on_leaf = self.view.leaf_row() is not None and self.selected == self.view.leaf_row()
        moved = leaf_id != self.view.leaf_id
        change = self.view.sync(labels, leaf_id)
        if change.empty:
            return change
        if on_leaf or (moved and change.reset) or self._selected_id is None:
            self._select(self.view.leaf_row() or 0)
        elif change.reset:
            self._reselect()
        else:
            shift = sum(1 for i in change.inserted if i <= self.selected)
            self._select(self.selected + shift)
        return change
