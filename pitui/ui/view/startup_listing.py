"""What the first screen says is loaded, as pi's start-up listing does (plain data).

Context files (``AGENTS.md``), skills, prompt templates, what was skipped for want of
project trust, and the keys to start with. Shown once, gone after the first prompt;
``quietStartup: true`` hides it (pi's ``"header"`` keeps only the keys line).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pitui.core.resources.loader import LoadedResources

STARTER_KEYS = "/ commands · Ctrl+P palette · Ctrl+B branches · @ attach a file · Ctrl+G editor"


def _shown(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        home = str(Path.home())
        text = str(path)
        return "~" + text[len(home) :] if text.startswith(home + os.sep) else text


def _names(items: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def keys_line() -> str:
    """The listing's last line: the keys to start with."""
    return f"Keys      {STARTER_KEYS}"


def startup_lines(
    cwd: Path,
    context_files: Sequence[Path],
    resources: LoadedResources,
    quiet: bool | str = False,
) -> list[str]:
    """The listing's lines (none when ``quiet`` is true)."""
    if quiet is True:
        return []
    keys = keys_line()
    if quiet == "header":
        return [keys]
    lines: list[str] = []
    if context_files:
        lines.append(f"Context   {_names([_shown(p, cwd) for p in context_files])}")
    if resources.skills:
        lines.append(f"Skills    {_names([s.name for s in resources.skills])}")
    if resources.templates:
        lines.append(f"Prompts   {_names(['/' + t.name for t in resources.templates])}")
    if resources.skipped:
        count = len(resources.skipped)
        noun = "file" if count == 1 else "files"
        lines.append(f"Skipped   {count} project {noun} (not trusted yet)")
    if resources.diagnostics:
        lines.append(f"Warnings  {len(resources.diagnostics)} (see the notices)")
    lines.append(keys)
    return lines
