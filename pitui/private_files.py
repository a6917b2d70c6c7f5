"""Private by default: what pitui writes about you is readable by you alone.

Session files hold code, tool output and anything a command printed; ``auth.json`` holds
keys. Files pitui writes in its home and every session file are mode 0600, the pitui
home and every session folder 0700. Existing files and folders with wider modes are
tightened when pitui next writes them. All functions here block (a few syscalls): call
them through ``asyncio.to_thread`` on the event loop.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pitui import paths

FILE_MODE = 0o600
DIR_MODE = 0o700


def tighten(path: Path | int, mode: int) -> None:
    """Take group and other permissions off ``path`` (or an open fd) if it has any."""
    current = os.stat(path).st_mode
    if not stat.S_IMODE(current) & 0o077:
        return
    if isinstance(path, Path):
        os.chmod(path, mode)
    else:
        os.fchmod(path, mode)


def _in_home(path: Path) -> bool:
    home = paths.home()
    return path == home or home in path.parents


def private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) and make it 0700.

    Inside the pitui home, every folder from the home down to ``path`` is made 0700 too;
    outside it (a ``--session-dir``), only ``path`` itself.
    """
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    tighten(path, DIR_MODE)
    if not _in_home(path):
        return
    for parent in path.parents:
        if not _in_home(parent):
            break
        tighten(parent, DIR_MODE)


def prepare_parent(path: Path) -> None:
    """Create the folder of a file about to be written: private inside the pitui home."""
    if _in_home(path.parent):
        private_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with mode 0600 (an existing file is tightened); returns the fd."""
    fd = os.open(path, flags | os.O_CLOEXEC, FILE_MODE)
    try:
        tighten(fd, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


def read_own_file(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is the user's own and nobody else may write it (a cache
    pitui reads back and trusts); None when it is missing, unreadable, or not private."""
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o022:
                return None  # others could have written it
            return handle.read()
    except OSError:
        return None


def write_private(path: Path, text: str) -> None:
    """Write ``text`` atomically to ``path`` (temp file, fsync, rename) with mode 0600."""
    write_private_bytes(path, text.encode("utf-8"))


def write_private_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` atomically to ``path`` (temp file, fsync, rename) with mode 0600."""
    prepare_parent(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mkstemp: 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
