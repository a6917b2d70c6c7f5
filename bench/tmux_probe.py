"""tmux and /proc helpers shared by the benchmarks that time pitui in a real terminal.

Every bench talks to its own tmux server (``tmux -L SOCKET``), never the user's: the socket
is ``$PITUI_BENCH_TMUX`` or ``pitui-bench-<pid>``; :func:`kill_server` ends it.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

SOCKET = os.environ.get("PITUI_BENCH_TMUX") or f"pitui-bench-{os.getpid()}"


def tmux(*args: str) -> str:
    """Run a tmux command and return its output, retrying a failure a few times."""
    for attempt in range(5):
        done = subprocess.run(
            ["tmux", "-L", SOCKET, *args], check=False, capture_output=True, text=True
        )
        if done.returncode == 0:
            return done.stdout
        time.sleep(0.2 * (attempt + 1))  # e.g. the server of the last session still exiting
    raise RuntimeError(f"tmux {' '.join(args[:1])} failed: {done.stderr.strip()}")


def kill_session(name: str) -> None:
    """End one tmux session (no error when it is gone already)."""
    subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", name], check=False,
                   capture_output=True)  # fmt: skip


def kill_server() -> None:
    """End this bench's tmux server (no error when none runs)."""
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], check=False, capture_output=True)


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (none when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]
