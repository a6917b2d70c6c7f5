"""The entry tree: children, roots, paths and labels (PI_SPEC §5.4, §5.9)."""

from __future__ import annotations

import msgspec

from pitui.core.session.entries import SessionEntry
from pitui.core.session.table import EntryTable


class TreeNode(msgspec.Struct):
    """One entry with its children (sorted by timestamp, oldest first) and resolved label."""

    entry: SessionEntry
    children: list[TreeNode] = msgspec.field(default_factory=list)
    label: str | None = None


def child_positions(table: EntryTable) -> tuple[list[int], list[list[int]]]:
    """(root positions, children positions per position), children in timestamp order.

    Roots are entries without an effective parent (pi: ``parentId`` null, equal to the
    entry's own id, or missing from the file); cycles were cut when the file was loaded.
    """
    roots: list[int] = []
    children: list[list[int]] = [[] for _ in range(len(table))]
    for position in range(len(table)):
        parent = table.parent_position(position)
        if parent is None or parent == position:
            roots.append(position)
        else:
            children[parent].append(position)

    def stamp(position: int) -> str:
        value = table.raw(position).get("timestamp")
        return value if isinstance(value, str) else ""

    for kids in children:
        if len(kids) > 1:
            kids.sort(key=stamp)  # same-format ISO strings sort like their times
    return roots, children


def build_tree(table: EntryTable, labels: dict[str, str]) -> list[TreeNode]:
    """The whole session as a forest of :class:`TreeNode` (iterative: paths can be 100k deep)."""
    roots, children = child_positions(table)
    nodes = [
        TreeNode(entry=table.entry(i), label=labels.get(table.ids[i])) for i in range(len(table))
    ]
    for position, kids in enumerate(children):
        nodes[position].children = [nodes[k] for k in kids]
    return [nodes[r] for r in roots]


def leaf_positions(table: EntryTable) -> list[int]:
    """Positions of entries without children (the ends of all paths), in file order."""
    has_child = bytearray(len(table))
    for position in range(len(table)):
        parent = table.parent_position(position)
        if parent is not None and parent != position:
            has_child[parent] = 1
    return [p for p in range(len(table)) if not has_child[p]]
