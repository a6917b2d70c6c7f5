"""In a real terminal: a fast typist who starts at once loses nothing. Keys (and a paste)
sent from the moment tmux starts pitui, through its first frame (drawn with the
composer's stand-in) and the real composer's mount after it, reach the composer in the
order typed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux, new_project, started

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "s8-type-ahead-e2e"
TYPED = "fix the portx"
PASTED = " to 8080"
THEN = " now"
KEY_GAP_S = 0.02
"""Between keys: the typing lasts through the start-up (the interpreter, the first frame,
the composer's mount) instead of landing all before it."""


def _type_slowly(terminal: Terminal, text: str) -> None:
    for char in text:
        terminal.type(char)
        time.sleep(KEY_GAP_S)


@pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=["140x40", "80x24"])
def test_keys_typed_from_the_launch_on_arrive_in_order(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    width, height = size
    terminal = Terminal(project, tmp_path / "home", width, height, socket=SOCKET)
    try:
        _type_slowly(terminal, TYPED)  # from the moment tmux has started it
        terminal.keys("BSpace")
        terminal.paste(PASTED)
        _type_slowly(terminal, THEN)
        # No Enter in this burst (see the next test).
        expected = "fix the port to 8080 now"
        terminal.wait_for(lambda s: f"│ {expected} " in s, "the typed text in the composer")
        # The reply's usage (its text may scroll out of 24 rows before a poll sees it).
        terminal.send_until(" please", lambda s: "↓" in s.splitlines()[-1], "the reply")
        sessions = "".join(p.read_text() for p in (tmp_path / "home").rglob("*.jsonl"))
        assert f'"text":"{expected} please"' in sessions.replace('": "', '":"')
    finally:
        terminal.close()


def test_a_prompt_and_return_typed_during_the_start_are_sent(tmp_path: Path) -> None:
    """Return typed while Textual still loads is Return, not the line feed (Ctrl+J, a new
    line in the composer) the terminal's cooked mode would make of it: pitui leaves
    cooked mode before it loads Textual (pitui.ui.early_terminal)."""
    project = tmp_path / "project"
    project.mkdir()
    terminal = Terminal(project, tmp_path / "home", 100, 30, socket=SOCKET)
    try:
        time.sleep(0.15)  # past the interpreter's own start, still before Textual's
        _type_slowly(terminal, "say hi")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: "↓" in s.splitlines()[-1], "the reply's usage")
        sessions = "".join(p.read_text() for p in (tmp_path / "home").rglob("*.jsonl"))
        assert '"text":"say hi"' in sessions.replace('": "', '":"')
    finally:
        terminal.close()


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_a_command_prefix_and_its_key_in_one_burst_act_on_its_suggestions(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``/mo⏎``, ``/thi⇥`` and ``/hot↓↑⏎`` typed in one write each, faster than the list
    above the composer appears: each key takes the highlighted command as pi does (the
    model picker, not "Unknown command: /mo"); after Esc has closed the list, Enter sends
    the text as typed."""
    width, height = size
    with started(new_project(tmp_path), tmp_path / "home", width=width, height=height) as term:
        term.send("/mo", burst=True)
        screen = term.wait_for(
            lambda s: "Search models" in s or "Unknown command" in s, "the model picker"
        )
        assert "Search models" in screen
        term.keys("Escape")
        term.wait_for(lambda s: "Search models" not in s, "the composer again")
        term.type("/thi\t")
        term.wait_for(lambda s: "/thinking " in s and "minimal" in s, "the completed command")
        term.keys("C-u")  # the composer's delete-to-line-start: empty again
        term.wait_for(lambda s: "/thinking" not in s, "an empty composer")
        term.type("/hot\x1b[B\x1b[A\r")
        term.wait_for(lambda s: "Keyboard shortcuts" in s, "the hotkeys")
        term.keys("Escape")
        term.wait_for(lambda s: "Keyboard shortcuts" not in s, "the composer again")
        term.type("/mo\x1b")  # Esc closes the list, and it stays closed
        time.sleep(0.5)
        term.keys("Enter")
        term.wait_for(lambda s: "Unknown command: /mo" in s, "the text as typed")
