"""In a real terminal: the composer's ``@`` finder, Tab path completion and Ctrl+G."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.e2e.tmux import needs_tmux, started

pytestmark = [needs_tmux, pytest.mark.e2e]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / "README.md").write_text("# Project\n")
    return root


def test_at_rea_and_tab_picks_readme(project: Path, tmp_path: Path) -> None:
    with started(project, tmp_path / "home") as terminal:
        terminal.type("what is in @REA")
        terminal.wait_for(lambda s: "README.md" in s.split("what is in @REA")[0], "the finder")
        terminal.keys("Tab")
        terminal.wait_for(lambda s: "what is in @README.md" in s, "the picked file")


def test_read_sr_and_tab_completes_the_folder(project: Path, tmp_path: Path) -> None:
    with started(project, tmp_path / "home") as terminal:
        terminal.type("read sr")
        terminal.keys("Tab")
        terminal.wait_for(lambda s: "read src/" in s, "the completed folder")
        terminal.keys("Tab")  # one file inside: completed whole
        terminal.wait_for(lambda s: "read src/main.py" in s, "the completed file")


def test_ctrl_g_round_trips_the_text_through_the_editor(project: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "%s and more\\n" "$(cat "$1")" > "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    env = {"EDITOR": str(editor), "VISUAL": ""}
    with started(project, tmp_path / "home", env=env) as terminal:
        terminal.type("a draft")
        terminal.wait_for(lambda s: "a draft" in s, "the typed text")
        terminal.keys("C-g")
        terminal.wait_for(lambda s: "a draft and more" in s, "the edited text")
        screen = terminal.wait_for(lambda s: "demo (offline)" in s, "the TUI again")
        assert "a draft and more" in screen


def test_enter_in_a_burst_acts_on_the_text_typed_not_an_older_list(
    project: Path, tmp_path: Path
) -> None:
    """The list for ``/`` (every command, ``/model`` first) is on screen; ``hotkeys`` and
    Enter arrive in one burst, before the list has caught up: Enter runs ``/hotkeys``."""
    with started(project, tmp_path / "home") as terminal:
        terminal.type("/")
        terminal.wait_for(lambda s: "/model [search]" in s, "the command list")
        terminal.send("hotkeys", burst=True)
        screen = terminal.wait_for(
            lambda s: "Keyboard shortcuts" in s or "Search models" in s, "a screen"
        )
        assert "Keyboard shortcuts" in screen
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "Keyboard shortcuts" not in s, "the composer again")
        terminal.type("/")
        terminal.wait_for(lambda s: "/model [search]" in s, "the command list")
        terminal.send("zzz", burst=True)  # no command matches: the text itself is sent
        screen = terminal.wait_for(
            lambda s: "Unknown command: /zzz" in s or "Search models" in s, "an answer"
        )
        assert "Unknown command: /zzz" in screen
