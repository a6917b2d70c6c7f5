"""In a real terminal: two prompts to the demo model, Ctrl+B, go back to the second prompt,
send a changed one, and the tree shows the branch point."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]


@pytest.fixture
def terminal(tmp_path: Path, open_terminal: Callable[..., Terminal]) -> Terminal:
    project = tmp_path / "project"
    project.mkdir()
    return open_terminal(project)


def test_edit_an_earlier_prompt_from_the_tree(terminal: Terminal) -> None:
    terminal.wait_for(lambda s: "Branches" in s and "demo" in s, "the first frame")
    terminal.send("first prompt", lambda s: "said: first prompt" in s, "the first reply")
    terminal.send("second prompt", lambda s: "said: second prompt" in s, "the second reply")
    terminal.keys("C-b", "Up", "Enter")  # one burst, as a fast typist sends them
    terminal.wait_for(lambda s: "Summarize the branch you are leaving?" in s, "the chooser")
    terminal.keys("Enter")  # No summary
    terminal.wait_for(lambda s: "│ second prompt" in s, "the text in the composer")
    terminal.keys("C-c")  # clear the composer
    terminal.wait_for(lambda s: "│ second prompt" not in s, "the composer cleared")
    point = "├⊟ • user: changed prompt"
    screen = terminal.send("changed prompt", lambda s: point in s, "the branch point")
    assert "└⊟ user: second prompt" in screen
