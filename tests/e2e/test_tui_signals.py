"""In a real terminal: closing it (tmux kills the session: SIGHUP) or SIGTERM ends pitui
within a few seconds in every state (issue 22 item 1): the approval dialog open, a tool
running, mid-stream, a picker open, a compaction or a branch summary running. It used to
wait for ever with the dialog open, holding the session file."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, ended_within, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-faults-e2e"
LIMIT_S = 3.0
SLACK_S = 3.0
"""The machine is shared: the test allows this much more than the 3 s pitui promises."""


def _pitui_pid(terminal: Terminal) -> int:
    pane, *children = terminal.processes()
    for pid in [*children, pane]:
        try:
            if b"pitui" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    raise AssertionError("no pitui process in the pane")


def _dialog(terminal: Terminal) -> None:
    terminal.type("run rm -rf build")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "rm -rf build" in s and "Allow" in s, "the approval dialog")


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children …), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        below = [child for child, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def _runs(terminal: Terminal, command: bytes) -> bool:
    """A process below pitui has ``command`` as its command line."""
    for pid in _descendants(_pitui_pid(terminal)):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").strip() == command:
                return True
        except OSError:
            continue
    return False


def _tool(terminal: Terminal) -> None:
    terminal.send("run sleep 60")
    terminal.wait_for(lambda s: "sleep 60" in s and "y allow once" in s, "the armed dialog")
    terminal.keys("y")
    terminal.wait_for(lambda _s: _runs(terminal, b"sleep 60"), "the tool's process")


def _stream(terminal: Terminal) -> None:
    terminal.type("hello there, tell me a long story")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "offline demo" in s.lower() or "said: " in s, "the reply")


def _picker(terminal: Terminal) -> None:
    terminal.send("/resume")
    terminal.wait_for(lambda s: "Sort: " in s, "the resume picker")


def _compaction(terminal: Terminal) -> None:
    terminal.type("hello")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "said: hello" in s, "the reply", timeout=60)
    terminal.type("/compact")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: "ompacting" in s, "the compaction card")


def _shows(text: str) -> Callable[[str], bool]:
    return lambda screen: text in screen


def _branch_summary(terminal: Terminal) -> None:
    for prompt in ("first prompt", "second prompt"):
        terminal.type(prompt)
        terminal.keys("Enter")
        terminal.wait_for_reply(_shows(f"said: {prompt}"), "the reply", timeout=60)
    terminal.keys("C-b", "Up", "Enter")  # back to the second prompt: its reply is left
    terminal.wait_for(lambda s: "Summarize the branch you are leaving?" in s, "the chooser")
    terminal.keys("Down", "Enter")  # Summarize
    terminal.wait_for(lambda s: "Summarizing branch" in s, "the summary's progress card")


STATES: dict[str, Callable[[Terminal], None]] = {
    "branch_summary": _branch_summary,
    "compaction": _compaction,
    "dialog": _dialog,
    "tool": _tool,
    "stream": _stream,
    "picker": _picker,
}


@pytest.mark.parametrize("how", ["hangup", "sigterm"])
@pytest.mark.parametrize("state", sorted(STATES))
def test_pitui_ends_promptly_in_every_state(state: str, how: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    paces = {"stream": "300", "compaction": "60", "branch_summary": "60"}
    pace = {"PITUI_DEMO_PACE_MS": paces.get(state, "0")}
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text('{"compaction": {"keepRecentTokens": 1}}')
    terminal = Terminal(project, home, socket=SOCKET, env=pace)
    try:
        terminal.wait_for(lambda s: "demo (offline)" in s, "the session")
        STATES[state](terminal)
        pid = _pitui_pid(terminal)
        pids = terminal.processes()
        if how == "sigterm":
            os.kill(pid, signal.SIGTERM)
        else:
            terminal.close()
        took = ended_within(pids, LIMIT_S + SLACK_S)
    finally:
        terminal.close()
    assert took is not None, f"pitui still runs {LIMIT_S + SLACK_S} s after {how} ({state})"
    if state == "branch_summary":  # the signal came while it ran, not after it was saved
        saved = "".join(p.read_text() for p in (home / "sessions").rglob("*.jsonl"))
        assert '"type":"branch_summary"' not in saved
