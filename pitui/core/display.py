"""How paths are shown to the user (tool headers, tree rows, panels, the CLI)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=4)
def _home(env_home: str | None) -> str:
    return str(Path.home())


def shorten_path(path: str) -> str:
    """Replace the home directory prefix with ``~`` (as pi shows paths)."""
    # Path.home() costs ~25 µs; a tree of 100k rows asks once per tool row. Keyed by
    # $HOME so a changed home is seen.
    home = _home(os.environ.get("HOME"))
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path
