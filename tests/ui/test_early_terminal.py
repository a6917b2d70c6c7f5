"""pitui leaves the terminal's cooked mode before it loads Textual (so Return typed during
the start is Return, and nothing typed is echoed over the screen), and gives the terminal
back as it found it."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from pitui.ui import early_terminal

CHILD = """
import sys, termios
from pitui.ui.early_terminal import take_keys_early
take_keys_early()
iflag, _, _, lflag = termios.tcgetattr(sys.stdin.fileno())[:4]
print(bool(lflag & termios.ICANON), bool(lflag & termios.ECHO), bool(iflag & termios.ICRNL))
"""


def test_the_start_takes_the_terminal_out_of_cooked_mode_and_gives_it_back() -> None:
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        assert before[3] & termios.ICANON and before[3] & termios.ECHO
        done = subprocess.run(
            [sys.executable, "-c", CHILD],
            stdin=follower,
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parents[2],
        )
        assert done.stdout.split() == ["False", "False", "False"]  # while pitui runs
        assert termios.tcgetattr(follower) == before  # after it
    finally:
        os.close(leader)
        os.close(follower)


def test_stdin_that_is_no_terminal_is_left_alone() -> None:
    probe = "from pitui.ui import early_terminal as e; e.take_keys_early(); print(e._original)"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert done.stdout.strip() == "None"


class _Driver:
    def __init__(self) -> None:
        self.attrs_before: list[object] | None = ["raw"]


def test_the_driver_restores_what_the_terminal_had_before_pitui(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    driver = _Driver()
    monkeypatch.setattr(early_terminal, "_original", None)
    early_terminal.hand_to_driver(driver)
    assert driver.attrs_before == ["raw"]  # nothing taken early: the driver's own
    monkeypatch.setattr(early_terminal, "_original", ["cooked"])
    early_terminal.hand_to_driver(driver)
    assert driver.attrs_before == ["cooked"]
