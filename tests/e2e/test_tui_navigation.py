"""In a real terminal: what going to an earlier message leaves behind (issue 22 items 9
and 10): its text in the composer with the cursor at the end, and a Branches pane
showing the whole tree, not a search typed before."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux, new_project, replied, started

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-faults-e2e"


def _composer(screen: str) -> str:
    """The composer's first line (the box under the panes)."""
    lines = screen.splitlines()
    tops = [i for i, line in enumerate(lines) if line.startswith("╭─") and "─╮" in line]
    top = max(tops)
    return lines[top + 1].strip("│ ")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    with started(new_project(tmp_path), tmp_path / "home", socket=SOCKET) as term:
        yield term


def _go_to_first_message(terminal: Terminal, search: str = "") -> None:
    """Ctrl+B (typing ``search`` there), up to the first prompt, Enter, No summary."""
    terminal.keys("C-b")
    terminal.wait_for(lambda s: "• user: hello" in s, "the Branches pane")
    if search:
        terminal.type(search)
        terminal.wait_for(lambda s: f"search: {search}" in s, "the search")
    terminal.keys("Up")
    terminal.wait_for(lambda s: "› • user: hello" in s, "the user message selected")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "Summarize the branch you are leaving?" in s, "the chooser")
    terminal.keys("Enter")  # leave the branch as it is (no summary)
    terminal.wait_for(lambda s: _composer(s) == "hello", "the text put back")


def test_text_put_back_by_a_navigation_is_edited_at_its_end(terminal: Terminal) -> None:
    terminal.send("hello")
    terminal.wait_for_reply(lambda s: "said: hello" in s, "the reply")
    _go_to_first_message(terminal)
    terminal.type(" and more")
    screen = terminal.wait_for(lambda s: "more" in _composer(s), "the typing")
    assert _composer(screen) == "hello and more"


def test_a_navigation_clears_the_branches_search(terminal: Terminal) -> None:
    terminal.send("hello")
    terminal.wait_for_reply(lambda s: "said: hello" in s, "the reply")
    # Capitals while typing a search are letters, not Shift+L.
    _go_to_first_message(terminal, search="HELLO")
    terminal.keys("C-u")
    terminal.send("again")
    terminal.wait_for(lambda s: "said: again" in s, "the new reply")
    terminal.keys("C-b")
    screen = terminal.wait_for(lambda s: "user: again" in s, "the new branch in the pane")
    assert "search: HELLO" not in screen


def test_tmux_without_extended_keys_is_warned_about_once(terminal: Terminal) -> None:
    """Issue 22 item 12: this tmux has extended-keys off (its default)."""
    screen = terminal.wait_for(lambda s: "tmux extended-keys is off" in s, "the warning")
    flat = " ".join(" ".join(line.strip("│ ") for line in screen.splitlines()).split())
    assert "set -g extended-keys on" in flat
    assert flat.count("tmux extended-keys is off") == 1


def _box_width(screen: str, title: str) -> int:
    top = screen.splitlines()[0]
    start = top.index(f"╭─ {title}")
    return top.index("╮", start) - start + 1


def test_at_100_columns_the_tree_takes_the_tool_panes_place(tmp_path: Path) -> None:
    """Issue 22 item 8: Ctrl+B at 100×30 squeezed the conversation to ~26 columns."""
    with replied(tmp_path, SOCKET, 100, 30) as term:
        term.keys("C-b")
        screen = term.wait_for(lambda s: "╭─ Branches" in s, "the Branches pane")
        assert _box_width(screen, "Conversation") >= 60
        assert "╭─ Tools" not in screen.splitlines()[0]
        assert _box_width(screen, "Branches") >= 35
        term.keys("Escape")
        screen = term.wait_for(lambda s: "╭─ Branches" not in s, "the tree gone again")
        assert "╭─ Tools" in screen.splitlines()[0]


def _boxes(screen: str) -> dict[str, int]:
    """The width of each pane's box on the top line, by title."""
    top = screen.splitlines()[0]
    return {t: _box_width(screen, t) for t in ("Conversation", "Tools", "Branches") if t in top}


def _laid_out(screen: str, panes: set[str], width: int) -> bool:
    boxes = _boxes(screen)
    return set(boxes) == panes and sum(boxes.values()) == width


def _tools_hidden(screen: str) -> bool:
    top = screen.splitlines()[0]  # the whole line drawn: a poll can catch half a frame
    return "Tools" not in top and "╭─ Branches" in top and top.endswith("╮")


def test_the_conversation_keeps_60_columns_at_every_width(tmp_path: Path) -> None:
    """Issue 22 item 8: at 120 columns with three panes the conversation had 54 columns;
    hiding Tools (F2) gives its width to the tree."""
    with replied(tmp_path, SOCKET, 120, 30) as term:
        for width in (120, 121, 140, 160, 119, 100, 120):
            panes = (
                {"Conversation", "Tools", "Branches"} if width >= 120 else {"Conversation", "Tools"}
            )
            # Laid out: these panes, side by side across the width (a frame drawn during
            # the resize can still show the old widths).
            screen = term.resize(width, 30, until=partial(_laid_out, panes=panes, width=width))
            boxes = _boxes(screen)
            assert boxes["Conversation"] >= 60, (width, boxes)
        beside_tools = boxes["Branches"]
        term.keys("F2")
        screen = term.wait_for(_tools_hidden, "Tools hidden, the tree in its place")
        boxes = _boxes(screen)
        assert boxes["Branches"] > beside_tools and boxes["Conversation"] >= 60, boxes
        assert sum(boxes.values()) == 120, boxes


def test_at_80x24_the_footer_hints_fit_beside_the_context_figure(tmp_path: Path) -> None:
    """Issue 22 item 13: the tree's key hints ran into the context figure at 80×24."""
    with replied(tmp_path, SOCKET, 80, 24) as term:
        term.keys("C-b")
        screen = term.wait_for(lambda s: "esc back" in s.splitlines()[-1], "the tree's hints")
        bottom = screen.splitlines()[-1]
        assert "(auto)  " in bottom, bottom  # the figure, then at least two spaces
        assert bottom.rstrip().endswith("esc back"), bottom


def test_at_60_columns_the_status_keeps_the_model(tmp_path: Path) -> None:
    project, home = new_project(tmp_path), tmp_path / "home"
    with started(project, home, ready="thinking off", width=60, height=24, socket=SOCKET) as term:
        screen = term.wait_for(lambda s: "thinking off" in s, "the status bar")
        line = screen.splitlines()[-2]
        assert "demo • thinking off" in line
        # The long tmp path gives way in its middle, two spaces at least before the model.
        assert re.match(r" /tmp/…/project  +demo • thinking off", line), line
