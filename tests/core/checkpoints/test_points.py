"""Which checkpoint a point stands for, on sessions with and without checkpoints: one
without any answers at once (a switch of branch asks twice), and a checkpoint appended
later is found."""

from __future__ import annotations

import json

from pitui.core.checkpoints.points import CHECKPOINT_TYPE, PointFinder
from pitui.core.session.table import EntryTable


def _message(
    table: EntryTable, entry_id: str, parent: str | None, role: str, tool: str = ""
) -> None:
    message: dict[str, object] = {"role": role, "content": [], "timestamp": 1}
    if tool:
        message |= {"toolCallId": "c", "toolName": tool, "isError": False}
    raw = {"type": "message", "id": entry_id, "parentId": parent, "message": message}
    table.add_raw(json.dumps(raw).encode(), entry_id, parent, "message", role)


def _checkpoint(table: EntryTable, entry_id: str, parent: str | None, tree: str) -> None:
    raw = {
        "type": "custom",
        "id": entry_id,
        "parentId": parent,
        "customType": CHECKPOINT_TYPE,
        "data": {"tree": tree},
    }
    table.add_raw(json.dumps(raw).encode(), entry_id, parent, "custom")


class _CountingTable(EntryTable):
    """Counts the entries read as JSON (what a walk along the path costs)."""

    __slots__ = ("reads",)

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def raw(self, position: int) -> dict[str, object]:
        self.reads += 1
        return super().raw(position)


def test_a_session_without_checkpoints_answers_without_walking_its_path() -> None:
    table = _CountingTable()
    parent = "root"
    _message(table, parent, None, "user")
    for k in range(400):  # read-only tools only: nothing stops a walk before the root
        _message(table, f"u{k}", parent, "user")  # a string: mypy knows the leaf's type
        _message(table, f"r{k}", f"u{k}", "toolResult", "read")
        parent = f"r{k}"
    finder = PointFinder(table)
    assert finder.at(parent) is None and finder.for_target("u200") is None
    assert finder.latest(parent) is None
    assert table.reads == 0
    _checkpoint(table, "cp", parent, "tree-1")  # recorded later: seen by the next question
    _message(table, "u-last", "cp", "user")
    point = finder.at("u-last")
    assert point is not None and (point.entry_id, point.tree) == ("cp", "tree-1")
    latest = finder.latest("u-last")
    assert latest is not None and latest.entry_id == "cp"
