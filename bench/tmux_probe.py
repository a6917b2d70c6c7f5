"""tmux and /proc helpers shared by the benchmarks that time pitui in a real terminal."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path


def tmux(*args: str) -> str:
    """Run a tmux command and return its output, retrying a failure a few times."""
    for attempt in range(5):
        done = subprocess.run(["tmux", *args], check=False, capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout
        time.sleep(0.2 * (attempt + 1))  # e.g. the server of the last session still exiting
    raise RuntimeError(f"tmux {' '.join(args[:1])} failed: {done.stderr.strip()}")


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (none when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]
