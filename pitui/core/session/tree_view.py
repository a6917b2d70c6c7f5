"""pi's ``/tree`` as a headless model: row order, connectors, filters, search, folds.

One source for ``pitui session tree`` and the TUI's Branches pane (PI_SPEC §9.7):
- depth first, the child holding the current leaf first, the others by timestamp;
- 3-column indentation; ``├─``/``└─`` only where an entry has several visible children;
  ``│`` gutters; ``⊟`` on a foldable row, ``⊞`` on a folded one;
- filters (``default``, ``no-tools``, ``user-only``, ``labeled-only``, ``all``); in each,
  assistant messages without text are hidden unless they are the leaf or stopped for
  another reason than ``stop``/``toolUse``; a search keeps rows holding every token;
- descendants of folded rows are hidden; hidden entries' children attach to their
  nearest visible ancestor.

The active path (root → leaf) is always the first chain of rows, so the common live
change — an entry appended under the leaf, which becomes the new leaf — is applied to a
few rows (:meth:`TreeView.sync`), never by rebuilding the tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pitui.core.session import branch_points
from pitui.core.session.branch_points import PathBranch, newest_under, path_branches
from pitui.core.session.custom_types import CHECKPOINT_TYPE
from pitui.core.session.row_fields import row_fields
from pitui.core.session.table import EntryTable
from pitui.core.session.tree import child_positions
from pitui.core.session.tree_filters import FILTER_MODES, FILTER_TAGS, FilterMode, position_footer
from pitui.core.session.tree_rows import (
    TreeRow,
    entry_tool_calls,
    has_text,
    row_text,
)
from pitui.core.session.typed_search import search_text_at
from pitui.core.session.visible_tree import ROOT, Children, PositionSet, VisibleTree, child_shape

__all__ = ["FILTER_MODES", "FILTER_TAGS", "FilterMode", "TreeChange", "TreeRow", "TreeView"]

# Bookkeeping entries the default filters hide (pi 0.73 counts the session name among them).
_SETTINGS_TYPES = frozenset(
    {"label", "custom", "model_change", "thinking_level_change", "session_info"}
)


@dataclass(slots=True)
class TreeChange:
    """What :meth:`TreeView.sync` changed, in visible row indices (after the change)."""

    reset: bool = False
    """Everything may have moved: redraw all."""
    inserted: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    """Indices before the change."""
    updated: list[int] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.reset or self.inserted or self.removed or self.updated)


class TreeView:
    """The rows of one session's tree under a filter, a search and fold state."""

    def __init__(
        self,
        table: EntryTable,
        labels: Mapping[str, str],
        leaf_id: str | None,
        *,
        filter_mode: FilterMode = "default",
    ) -> None:
        self.table = table
        self.labels = dict(labels)
        self.leaf_id = leaf_id
        self.filter_mode: FilterMode = filter_mode
        self.query = ""
        self.folded: set[str] = set()
        self.visible: list[int] = []
        """Positions of the visible entries, in row order."""
        self._seen = 0
        self._roots: list[int] = []
        self._children = Children(())
        self._structure_len = -1
        """How many entries ``_roots`` / ``_children`` / ``_broken`` were computed for."""
        self._order: list[int] | None = None
        """Every entry in row order (cached until the tree or the leaf changes)."""
        self._base: list[int] | None = None
        """The rows the filter keeps, before search and folds (cached likewise)."""
        self._matched: tuple[str, list[int]] | None = None
        """The last query and the rows of :attr:`_base` it matched."""
        self._active = PositionSet()
        self._active_rows = 0
        """How many rows are on the active path: they are always the first rows."""
        self._tree = VisibleTree(0)
        self._row_of: dict[int, int] | None = None
        self._assistant: dict[int, tuple[bool, Any]] = {}
        self._infos: dict[tuple[bool, Any], tuple[bool, Any]] = {}
        self._calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
        self._calls_seen = 0
        self._search: dict[int, str] = {}
        self._rows: dict[int, TreeRow] = {}
        self._broken: set[int] = set()
        self._marks: dict[int, int] = {}
        self._marks_seen = 0
        self.rebuild()

    # ------------------------------------------------------------------ building

    def rebuild(self) -> None:
        """Recompute every row (after a leaf move or a structural change)."""
        table = self.table
        self._seen = len(table)
        self._file_marks()
        if self._structure_len != len(table):  # else only the leaf moved: same tree
            self._roots, children = child_positions(table)
            self._children = Children(children)
            self._broken = {r for r in self._roots if table.raw(r).get("parentId") is not None}
            self._structure_len = len(table)
        leaf = table.index.get(self.leaf_id) if self.leaf_id is not None else None
        path = table.path_positions(leaf) if leaf is not None else []
        self._active = PositionSet(path, len(table))
        self._order = self._base = self._matched = None
        self._reapply()

    def _ordered(self) -> list[int]:
        """Depth-first order, the child on the active path first."""
        if self._order is not None:
            return self._order
        active = self._active
        roots = sorted(self._roots, key=lambda r: r not in active)  # stable: file order
        self._order = order = self._children.depth_first(roots, active)
        return order

    def _apply(self) -> None:
        if self._base is None:
            self._base = [p for p in self._ordered() if self._passes(p, [])]
        query = self.query.lower()
        tokens = query.split()
        visible = self._base
        if tokens:
            # Typing on extends the query: only the rows that matched can match again.
            narrowing = self._matched is not None and query.startswith(self._matched[0])
            candidates = self._matched[1] if narrowing and self._matched else visible
            texts = self._search
            search = self._search_text
            visible = [
                p for p in candidates if all(t in (texts.get(p) or search(p)) for t in tokens)
            ]
            self._matched = (query, visible)
        else:
            self._matched = None
        if self.folded:
            visible = self._without_folded(self._ordered(), visible)
        self.visible = list(visible)
        self._row_of = None
        active = self._active  # the active path's rows come first: how many are there?
        self._active_rows = next(
            (i for i, p in enumerate(self.visible) if p not in active), len(self.visible)
        )
        self._structure()

    def _passes(self, position: int, tokens: list[str]) -> bool:
        table = self.table
        kind = table.types[position]
        role = table.roles[position]
        if role == "assistant" and table.ids[position] != self.leaf_id:
            text, stop = self._assistant_info(position)
            if not text and (not stop or stop in ("stop", "toolUse")):
                return False
        mode = self.filter_mode
        if mode == "user-only":
            ok = kind == "message" and role == "user"
        elif mode == "labeled-only":
            ok = table.ids[position] in self.labels
        elif mode == "all":
            ok = True
        else:
            ok = kind not in _SETTINGS_TYPES and not (mode == "no-tools" and role == "toolResult")
        return ok and (not tokens or all(t in self._search_text(position) for t in tokens))

    def _without_folded(self, order: list[int], visible: list[int]) -> list[int]:
        folded = {self.table.index[i] for i in self.folded if i in self.table.index}
        hidden: set[int] = set()
        parent_of = self.table.parent_position
        for position in order:
            parent = parent_of(position)
            if parent is not None and (parent in folded or parent in hidden):
                hidden.add(position)
        return [p for p in visible if p not in hidden]

    def _structure(self) -> None:
        """pi's recalculateVisualStructure: every row under its nearest visible ancestor."""
        ppos = self.table.parent_positions()
        shown = bytearray(len(ppos))
        for position in self.visible:
            shown[position] = 1
        self._tree = VisibleTree.build(self._ordered(), shown, ppos)

    # ------------------------------------------------------------------ entry facts

    def _assistant_info(self, position: int) -> tuple[bool, Any]:
        info = self._assistant.get(position)
        if info is None:
            message = row_fields(self.table, position).get("message")
            message = message if isinstance(message, dict) else {}
            info = (has_text(message.get("content")), message.get("stopReason"))
            if info[1] is None or info[1].__class__ is str:  # one tuple per kind of reply
                info = self._infos.setdefault(info, info)
            self._assistant[position] = info
        return info

    def _search_text(self, position: int) -> str:
        """The entry's search text, kept from the first search on (not before: 10,000
        entries hold ~2.7 MB of them, which an idle pane does not need). It is read from
        the keys a row decodes (``row_fields``), not the whole entry: the first search
        keystroke of a 10,000-entry tree decodes each line in part once, and a typed
        entry whose line was given up gives it from memory (``typed_search``)."""
        text = self._search.get(position)
        if text is None:
            label = self.labels.get(self.table.ids[position])
            text = self._search[position] = search_text_at(self.table, position, label)
        return text

    def _tool_calls(self) -> Mapping[str, tuple[str, Mapping[str, Any]]]:
        table = self.table
        for position in range(self._calls_seen, len(table)):
            if table.roles[position] == "assistant":
                for call_id, name, args in entry_tool_calls(table, position):
                    self._calls[call_id] = (name, args)
        self._calls_seen = len(table)
        return self._calls

    def _file_marks(self) -> list[int]:
        """Note the rows whose run changed files (a run-end checkpoint hangs below them);
        returns the positions newly marked."""
        table, marked = self.table, []
        for position in range(self._marks_seen, len(table)):
            if table.types[position] != "custom":
                continue
            raw = table.raw(position)
            data = raw.get("data")
            if raw.get("customType") != CHECKPOINT_TYPE or not isinstance(data, dict):
                continue
            count, parent = data.get("changedCount"), table.parent_position(position)
            run_end = data.get("reason") == "runEnd" and parent is not None
            if run_end and parent is not None and isinstance(count, int) and count > 0:
                self._marks[parent] = count
                self._rows.pop(parent, None)
                marked.append(parent)
        self._marks_seen = len(table)
        return marked

    # ------------------------------------------------------------------ rows

    def __len__(self) -> int:
        return len(self.visible)

    def row(self, index: int) -> TreeRow:
        """The row at ``index`` (cached until that row changes)."""
        position = self.visible[index]
        cached = self._rows.get(position)
        if cached is None:
            cached = self._rows[position] = self._make_row(position)
        return cached

    def _make_row(self, position: int) -> TreeRow:
        entry_id = self.table.ids[position]
        folded = entry_id in self.folded
        shape = self._tree.shape(position)
        connector = shape.connector and not shape.virtual
        calls = self._tool_calls() if self.table.roles[position] == "toolResult" else {}
        return TreeRow(
            entry_id=entry_id,
            prefix=self._tree.prefix(position, folded),
            fold_marker="⊞ " if folded and not connector else "",
            on_path=position in self._active,
            is_leaf=position == self._leaf_row_position(),
            label=self.labels.get(entry_id),
            text=row_text(row_fields(self.table, position), calls),
            broken=position in self._broken,
            files=self._marks.get(position, 0),
        )

    def _leaf_row_position(self) -> int:
        """The row that shows the leaf's ``←``: the leaf, or its nearest visible ancestor
        (the last row of the active path, which always comes first)."""
        return self.visible[self._active_rows - 1] if self._active_rows else -1

    def leaf_row(self) -> int | None:
        """The row showing the leaf's arrow (the initial selection, as pi's)."""
        return self._active_rows - 1 if self._active_rows else None

    def index_of(self, entry_id: str | None) -> int | None:
        """The row of an entry, if it is visible."""
        if self._row_of is None:
            self._row_of = {p: i for i, p in enumerate(self.visible)}
        position = self.table.index.get(entry_id) if entry_id is not None else None
        return None if position is None else self._row_of.get(position)

    def nearest_row(self, entry_id: str | None) -> int:
        """The row of ``entry_id`` or of its nearest visible ancestor; else the last row."""
        position = self.table.index.get(entry_id) if entry_id is not None else None
        seen = 0
        while position is not None and seen <= len(self.table):
            index = self.index_of(self.table.ids[position])
            if index is not None:
                return index
            position = self.table.parent_position(position)
            seen += 1
        return max(0, len(self.visible) - 1)

    def footer(self, selected: int) -> str:
        """pi's ``(i/n)`` line with the filter tag."""
        return position_footer(selected, len(self.visible), self.filter_mode)

    # ------------------------------------------------------------------ folds and jumps

    def is_foldable(self, position: int) -> bool:
        """A row with visible children that is a root or starts a branch segment."""
        return self._tree.foldable(position)

    def fold_or_up(self, index: int) -> int:
        """pi's fold key: fold the row if it can fold, else jump to the previous segment
        start. Returns the row to select."""
        position = self.visible[index]
        entry_id = self.table.ids[position]
        if self.is_foldable(position) and entry_id not in self.folded:
            self.folded.add(entry_id)
            self._reapply()
            return self.nearest_row(entry_id)
        return self._segment_start(index, up=True)

    def unfold_or_down(self, index: int) -> int:
        """pi's unfold key: unfold a folded row, else jump to the next segment start."""
        entry_id = self.table.ids[self.visible[index]]
        if entry_id in self.folded:
            self.folded.discard(entry_id)
            self._reapply()
            return self.nearest_row(entry_id)
        return self._segment_start(index, up=False)

    def _segment_start(self, index: int, *, up: bool) -> int:
        tree = self._tree
        current = self.visible[index]
        if not up:
            while True:
                count = tree.children(current)
                if not count:
                    return self._index(current)
                if count > 1:
                    return self._index(tree.first_child(current))
                current = tree.first_child(current)
        while True:
            parent = tree.parent[current]
            if parent == ROOT:
                return self._index(current)
            if tree.children(parent) > 1 and self._index(current) < index:
                return self._index(current)
            current = parent

    def _index(self, position: int) -> int:
        found = self.index_of(self.table.ids[position])
        return found if found is not None else 0

    # ------------------------------------------------------------------ filter and search

    def set_filter(self, mode: FilterMode) -> None:
        """Show rows of another filter (folds are reset, as in pi)."""
        self.filter_mode = mode
        self.folded.clear()
        self._base = self._matched = None
        self._reapply()

    def toggle_filter(self, mode: FilterMode) -> None:
        """pi's Ctrl+T/U/L/A: that filter, or back to ``default`` if it is on."""
        self.set_filter("default" if self.filter_mode == mode else mode)

    def cycle_filter(self, step: int = 1) -> None:
        """pi's Ctrl+O (forwards) / Shift+Ctrl+O (backwards)."""
        here = FILTER_MODES.index(self.filter_mode)
        self.set_filter(FILTER_MODES[(here + step) % len(FILTER_MODES)])

    def set_query(self, query: str) -> None:
        """Search (all tokens, case-insensitive); folds are reset."""
        self.query = query
        self.folded.clear()
        self._reapply()

    def _reapply(self) -> None:
        self._rows.clear()
        self._apply()

    # ------------------------------------------------------------------ sibling branches

    def path_branches(self) -> list[PathBranch]:
        """The branch points of the active path, root first (see
        :mod:`pitui.core.session.branch_points`)."""
        leaf = self.table.index.get(self.leaf_id) if self.leaf_id is not None else None
        if leaf is None:
            return []
        path = self.table.path_positions(leaf)
        starts = self._children.forks_on(path)
        if path and len(self._siblings(path[0])) > 1:  # several roots
            starts.insert(0, 0)
        return path_branches(self.table, path, self._siblings, starts)

    def branch_switches(self, role: str = "user") -> list[tuple[str, int, int]]:
        """``(entry id, i, n)`` per message of ``role`` on the path (``user_switches``)."""
        leaf = self.table.index.get(self.leaf_id) if self.leaf_id is not None else None
        path = self.table.path_positions(leaf) if leaf is not None else []
        return branch_points.message_switches(self.table, path, self.path_branches(), role)

    def _siblings(self, position: int) -> Sequence[int]:
        parent = self.table.parent_position(position)
        return self._roots if parent is None else self._children[parent]

    def sibling_leaf(self, entry_id: str, step: int) -> str | None:
        """The newest entry under the sibling ``step`` places from ``entry_id`` (wrapping):
        where switching to that branch puts the leaf. None without siblings."""
        position = self.table.index.get(entry_id)
        if position is None:
            return None
        kids = self._siblings(position)
        if len(kids) < 2:
            return None
        sibling = kids[(kids.index(position) + step) % len(kids)]
        return self.table.ids[newest_under(self._children.__getitem__, sibling)]

    # ------------------------------------------------------------------ live changes

    def sync(self, labels: Mapping[str, str], leaf_id: str | None) -> TreeChange:
        """Catch up with the table: new entries, a moved leaf, changed labels.

        Entries appended under the leaf (each becoming the new leaf) touch a few rows, a
        moved leaf its new path's subtree (:meth:`_move_leaf`); anything else rebuilds."""
        change = TreeChange()
        new_labels = dict(labels)
        relabelled = {
            k
            for k in self.labels.keys() | new_labels.keys()
            if self.labels.get(k) != new_labels.get(k)
        }
        self.labels = new_labels
        for key in relabelled:
            position = self.table.index.get(key)
            if position is not None:
                self._search.pop(position, None)
        if relabelled and (self.filter_mode == "labeled-only" or self.query):
            self.leaf_id = leaf_id
            self.rebuild()
            return TreeChange(reset=True)
        while self._seen < len(self.table):
            position = self._seen
            new_leaf = leaf_id if position == len(self.table) - 1 else self.table.ids[position]
            if not self._append_under_leaf(position, new_leaf, change):
                self.leaf_id = leaf_id
                self.rebuild()
                return TreeChange(reset=True)
        if leaf_id != self.leaf_id:
            moved_from, self.leaf_id = self.leaf_id, leaf_id
            if not self._move_leaf(moved_from):
                self.rebuild()
            return TreeChange(reset=True)
        for key in relabelled:
            index = self.index_of(key)
            if index is not None:
                self._rows.pop(self.visible[index], None)
                change.updated.append(index)
        for position in self._file_marks():
            index = self.index_of(self.table.ids[position])
            if index is not None and index not in change.updated:
                change.updated.append(index)
        return change

    def _move_leaf(self, old_leaf: str | None) -> bool:
        """The leaf moved in an unchanged tree (a sibling switch, a navigation): only the subtree
        of the old and new paths' last common entry changes (order, on-path marks, connectors,
        the arrow); reorder it in place. False (rebuild): a search, folds, a row hides or shows."""
        table, tree = self.table, self._tree
        old = table.index.get(old_leaf) if old_leaf is not None else None
        new = table.index.get(self.leaf_id) if self.leaf_id is not None else None
        grown = self._structure_len != len(table) or len(tree.shapes) > 4096  # (a rebuild
        if old is None or new is None or self.query or self.folded or grown:  # trims shapes)
            return False
        order = self._ordered()  # (with the old path, as the rows are now)
        path = table.path_positions(new)
        common = next((p for p in reversed(path) if p in self._active), None)
        # Only the two leaves can hide or show (a text-less reply shows while it is the
        # leaf): every other row keeps its side, in a new order. (None: another root.)
        sides = (tree.shown(old), tree.shown(new)) == (self._passes(old, []), self._passes(new, []))
        if common is None or not sides:
            return False
        old_row, old_active = self._leaf_row_position(), self._active
        self._active = active = PositionSet(path, len(table))  # (False: all rebuilt)
        start = order.index(common)
        block = self._children.depth_first([common], active)
        first_shown = next((p for p in order[start : start + len(block)] if tree.shown(p)), None)
        order[start : start + len(block)] = block
        shown = tree.shown_of(block)
        if first_shown is None or not tree.reorder(shown):
            return False
        at = self.visible.index(first_shown)  # no search, no folds: the filter's rows
        self.visible[at : at + len(shown)] = shown
        self._base, self._row_of, self._matched = list(self.visible), None, None
        tree.shapes.forget(block[1:])  # (the common entry's own row stays as it was)
        for position in (*block[1:], old_row):
            self._rows.pop(position, None)
        self._active_rows += active.count(shown) - old_active.count(shown)  # (path rows first)
        self._rows.pop(self._leaf_row_position(), None)
        return True

    def _append_under_leaf(self, position: int, new_leaf: str | None, change: TreeChange) -> bool:
        """Add the entry at ``position`` if it hangs under the leaf and becomes the leaf."""
        table = self.table
        parent = table.parent_position(position)
        old = table.index.get(self.leaf_id) if self.leaf_id is not None else None
        if (
            parent is None
            or parent != old
            or self._children.has(parent)
            or self.folded
            or new_leaf != table.ids[position]
        ):
            return False
        self._seen += 1
        self._children.append_entry()
        self._children.add(parent, position)
        self._structure_len = self._seen
        self._active.add(position)
        self._order = self._base = self._matched = None
        self._tree.grow(len(table))
        self.leaf_id = new_leaf
        query = self.query.lower().split()
        old_shown = self._tree.shown(parent)
        old_stays = old_shown and self._passes(parent, query)
        new_shown = self._passes(position, query)
        if old_shown and not old_stays:
            return self._replace_old_leaf(parent, position, new_shown, change)
        anchor = parent if old_shown else self._visible_ancestor(parent)
        if new_shown and (anchor < 0 or self._tree.children(anchor)):
            return False  # a new root, or the anchor branches now: connectors change
        if new_shown:
            self._insert_child(anchor, position, change)
        elif old_shown:
            self._touch(parent, change)
        return True

    def _visible_ancestor(self, position: int) -> int:
        current = self.table.parent_position(position)
        while current is not None and not self._tree.shown(current):
            current = self.table.parent_position(current)
        return -1 if current is None else current

    def _replace_old_leaf(
        self, old: int, position: int, new_shown: bool, change: TreeChange
    ) -> bool:
        """The old leaf (a text-less reply) hides now; the new entry takes its place."""
        if not new_shown:
            return False
        index = self._active_rows - 1
        self._tree.replace(old, position)
        self._rows.pop(old, None)
        self.visible[index] = position
        self._row_of = None
        change.updated.append(index)
        return True

    def _insert_child(self, anchor: int, position: int, change: TreeChange) -> None:
        tree = self._tree
        tree.link(anchor, position)
        tree.shapes[position] = child_shape(tree.shape(anchor), 1, True, tree.multiple_roots)
        index = self._active_rows
        self.visible.insert(index, position)
        self._active_rows += 1
        self._row_of = None
        change.inserted.append(index)
        # The anchor is the row above (the last of the active path): its fold mark and,
        # if it was the leaf, its arrow change.
        self._rows.pop(anchor, None)
        change.updated.append(index - 1)

    def _touch(self, position: int, change: TreeChange) -> None:
        self._rows.pop(position, None)
        index = self.index_of(self.table.ids[position])
        if index is not None:
            change.updated.append(index)


def render_rows(view: TreeView, *, footer: bool = True, ids: bool = False) -> str:
    """The rows as text, one per line, as ``pitui session tree`` prints them
    (``ids``: each row starts with its entry id)."""
    lines = [view.row(i).line() for i in range(len(view))]
    if ids:
        lines = [f"{view.row(i).entry_id:<8} {line}" for i, line in enumerate(lines)]
    if footer:
        lines.append(view.footer(view.nearest_row(view.leaf_id)))
    return "".join(line + "\n" for line in lines)
