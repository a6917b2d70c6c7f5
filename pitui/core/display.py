"""How paths are shown to the user (tool headers, tree rows, panels, the CLI)."""

from __future__ import annotations

import os
from pathlib import Path


def shorten_path(path: str) -> str:
    """Replace the home directory prefix with ``~`` (as pi shows paths)."""
    home = str(Path.home())
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path
