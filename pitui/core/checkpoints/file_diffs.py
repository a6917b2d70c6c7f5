"""The per-file differences of a comparison, for a preview or ``session files --diff``.

Each text file gets pi's display diff (the one the edit tool's result shows, so the UI's
diff renderer draws it) and a standard unified patch; binary files and files past the
preview's size say so instead of being diffed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pitui.core.checkpoints.engine import CheckpointEngine
from pitui.core.checkpoints.trees import SYMLINK_MODE, ZERO_ID, Change
from pitui.core.tools.edit_diff import generate_diff_string, generate_unified_patch

MAX_DIFF_BYTES = 512 * 1024
"""A side larger than this is not diffed line by line (the preview stays quick)."""


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file that a restore would change, working tree → checkpoint."""

    path: str
    kind: str
    """``added`` (the restore creates it), ``deleted`` (removes it) or ``modified``."""
    display: str
    """pi's ``+n``/``-n`` display diff (empty for binary or too large)."""
    patch: str
    """A unified patch (``---``/``+++``/``@@``), or a one-line note."""
    binary: bool = False

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON (``--json``)."""
        return {"path": self.path, "kind": self.kind, "binary": self.binary, "patch": self.patch}


def _text(content: bytes | None, mode: str) -> str | None:
    """The file as text, or None for binary content."""
    if content is None:
        return ""
    if mode == SYMLINK_MODE:
        return f"symlink → {content.decode('utf-8', 'replace')}\n"
    if b"\0" in content[:8192]:
        return None
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def file_diffs(engine: CheckpointEngine, changes: list[Change]) -> list[FileDiff]:
    """The diff of every change (contents read in one go)."""
    blobs = await engine.contents([b for c in changes for b in (c.old_blob, c.new_blob)])
    diffs: list[FileDiff] = []
    for change in changes:
        old = blobs.get(change.old_blob) if change.old_blob != ZERO_ID else None
        new = blobs.get(change.new_blob) if change.new_blob != ZERO_ID else None
        too_big = max(len(old or b""), len(new or b"")) > MAX_DIFF_BYTES
        old_text, new_text = _text(old, change.old_mode), _text(new, change.new_mode)
        if too_big or old_text is None or new_text is None:
            note = "too large to show" if too_big else "binary file"
            diffs.append(FileDiff(change.path, change.kind, "", f"{change.path}: {note}\n", True))
            continue
        display, _ = generate_diff_string(old_text, new_text)
        patch = generate_unified_patch(change.path, old_text, new_text)
        diffs.append(FileDiff(change.path, change.kind, display, patch))
    return diffs
