"""What an edit or write would change, computed before the user approves it.

The diff is the edit tool's own (pi's numbered display diff from
:mod:`pitui.core.tools.edit_diff`) over the file as it is now, so the modal shows what the
tool card will show afterwards. Reading the file happens off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_PREVIEW_BYTES = 2_000_000


@dataclass(frozen=True, slots=True)
class ApprovalPreview:
    """A diff to show, or why there is none."""

    diff: str = ""
    problem: str = ""
    """E.g. the edit's old text is not in the file (the tool would fail)."""
    new_file: bool = False


def _edits(args: Mapping[str, Any]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    edits = args.get("edits")
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, Mapping):
                old, new = edit.get("oldText"), edit.get("newText")
                if isinstance(old, str) and isinstance(new, str):
                    pairs.append((old, new))
    old, new = args.get("oldText"), args.get("newText")
    if isinstance(old, str) and isinstance(new, str):
        pairs.append((old, new))
    return pairs


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_PREVIEW_BYTES:
            raise OSError("too large to preview")
        return path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return None


async def preview_change(
    tool_name: str, args: Mapping[str, Any], cwd: Path
) -> ApprovalPreview | None:
    """The diff an ``edit`` / ``write`` call would make; None for other tools."""
    if tool_name not in ("edit", "write") or not isinstance(args.get("path"), str):
        return None
    from pitui.agent.tool import ToolError
    from pitui.core.tools.edit_diff import (
        Edit,
        apply_edits,
        generate_diff_string,
        normalize_to_lf,
        strip_bom,
    )
    from pitui.core.tools.path_utils import resolve_to_cwd

    shown = str(args["path"])
    try:
        current = await asyncio.to_thread(_read, Path(resolve_to_cwd(shown, cwd)))
    except OSError as exc:
        return ApprovalPreview(problem=f"Cannot read {shown}: {exc.strerror or exc}")
    if tool_name == "write":
        content = args.get("content")
        new = normalize_to_lf(content) if isinstance(content, str) else ""
        old = normalize_to_lf(strip_bom(current)[1]) if current is not None else ""
        diff, _ = generate_diff_string(old, new)
        return ApprovalPreview(diff=diff, new_file=current is None)
    if current is None:
        return ApprovalPreview(problem=f"File not found: {shown}")
    edits = [Edit(old, new) for old, new in _edits(args)]
    if not edits:
        return ApprovalPreview(problem="The call has no replacement.")
    try:
        base, new = apply_edits(normalize_to_lf(strip_bom(current)[1]), edits, shown)
    except ToolError as exc:
        return ApprovalPreview(problem=str(exc))
    diff, _ = generate_diff_string(base, new)
    return ApprovalPreview(diff=diff)
