"""The branch points of the active path: where the conversation's ``‹ 2/3 ›`` switch sits
and what Alt+← / Alt+→ switch between.

A branch point is an entry with several children (or a file with several roots), whatever
the kinds of the entry and of its children: a user message answered twice (a prompt
edited from the tree), an assistant reply or a tool result followed both by the model's
next message and by a prompt the user sent from there, a compaction, a branch summary, a
label or a model change continued two ways. Its branches are its children in file order;
the path goes through one of them. Both directions are the same relation: from any
branch of a point, the others are its siblings.

The switch is shown on the branch's first message, past the entries the conversation
does not show (a model or thinking-level change, a label, an extension's ``custom``
entry, a session name), as happens when the user picks a model before sending the new
version: a user message, or an assistant reply (the old side of a branch made under a
tool result, marked on the reply's first text block; one without text has no marker).
A branch that starts with anything else has no marker, but Alt+←/→ reach it too: with
no message chosen they switch at the deepest branch point of the path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pitui.core.session.table import EntryTable

SILENT_TYPES = frozenset(
    {"label", "custom", "model_change", "thinking_level_change", "session_info"}
)
"""Entries the conversation does not show: a branch's marker goes past them."""


@dataclass(frozen=True, slots=True)
class PathBranch:
    """The active path at one branch point."""

    child: str
    """The path's entry right under the point: the branch a switch leaves."""
    index: int
    """Its place among the point's children, from 1 (file order)."""
    count: int
    """How many children the point has (at least 2)."""
    user: str | None
    """The user message that starts the branch (the marker's message), if it starts
    with one."""
    assistant: str | None = None
    """The assistant reply that starts the branch (the marker's message then), if it
    starts with one."""


def path_branches(
    table: EntryTable,
    path: Sequence[int],
    siblings: Callable[[int], Sequence[int]],
    starts: Sequence[int],
) -> list[PathBranch]:
    """Every branch point of ``path`` (positions, root first), root first.

    ``siblings(position)`` is the position's parent's children (the roots for a root);
    ``starts`` the indexes of ``path`` whose entry has siblings, ascending (asked of the
    tree at once: a 10,000-entry path has a few dozen).
    """
    found = []
    for number, k in enumerate(starts):
        position = path[k]
        kids = siblings(position)
        end = starts[number + 1] if number + 1 < len(starts) else len(path)
        first, role = _first_shown(table, path[k:end])
        found.append(
            PathBranch(
                table.ids[position],
                kids.index(position) + 1,
                len(kids),
                first if role == "user" else None,
                first if role == "assistant" else None,
            )
        )
    return found


def _first_shown(table: EntryTable, branch: Sequence[int]) -> tuple[str | None, str | None]:
    """The branch's first shown entry and its message role (the branch stops at the next
    branch point: a marker belongs to one point)."""
    for position in branch:
        if table.types[position] in SILENT_TYPES:
            continue
        return table.ids[position], table.roles[position]
    return None, None


def user_switches(
    table: EntryTable, path: Sequence[int], branches: Sequence[PathBranch]
) -> list[tuple[str, int, int]]:
    """``(entry id, i, n)`` for each user message of ``path``, root first: the i-th of
    the n branches of a point when it starts one (``‹ i/n ›``), else ``(1, 1)``."""
    return message_switches(table, path, branches, "user")


def message_switches(
    table: EntryTable, path: Sequence[int], branches: Sequence[PathBranch], role: str
) -> list[tuple[str, int, int]]:
    """:func:`user_switches` for the messages of ``role`` (``user`` or ``assistant``)."""
    starts = (b.user if role == "user" else b.assistant for b in branches)
    marked = {first: (b.index, b.count) for b, first in zip(branches, starts, strict=True) if first}
    roles, ids = table.roles, table.ids
    return [(ids[p], *marked.get(ids[p], (1, 1))) for p in path if roles[p] == role]


def newest_under(children: Callable[[int], Sequence[int]], position: int) -> int:
    """The newest entry of the subtree at ``position`` (one of its leaves): where
    switching to that branch puts the leaf."""
    newest, stack = position, [position]
    while stack:
        current = stack.pop()
        newest = max(newest, current)
        stack.extend(children(current))
    return newest
