"""In a real terminal: the second start in a project draws its final screen in the first
frame, and what is typed before the session is up is sent, not lost."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]


def first_frame(terminal: Terminal, timeout: float = 20) -> str:
    """The first screen with the panes drawn (polled as fast as tmux answers). A frame is
    written top to bottom: a poll can catch one half written, so the status line at the
    bottom must be there too."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = terminal.screen()
        bottom = screen.removesuffix("\n").split("\n")[-1]  # capture-pane keeps blank rows
        if "Conversation" in screen and "Branches" in screen and bottom.strip():
            return screen
        time.sleep(0.003)
    raise AssertionError("pitui never drew its panes")


def test_the_second_start_shows_the_model_in_its_first_frame(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    first = Terminal(project, home, width=140)
    try:
        first.wait_for(lambda s: "demo (offline)" in s, "the session")
        first.wait_for(lambda s: (home / "cache" / "startup.json").exists(), "the snapshot")
    finally:
        first.close()
    second = Terminal(project, home, width=140)
    try:
        screen = first_frame(second)
        assert "demo • thinking off • demo (offline)" in screen, screen
        assert "No entries found  (0/0)" in screen, screen
        assert "no model" not in screen
    finally:
        second.close()


def test_a_prompt_typed_at_once_is_sent_when_the_session_is_up(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    terminal = Terminal(project, tmp_path / "home")
    try:
        first_frame(terminal)
        terminal.type("hello early")  # as soon as the panes show, in one burst
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "said: hello early" in s, "the reply")
    finally:
        terminal.close()
