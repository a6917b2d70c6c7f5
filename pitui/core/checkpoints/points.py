"""Which checkpoint each point of the session tree stands for.

A checkpoint entry (``custom``, ``customType: "pitui.checkpoint"``) records the project's
files when it was appended. A checkpoint is taken before the first tool of a turn that
may change files and when a run ends, so between two checkpoints of a path only the tools
after the first one changed anything. Hence the files *at* an entry (the entry being the
leaf) are those of the nearest checkpoint reached from it, backwards or forwards, without
crossing a tool result that may have changed files. The files *before a user message*
are found forwards from the message first: its turn's first checkpoint was taken after
it was sent and before any tool ran, so it also holds what the user changed by hand.

Entries are read raw (no validation), so asking costs little on a long session; and a
session without any checkpoint (recorded before checkpoints were on, or by pi) answers at
once instead of walking its whole path (every switch of branch asks twice).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pitui.core.session.custom_types import CHECKPOINT_TYPE
from pitui.core.session.table import EntryTable
from pitui.core.session.tree import child_positions
from pitui.core.tools import READ_ONLY_TOOLS

__all__ = ["CHECKPOINT_TYPE", "Point", "PointFinder", "latest_on_path"]


class Point(NamedTuple):
    """The checkpoint an entry's files are those of."""

    entry_id: str
    """The checkpoint entry."""
    tree: str


def checkpoint_data(table: EntryTable, position: int) -> dict[str, Any] | None:
    """The data of the checkpoint entry at ``position`` (None for any other entry)."""
    if table.types[position] != "custom":
        return None
    raw = table.raw(position)
    if raw.get("customType") != CHECKPOINT_TYPE:
        return None
    data = raw.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("tree"), str):
        return None
    return data


def _point(table: EntryTable, position: int) -> Point | None:
    data = checkpoint_data(table, position)
    return None if data is None else Point(table.ids[position], str(data["tree"]))


def may_change_files(table: EntryTable, position: int) -> bool:
    """True for the result of a tool that may have changed files, and for a ``!`` command."""
    role = table.roles[position]
    if role == "bashExecution":
        return True
    if role != "toolResult":
        return False
    message = table.raw(position).get("message")
    name = message.get("toolName") if isinstance(message, dict) else None
    return name not in READ_ONLY_TOOLS


def latest_on_path(table: EntryTable, leaf: str | None) -> Point | None:
    """The last checkpoint on the path to ``leaf`` (whatever came after it)."""
    position = table.index.get(leaf) if leaf is not None else None
    ppos = table.parent_positions()
    steps = 0
    while position is not None and position >= 0 and steps <= len(ppos):
        point = _point(table, position)
        if point is not None:
            return point
        position, steps = ppos[position], steps + 1
    return None


def _backward(table: EntryTable, position: int) -> Point | None:
    ppos = table.parent_positions()
    steps, current = 0, position
    while current >= 0 and steps <= len(ppos):
        point = _point(table, current)
        if point is not None:
            return point
        if may_change_files(table, current):
            return None
        current, steps = ppos[current], steps + 1
    return None


def _forward(table: EntryTable, position: int, children: list[list[int]]) -> Point | None:
    """Along the oldest child (the continuation that was written first)."""
    current: int | None = position
    steps = 0
    while current is not None and steps <= len(children):
        point = _point(table, current)
        if point is not None:
            return point
        if current != position and may_change_files(table, current):
            return None
        kids = children[current]
        current, steps = (kids[0] if kids else None), steps + 1
    return None


class PointFinder:
    """Answers "which files" for entries of one table (the child lists built once)."""

    def __init__(self, table: EntryTable) -> None:
        self.table = table
        self._children: list[list[int]] | None = None
        self._size = -1
        self._checkpoints = 0
        self._scanned = 0
        """Checkpoint entries among the first ``_scanned`` entries (only ever appended)."""

    def has_checkpoints(self) -> bool:
        """Whether the table holds any checkpoint entry (new entries are scanned once)."""
        table = self.table
        if self._scanned > len(table):  # a table is only appended to; be safe anyway
            self._checkpoints = self._scanned = 0
        types = table.types
        for position in range(self._scanned, len(table)):
            if types[position] == "custom" and checkpoint_data(table, position) is not None:
                self._checkpoints += 1
        self._scanned = len(table)
        return self._checkpoints > 0

    def latest(self, leaf: str | None) -> Point | None:
        """The last checkpoint on the path to ``leaf`` (whatever came after it)."""
        return latest_on_path(self.table, leaf) if self.has_checkpoints() else None

    def _kids(self) -> list[list[int]]:
        if self._children is None or self._size != len(self.table):
            self._children = child_positions(self.table)[1]
            self._size = len(self.table)
        return self._children

    def at(self, entry_id: str) -> Point | None:
        """The files when ``entry_id`` was the leaf."""
        position = self.table.index.get(entry_id)
        if position is None or not self.has_checkpoints():
            return None
        return _backward(self.table, position) or _forward(self.table, position, self._kids())

    def before(self, entry_id: str) -> Point | None:
        """The files just before ``entry_id`` was added: for a user message, as it was sent."""
        position = self.table.index.get(entry_id)
        if position is None or not self.has_checkpoints():
            return None
        found = _forward(self.table, position, self._kids())
        if found is not None and found.entry_id != entry_id:
            return found
        parent = self.table.parent_position(position)
        return None if parent is None else self.at(self.table.ids[parent])

    def for_target(self, entry_id: str) -> Point | None:
        """The files a move to ``entry_id`` brings: before a user message (navigating to
        it re-edits the message), at any other entry."""
        position = self.table.index.get(entry_id)
        if position is None:
            return None
        if self.table.roles[position] == "user":
            return self.before(entry_id)
        return self.at(entry_id)
