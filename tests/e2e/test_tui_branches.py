"""In a real terminal: two prompts to the demo model, Ctrl+B, go back to the second prompt,
send a changed one, and the tree shows the branch point."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.tmux import needs_tmux, new_project, started

pytestmark = [needs_tmux, pytest.mark.e2e]


def test_edit_an_earlier_prompt_from_the_tree(tmp_path: Path) -> None:
    with started(new_project(tmp_path), tmp_path / "home", ready="Branches") as terminal:
        terminal.wait_for(lambda s: "Branches" in s and "demo" in s, "the first frame")
        terminal.send("first prompt")
        terminal.wait_for(lambda s: "said: first prompt" in s, "the first reply")
        terminal.send("second prompt")
        terminal.wait_for_reply(lambda s: "said: second prompt" in s, "the second reply")
        terminal.keys("C-b", "Up", "Enter")  # one burst, as a fast typist sends them
        terminal.wait_for(lambda s: "Summarize the branch you are leaving?" in s, "the chooser")
        terminal.keys("Enter")  # No summary
        terminal.wait_for(lambda s: "│ second prompt" in s, "the text in the composer")
        terminal.keys("C-c")  # clear the composer
        terminal.wait_for(lambda s: "│ second prompt" not in s, "the composer cleared")
        terminal.send("changed prompt")
        screen = terminal.wait_for(lambda s: "├⊟ • user: changed prompt" in s, "the branch point")
        assert "└⊟ user: second prompt" in screen
