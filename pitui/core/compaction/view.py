"""A root→leaf path of a session table, read without validating entries.

Compaction and branch summaries look at most entries of a path only for their type and
role, and at a few (the newest messages, summaries) for their content; this view gives
both cheaply whether the table holds an entry as an object or as its file line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pitui.agent.messages import AgentMessage
from pitui.core.session.context import (
    branch_summary_message,
    compaction_summary_message,
    entry_message,
)
from pitui.core.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    SessionEntry,
)
from pitui.core.session.table import EntryTable

_CUT_ROLES = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
USER_LIKE_ENTRIES = frozenset({"branch_summary", "custom_message"})
"""Entry types that stand for a user-role message (a turn can start there)."""


def entry_to_message(entry: SessionEntry) -> AgentMessage | None:
    """The message an entry contributes to a summary (pi's ``getMessageFromEntry``).

    As the context's, except that compactions count and empty branch summaries too.
    """
    if isinstance(entry, CompactionEntry):
        return compaction_summary_message(entry)
    if isinstance(entry, BranchSummaryEntry):
        return branch_summary_message(entry)
    return entry_message(entry)


class PathView:
    """One root→leaf path of a session table, read without validating entries.

    The table may hold an entry as its file line (parsed on each ``raw`` call); the view
    parses each entry at most once and asks the table's role column when there is one.
    """

    __slots__ = ("_parsed", "kinds", "positions", "roles", "runs", "table")

    def __init__(
        self, table: EntryTable, positions: Sequence[int], runs: list[range] | None = None
    ) -> None:
        """A view of ``table`` at ``positions``.

        Args:
            table: The session table.
            positions: Table positions of the path's entries, in path order.
            runs: The same positions as ascending runs of consecutive table positions, if
                known (lets the view gather columns by slicing).
        """
        self.table = table
        self.positions = list(positions)
        if runs is None and isinstance(positions, range) and positions.step == 1:
            runs = [positions]
        self.runs = runs
        """``positions`` as runs of consecutive table positions (None: not known)."""
        if runs is not None:  # gathered by slicing, at C speed
            self.kinds = []
            for run in runs:
                self.kinds.extend(table.types[run.start : run.stop])
        else:
            self.kinds = list(map(table.types.__getitem__, self.positions))
        self._parsed: dict[int, dict[str, Any]] = {}
        roles = getattr(table, "roles", None)
        self.roles: list[str | None] | None = roles if isinstance(roles, list) else None
        """The table's message-role column (by table position), when it has one."""

    def __len__(self) -> int:
        return len(self.positions)

    def raw(self, index: int) -> dict[str, Any]:
        """The JSON object of the entry at path index ``index``."""
        parsed = self._parsed.get(index)
        if parsed is None:
            parsed = self._parsed[index] = self.table.raw(self.positions[index])
        return parsed

    def message(self, index: int) -> dict[str, Any] | None:
        """The raw message of a ``message`` entry (None for other entries)."""
        if self.kinds[index] != "message":
            return None
        message = self.raw(index).get("message")
        return message if isinstance(message, dict) else None

    def role(self, index: int) -> object:
        """Role of a ``message`` entry's message (None for other entries)."""
        if self.roles is not None:
            return self.roles[self.positions[index]] if self.kinds[index] == "message" else None
        message = self.message(index)
        return None if message is None else message.get("role")

    def table_runs(self, start: int, end: int) -> list[range] | None:
        """Table positions of path indices ``start``..``end - 1`` as ascending runs of
        consecutive positions, in path order (None when the view's runs are not known)."""
        if self.runs is None:
            return None
        out: list[range] = []
        offset = 0  # path index of the current run's first entry
        for run in self.runs:
            length = len(run)
            low, high = max(start, offset), min(end, offset + length)
            if low < high:
                out.append(range(run.start + low - offset, run.start + high - offset))
            offset += length
            if offset >= end:
                break
        return out

    def entry_id(self, index: int) -> str:
        """Id of the entry at ``index``."""
        return self.table.ids[self.positions[index]]

    def is_cut_point(self, index: int) -> bool:
        """Whether the kept part may start here (never at a tool result)."""
        kind = self.kinds[index]
        return kind in USER_LIKE_ENTRIES or (kind == "message" and self.role(index) in _CUT_ROLES)

    def messages(self, indices: Sequence[int]) -> list[AgentMessage]:
        """Typed messages of the entries at ``indices`` (validated now)."""
        out: list[AgentMessage] = []
        for index in indices:
            message = entry_to_message(self.table.entry(self.positions[index]))
            if message is not None:
                out.append(message)
        return out


def _run_start(parents: list[str | None], ids: list[str], end: int) -> int:
    """Smallest ``s`` ≤ ``end`` such that every entry in (s, end] is the child of the one
    before it in the file. Found by galloping with slice comparisons, which run in C."""
    low, step = end, 1
    while low > 0:
        probe = max(0, low - step)
        if parents[probe + 1 : low + 1] != ids[probe:low]:
            break
        low, step = probe, step * 2
    else:
        return 0
    # The run starts somewhere in (probe, low]: binary search the boundary.
    lo, hi = probe + 1, low
    while lo < hi:
        mid = (lo + hi) // 2
        if parents[mid + 1 : low + 1] == ids[mid:low]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _path_runs(table: EntryTable, leaf: int) -> list[range] | None:
    """Root-first runs of consecutive positions making the path up to ``leaf``; None when
    the quick walk does not apply (then :meth:`EntryTable.path_positions` does).

    A session is mostly runs where each entry's parent is the line before it; each run is
    found with a few slice comparisons instead of one dictionary lookup per entry.
    """
    index, parents, ids = table.index, table.parents, table.ids
    if len(index) != len(ids):  # duplicate ids: "parent = previous line" may not hold
        return None
    runs: list[range] = []
    current: int | None = leaf
    remaining = len(ids)
    while current is not None and remaining > 0:
        start = _run_start(parents, ids, current)
        runs.append(range(start, current + 1))
        remaining -= current + 1 - start
        parent = parents[start]
        following = None if parent is None else index.get(parent)
        if following is not None and following >= start:
            return None  # a parent later in the file: walk plainly
        current = following
    runs.reverse()
    return runs


def path_view(table: EntryTable, leaf_id: str | None) -> PathView:
    """The path from the root to ``leaf_id`` (empty if the id is unknown or None)."""
    position = None if leaf_id is None else table.index.get(leaf_id)
    if position is None:
        return PathView(table, [])
    runs = _path_runs(table, position)
    if runs is None:
        return PathView(table, table.path_positions(position))
    positions: list[int] = []
    for run in runs:
        positions.extend(run)
    return PathView(table, positions, runs)
