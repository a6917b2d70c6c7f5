"""In a real terminal of 80×24 (issue 22 item 13): the first Ctrl+C's "press again to
quit" covers nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-faults-e2e"


def _start(tmp_path: Path) -> Terminal:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    term = Terminal(project, home, width=80, height=24, socket=SOCKET, env={"HOME": str(tmp_path)})
    try:
        term.wait_for(lambda s: "demo (offline)" in s, "the session")
        term.type("hello")
        term.keys("Enter")
        term.wait_for(lambda s: "↓" in s.splitlines()[-1], "the reply's usage")
    except BaseException:
        term.close()  # the test's own finally is not reached
        raise
    return term


def test_the_quit_hint_covers_no_border(tmp_path: Path) -> None:
    term = _start(tmp_path)
    try:
        term.type("draft")
        term.wait_for(lambda s: "draft" in s, "the draft")
        term.keys("C-c")
        screen = term.wait_for(
            lambda s: "again to quit" in s and "draft" not in s, "the quit hint, the draft gone"
        )
        lines = screen.splitlines()
        assert "press Ctrl+C again to quit" in lines[-1], screen
        # The composer's box (a toast sat on its bottom-right corner) is whole.
        top = max(i for i, line in enumerate(lines) if line.startswith("╭"))
        bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
        assert re.fullmatch(r"╭─*╮", lines[top].rstrip()), screen
        assert re.fullmatch(r"╰─*╯", lines[bottom].rstrip()), screen
        assert all(re.fullmatch(r"│.*│", line.rstrip()) for line in lines[top + 1 : bottom])
        gone = term.wait_for(lambda s: "^B branches" in s.splitlines()[-1], "the keys back")
        assert not [line for line in gone.splitlines() if line.strip() == ")"], gone
    finally:
        term.close()
