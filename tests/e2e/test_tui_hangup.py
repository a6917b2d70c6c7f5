"""In a real terminal: closing the terminal (tmux kills the session: SIGHUP) ends pitui,
even when its screen can no longer be restored, and the session file keeps the reply."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.tmux import ended_within, needs_tmux, new_project, started

pytestmark = [needs_tmux, pytest.mark.e2e]


def test_closing_the_terminal_ends_pitui(tmp_path: Path) -> None:
    with started(new_project(tmp_path), tmp_path / "home") as terminal:
        terminal.send("hello")
        terminal.wait_for(lambda s: "said: hello" in s, "the reply")
        processes = terminal.processes()
    assert ended_within(processes, 15) is not None, "pitui outlived its terminal"
    saved = list((tmp_path / "home" / "sessions").rglob("*.jsonl"))
    assert saved and '"text":"hello"' in saved[0].read_text()
