"""Files that cannot be written or read, for real (tests run as root on some machines).

Root ignores permission bits, so a read-only file is made immutable (``chattr +i``)
there; an unreadable one is ``/proc/self/mem``, whose reads fail with EIO.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

IS_ROOT = os.geteuid() == 0


@contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """``path`` cannot be written (or removed) inside the block."""
    if not IS_ROOT:
        mode = path.stat().st_mode
        path.chmod(0o444)
        try:
            yield path
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a file read-only")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"chattr +i failed: {made.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def unreadable(tmp_path: Path) -> Path:
    """A regular file whose reads fail."""
    if IS_ROOT:
        return Path("/proc/self/mem")
    path = tmp_path / "unreadable.jsonl"
    path.write_text("{}\n")
    path.chmod(0)
    return path
