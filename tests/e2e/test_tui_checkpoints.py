"""The issue's "Done when", in a real terminal: the demo model edits a file (approved),
going back to before the edit with Restore files (offered in the navigation's one chooser,
beside the summary choices) puts the old file back, switching to the other sibling branch
with restore brings the edit back, and the project's ``.git`` is byte-identical all
along."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.core.checkpoints.helpers import hash_tree, make_project
from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "s6-checkpoints-e2e"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project", {"app.py": "port = 9090\n"})


@pytest.fixture
def terminal(project: Path, open_terminal: Callable[..., Terminal]) -> Terminal:
    return open_terminal(project, socket=SOCKET)


def _model_edits_app_py(terminal: Terminal) -> None:
    """The demo model writes ``port = 8080`` into app.py, approved once."""
    terminal.wait_for(lambda s: "Branches" in s and "demo" in s, "the first frame")
    terminal.send_until("write app.py: port = 8080", lambda s: "y allow once" in s, "the approval")
    terminal.keys("y")
    terminal.wait_for_reply(lambda s: "I wrote app.py" in s, "the reply after the edit")


def _restore_question(terminal: Terminal) -> None:
    screen = terminal.wait_for(lambda s: "Restore files (1)" in s, "the restore question")
    assert "1 file differs at this point" in screen
    terminal.keys("p")  # the preview, in the diff renderer
    preview = terminal.wait_for(lambda s: "would change" in s, "the preview")
    assert "M app.py" in preview
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "Restore files (1)" in s, "back at the question")
    terminal.keys("Enter")  # Restore files


def test_files_follow_the_branch(terminal: Terminal, project: Path) -> None:
    git_before = hash_tree(project / ".git")
    app = project / "app.py"
    _model_edits_app_py(terminal)
    assert app.read_text() == "port = 8080"
    # The row of the run that changed a file carries the marker.
    terminal.keys("C-b")
    terminal.wait_for(lambda s: "±1 assistant: Here is" in s, "the tree's file marker")
    # Back to the prompt that made the edit, with its files.
    terminal.keys("Up", "Up", "Up", "Enter")
    screen = terminal.wait_for(
        lambda s: "Summarize the branch you are leaving?" in s and "Restore files (1)" in s,
        "the chooser, with the files beside the summary choices",
    )
    assert "[x] Restore files (1)" in screen and "No summary" in screen
    terminal.keys("p")  # the preview, from the chooser
    preview = terminal.wait_for(lambda s: "would change" in s, "the preview")
    assert "M app.py" in preview
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "Summarize the branch" in s, "back at the chooser")
    terminal.keys("Enter")  # No summary, with the files
    terminal.wait_for(lambda s: "Restored 1 file" in s, "what the restore did")
    assert "1 file differs at this point" not in terminal.screen()  # no second dialog
    assert app.read_text() == "port = 9090\n"
    # A new version of the prompt: a sibling branch made on the old files.
    terminal.keys("C-c")
    terminal.send_until("hello", lambda s: "• user: hello" in s, "the new branch in the tree")
    terminal.wait_for_reply(lambda s: "said: hello" in s, "the reply to hello")
    terminal.keys("M-Left")  # to the branch with the edit
    _restore_question(terminal)
    terminal.wait_for(lambda s: app.read_text() == "port = 8080", "the edit back", timeout=10)
    terminal.keys("M-Right")  # and forward again
    _restore_question(terminal)
    terminal.wait_for(lambda s: app.read_text() == "port = 9090\n", "the old file", timeout=10)
    assert hash_tree(project / ".git") == git_before


def test_rewind_files_only_keeps_the_conversation(terminal: Terminal, project: Path) -> None:
    app = project / "app.py"
    _model_edits_app_py(terminal)
    terminal.send_until(
        "/rewind", lambda s: "Rewind to before a message" in s, "the message picker"
    )
    terminal.keys("Enter")
    screen = terminal.wait_for(lambda s: "Files only" in s, "conversation / files / both")
    assert "1 file would change" in screen
    terminal.keys("Down", "Down", "Enter")  # Files only
    terminal.wait_for(lambda s: app.read_text() == "port = 9090\n", "the old file", timeout=10)
    screen = terminal.wait_for(lambda s: "Restored 1 file" in s, "what the restore did")
    assert "I wrote app.py" in screen  # the conversation stayed
    # …at its end, whose checkpoint has the edit: the status bar says the files differ.
    terminal.wait_for(lambda s: "files differ" in s, "the status bar's mark")


def test_a_key_burst_reaches_the_chooser_enter_opens(terminal: Terminal, project: Path) -> None:
    """All in one send-keys: the first Enter on a row opens the chooser, and the keys after
    it go to the chooser (the second Enter: no summary, files restored), not to the tree
    behind it (where the Enter would navigate again and the text would search)."""
    _model_edits_app_py(terminal)
    terminal.keys("C-b", "Up", "Up", "Up", "Enter", "Enter", "text")
    screen = terminal.wait_for(lambda s: "Restored 1 file" in s, "the chosen move, files restored")
    assert (project / "app.py").read_text() == "port = 9090\n"
    assert "search:" not in screen and "No entries" not in screen
    # The text typed after the choice is in the composer, not eaten by the chooser.
    terminal.wait_for(lambda s: _composer_line(s).endswith("text"), "the text in the composer")


def _composer_line(screen: str) -> str:
    """The composer's first line (its box is just above the status bar's two lines)."""
    line = screen.rstrip("\n").splitlines()[-4]
    return line.strip("│ ").rstrip()
