"""Where context files (``AGENTS.md``, ``CLAUDE.md``) may be: names and folders only.

Apart from :mod:`pitui.core.system_prompt`, which reads them, so that the first-run check
of the TUI (:mod:`pitui.ui.live.first_run`) can ask where they may be without loading the
prompt builder and the skill machinery it imports.
"""

from __future__ import annotations

import os
from pathlib import Path

from pitui import paths

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


def context_file_candidates(cwd: Path) -> list[list[Path]]:
    """Where context files may be, one list of names per directory, in order: the pitui
    home, then each directory from the root down to ``cwd`` (no filesystem access)."""
    absolute = Path(os.path.abspath(cwd))  # string arithmetic only: fine on the event loop
    directories = [paths.home(), *reversed(absolute.parents), absolute]
    return [[directory / name for name in CONTEXT_FILE_NAMES] for directory in directories]
