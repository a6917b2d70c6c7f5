"""In a real terminal: the keys typed after a command belong to what it opens, however
long it takes to open. ``/model⏎demo`` typed while a big session still loads searches the
picker for "demo" once it opens (the command waits for the session, and so do the keys
after it); ``/name x⏎`` and the keys after it go on to the composer at once, in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.tmux import Terminal, needs_tmux

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "s9-keys-after-commands-e2e"
ENTRIES = 30_000
"""Enough lines that opening the session outlasts the burst (and the 1 s a hold lasts)."""


def _big_session(path: Path, cwd: Path) -> Path:
    header = {"type": "session", "version": 3, "id": "0" * 8 + "-0000-4000-8000-" + "0" * 12}
    lines = [json.dumps({**header, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)})]
    parent = None
    for n in range(ENTRIES):
        role = "user" if n % 2 == 0 else "assistant"
        message: dict[str, object] = {"role": role, "timestamp": 1767225600000 + n}
        if role == "user":
            message["content"] = f"question {n} about the port settings"
        else:
            message |= {
                "content": [{"type": "text", "text": f"answer {n}: the port is 8080"}],
                "api": "demo", "provider": "demo", "model": "demo", "stopReason": "stop",
                "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                          "totalTokens": 15, "cost": {"input": 0, "output": 0,
                          "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            }  # fmt: skip
        entry_id = f"{n:08x}"
        entry = {"type": "message", "id": entry_id, "parentId": parent, "message": message}
        lines.append(json.dumps({**entry, "timestamp": "2026-01-01T00:00:01.000Z"}))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n")
    return path


def _composer_line(screen: str) -> str:
    """The composer's first line of text (the last box of the screen)."""
    rows = screen.splitlines()
    top = max(i for i, row in enumerate(rows) if row.startswith("╭"))
    return rows[top + 1].strip("│ ")


def _searched(screen: str) -> bool:
    """The model picker is open, "demo" in its search field."""
    if "Select model" not in screen:
        return False
    search = screen.split("Select model")[1].splitlines()[1:4]
    return any("demo" in row and "demo/demo" not in row for row in search)


@pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=["140x40", "80x24"])
def test_keys_after_a_command_typed_while_loading_reach_its_screen(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    session = _big_session(tmp_path / "big.jsonl", project)
    args = ("--session", str(session), "--read-only")
    terminal = Terminal(project, tmp_path / "home", *size, args=args, socket=SOCKET)
    try:
        # The first frame (its composer takes keys) comes before the session is loaded.
        terminal.wait_for(lambda s: "Conversation" in s, "the first frame", timeout=30)
        terminal.send("/model", burst=True)
        terminal.type("demo")
        terminal.wait_for_settled(_searched, "the model picker, searching for demo")
        terminal.keys("Escape")
        screen = terminal.wait_for_settled(lambda s: "Select model" not in s, "the picker closed")
        assert "demo" not in _composer_line(screen)  # the search went to the picker
        terminal.send("/name renamed", burst=True)
        terminal.type("next words")
        screen = terminal.wait_for_settled(lambda s: "next words" in s, "the composer's text")
        assert _composer_line(screen).startswith("next words")
    finally:
        terminal.close()


@pytest.mark.parametrize("size", [(140, 40), (80, 24)], ids=["140x40", "80x24"])
def test_enter_in_the_model_picker_picks_what_was_typed_before_it(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """``claude-haiku-4-5⏎after`` in one burst: the search field acts on Enter only after
    the keys behind it reached it, so the picker holds them from the Enter on; the model
    is picked and "after" goes to the composer."""
    project = tmp_path / "project"
    project.mkdir()
    terminal = Terminal(project, tmp_path / "home", *size, socket=SOCKET + "-pick")
    try:
        terminal.wait_for(lambda s: "Conversation" in s, "the first frame", timeout=30)
        terminal.send("/model")
        terminal.wait_for_settled(lambda s: "Search models" in s, "the model picker")
        terminal.type("claude-haiku-4-5\rafter")
        screen = terminal.wait_for_settled(
            lambda s: "Select model" not in s and "after" in s, "the picker closed"
        )
        assert _composer_line(screen) == "after"
        assert "claude-haiku-4-5" in screen.splitlines()[-2]  # the status line's model
    finally:
        terminal.close()
