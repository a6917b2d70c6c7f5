"""In a real terminal, under the workspace policy: what the model's bash does stays in the
sandbox (issue 21) — no planted settings or git hooks, no keystrokes pushed into the
TUI's terminal, no tmux socket, no process left behind."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.core.sandbox_support import needs_a_sandbox
from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, needs_a_sandbox, pytest.mark.e2e]


def _pane_tty(terminal: Terminal) -> str:
    shown = subprocess.run(
        ["tmux", "display", "-p", "-t", terminal.name, "#{pane_tty}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return shown.stdout.strip()


def test_the_tuis_sandboxed_bash_cannot_reach_out(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".pitui").mkdir(parents=True)
    (project / ".pitui" / "settings.json").write_text("{}\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"approval": {"mode": "workspace"}}))
    (project / "push.py").write_text(
        "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY)\n"
        "for byte in bytes([0x5A] * 3):\n    fcntl.ioctl(fd, 0x5412, bytes([byte]))\n"
    )
    terminal = Terminal(project, home)
    try:
        terminal.wait_for(lambda s: "demo (offline)" in s, "the session")
        command = (
            "echo '{\"shellPath\": 1}' > .pitui/settings.json; touch .git/hooks/pre-commit; "
            f"python3 push.py {_pane_tty(terminal)}; setsid sh -c 'sleep 1; touch late' & "
            "echo tmux=$(env | grep -c ^TMUX=)"
        )
        terminal.type(f"run {command}")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "tmux=" in s and "Here is" in s, "the result")
        time.sleep(1.3)
        screen = terminal.screen()
    finally:
        terminal.close()
    assert "tmux=0" in screen, screen
    assert "ZZZ" not in screen, screen
    assert (project / ".pitui" / "settings.json").read_text() == "{}\n"
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (project / "late").exists()


def test_a_git_commit_asks_and_runs_with_git_writable_once_allowed(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for key, value in (("user.name", "u"), ("user.email", "u@x")):
        subprocess.run(["git", "-C", str(project), "config", key, value], check=True)
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"approval": {"mode": "workspace"}}))
    terminal = Terminal(project, home)
    try:
        terminal.wait_for(lambda s: "demo (offline)" in s, "the session")
        terminal.type("run git commit --allow-empty -qm from-the-tui")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "writes the repository" in s, "the dialog")
        assert "Always allow" not in screen and "asks each time" in screen, screen
        time.sleep(0.6)  # the dialog's keys arm after 0.4 s of quiet
        terminal.keys("y")
        terminal.wait_for(lambda s: "Here is" in s, "the result")
    finally:
        terminal.close()
    log = subprocess.run(["git", "-C", str(project), "log", "--oneline"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    assert "from-the-tui" in log.stdout
