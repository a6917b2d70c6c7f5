"""In a real terminal: closing the terminal (tmux kills the session: SIGHUP) ends pitui,
even when its screen can no longer be restored, and the session file keeps the reply."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in state


def test_closing_the_terminal_ends_pitui(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    terminal = Terminal(project, tmp_path / "home")
    try:
        terminal.wait_for(lambda s: "demo (offline)" in s, "the session")
        terminal.type("hello")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "said: hello" in s, "the reply")
        processes = terminal.processes()
    finally:
        terminal.close()
    deadline = time.monotonic() + 15
    while any(alive(pid) for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in processes), "pitui outlived its terminal"
    saved = list((tmp_path / "home" / "sessions").rglob("*.jsonl"))
    assert saved and '"text":"hello"' in saved[0].read_text()
