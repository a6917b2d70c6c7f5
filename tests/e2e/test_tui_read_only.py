"""In a real terminal: a session another pitui holds opens read-only (issue 22 item 16):
the status bar says so for as long as it lasts, a prompt typed there stays in the
composer, and the notice does not speak of a --read-only flag nobody gave."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-faults-e2e"


def _composer(screen: str) -> str:
    lines = screen.splitlines()
    top = max(i for i, line in enumerate(lines) if line.startswith("╭─") and "─╮" in line)
    return lines[top + 1].strip("│ ")


def test_a_held_session_is_marked_read_only_and_keeps_the_prompt(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    env = {**os.environ, "PITUI_HOME": str(home), "PITUI_DEMO_PACE_MS": "0"}
    subprocess.run(
        [sys.executable, "-m", "pitui", "-p", "hello"], cwd=project, env=env, check=True,
        capture_output=True, timeout=60,
    )  # fmt: skip
    first = Terminal(project, home, args=("-c",), socket=SOCKET)
    second: Terminal | None = None
    try:
        first.wait_for(lambda s: "said: hello" in s, "the first pitui")
        second = Terminal(project, home, args=("-c",), socket=SOCKET)
        second.wait_for(lambda s: "read-only" in s.splitlines()[-2], "the read-only marker")
        second.type("my precious prompt")
        second.keys("Enter")
        screen = second.wait_for(
            lambda s: s.count("nothing can be added") >= 2, "the notice of the refused prompt"
        )
        flat = " ".join(line.strip("│ ") for line in screen.splitlines())
        assert "stays in the composer" in " ".join(flat.split())
        assert _composer(screen) == "my precious prompt"
        assert "--read-only" not in screen
        assert "read-only" in screen.splitlines()[-2]  # still marked
    finally:
        first.close()
        if second is not None:
            second.close()
