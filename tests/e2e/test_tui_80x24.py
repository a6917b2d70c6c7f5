"""In a real terminal of 80×24 (issue 22 item 13): the first Ctrl+C's "press again to
quit" covers nothing, and a new session's path in a notice breaks at its separators, at
80 columns and after a resize, with nothing lost."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest

from tests.e2e.tmux import needs_tmux, replied

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-faults-e2e"


def test_the_quit_hint_covers_no_border(tmp_path: Path) -> None:
    with replied(tmp_path, SOCKET, 80, 24, env={"HOME": str(tmp_path)}) as term:
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


def _notice_path(screen: str, tmp_path: Path) -> list[str]:
    """The lines the clone notice's path is shown on (checked to be the new file's)."""
    lines = [line.strip("│ ").rstrip() for line in screen.splitlines()]
    start = max(i for i, line in enumerate(lines) if "Cloned to a new session" in line)
    shown: list[str] = []
    for line in lines[start + 1 :]:
        shown.append(line)
        if "".join(shown).endswith(".jsonl"):
            break
    path = "".join(shown)
    assert path.startswith("~/home/sessions/"), screen  # the home shown as ~
    files = (tmp_path / "home" / "sessions").rglob("*.jsonl")
    assert path in {"~/" + str(f.relative_to(tmp_path)) for f in files}, screen
    return shown


def _path_shown(screen: str) -> bool:
    """The notice's path is on screen to its end (``.jsonl`` may be broken too)."""
    return ".jsonl" in "".join(line.strip("│ ") for line in screen.splitlines())


def _check_breaks(shown: list[str], screen: str) -> None:
    """Each line of the path ends at a separator, or fills the line (a name wider than
    the pane, e.g. the file's, is cut where the line ends: there is no better place)."""
    top = screen.splitlines()[0]
    box = top.index("╮") + 1  # the conversation's box
    full = box - 7  # its borders, its padding, the notice's padding, the scrollbar
    for line, _after in pairwise(shown):
        assert line.endswith("/") or len(line) >= full, f"cut mid-name:\n{screen}"


def test_a_cloned_sessions_path_breaks_at_separators_after_a_resize(tmp_path: Path) -> None:
    with replied(tmp_path, SOCKET, 80, 24, env={"HOME": str(tmp_path)}) as term:
        term.send("/clone")
        screen = term.wait_for(lambda s: "Cloned to a new session" in s, "the notice")
        shown = _notice_path(screen, tmp_path)
        assert len(shown) > 1, screen  # the path (longer than the pane) did break
        _check_breaks(shown, screen)
        for width in (70, 100, 90, 80):
            screen = term.resize(width, 24, until=_path_shown)
            _check_breaks(_notice_path(screen, tmp_path), screen)  # the last line too
