"""Real projects in temp dirs for the checkpoint tests: a git repository of the user's
own, a hash of its ``.git`` to prove it is never written, and the demo model at full
speed."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo model answers at once (import it into a test module: autouse there)."""
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def make_project(root: Path, files: dict[str, str] | None = None) -> Path:
    """A folder with ``files`` committed in a git repository of its own."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {"app.py": "port = 9090\n", "lib/util.py": "x = 1\n"}).items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return root


def hash_tree(root: Path) -> str:
    """One digest of every path, mode and content under ``root`` (symlinks as links)."""
    digest = hashlib.sha256()
    for folder, dirs, names in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            info = path.lstat()
            digest.update(f"{path.relative_to(root)}\0{info.st_mode}\0".encode())
            if path.is_symlink():
                digest.update(os.readlink(path).encode())
            else:
                digest.update(path.read_bytes())
    return digest.hexdigest()
