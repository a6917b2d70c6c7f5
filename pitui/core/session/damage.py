"""One line telling the user what opening a damaged session file skipped or cut.

Loading never fails on bad lines or broken links (PI_SPEC §5.6: they are skipped, and
pitui cuts parent cycles); it reports them in a :class:`LoadReport`. This turns the
report into the sentence every mode shows when such a file is opened to be continued
(print mode on stderr, the TUI as a notice), so a context that shrank from 8 messages to
1 never does so silently. Crash residue that loses nothing (a torn last line) is not
damage: the file is simply continued.
"""

from __future__ import annotations

from pathlib import Path

from pitui.core.session.load import LoadReport
from pitui.core.session.table import EntryTable


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def damage_notice(
    report: LoadReport, table: EntryTable, leaf: str | None, path: Path | None
) -> str | None:
    """What was skipped or cut, where the current path is cut, and what to run; or None.

    Entries are validated lazily: call this after building a context, so invalid entries
    on the path are counted too.
    """
    parts: list[str] = []
    if report.bad_lines:
        parts.append(_count(len(report.bad_lines), "line skipped", "lines skipped"))
    if report.duplicate_ids:
        parts.append(_count(len(report.duplicate_ids), "duplicate entry id", "duplicate entry ids"))
    if report.missing_parents:
        parts.append(
            _count(
                len(report.missing_parents),
                "entry whose parent is missing",
                "entries whose parent is missing",
            )
        )
    if report.cycles:
        parts.append(_count(len(report.cycles), "parent cycle cut", "parent cycles cut"))
    if table.invalid:  # found while building a context: those entries were left out
        parts.append(
            _count(
                len(table.invalid),
                "entry that fits no entry type",
                "entries that fit no entry type",
            )
            + " (ignored)"
        )
    if not parts:
        return None
    text = ", ".join(parts)
    cut = _cut_on_path(report, table, leaf)
    if cut is not None:
        text += (
            f"; the current path is cut at entry {cut} "
            "(entries before it are not in the model's context)"
        )
    where = str(path) if path is not None else "FILE"
    return f"Session file damaged: {text}; details: `pitui session check {where}`"


def _cut_on_path(report: LoadReport, table: EntryTable, leaf: str | None) -> str | None:
    """The root of the leaf's path, when loading made it a root by cutting its link."""
    position = table.index.get(leaf) if leaf is not None else None
    if position is None:
        return None
    root = table.path_positions(position)[0]
    root_id = table.ids[root]
    cut = set(report.missing_parents) | set(report.cycles)
    return root_id if root_id in cut else None
