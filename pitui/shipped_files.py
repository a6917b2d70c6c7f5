"""Files the package ships beside its modules (the start-up seeds), read on the modules' terms.

A seed holds code, like a ``.pyc``, so it is used only as long as it is as safe as the
modules beside it: a file anyone may write is ignored. A group-writable install (umask
002) is as its modules are, so only the "other" write bit disqualifies a file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_shipped(path: Path) -> bytes | None:
    """The file's bytes, or None when it is missing, unreadable or writable by anyone."""
    try:
        with open(path, "rb") as handle:
            if stat.S_IMODE(os.fstat(handle.fileno()).st_mode) & 0o002:
                return None
            return handle.read()
    except OSError:
        return None
