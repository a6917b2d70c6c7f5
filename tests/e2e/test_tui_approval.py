"""The approval dialog in a real terminal: a call cannot hide in it (issue 21 item 10).

pitui runs in tmux against a loopback Anthropic server whose model asks for one call;
the screen is read back with capture-pane. A command with 150 newlines shows them in its
title (``⏎×150``) with the reason and the key row on screen; a 1 MB command opens its
dialog at once and says how long it is; control characters are spelled out, never sent
to the terminal; a write whose path hides 120 newlines still shows why it asks.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.tmux import Terminal, needs_tmux, new_project, started
from tests.modes.loopback import write_models
from tests.replay_server import ReplayServer, Reply

pytestmark = [needs_tmux, pytest.mark.e2e]

SOCKET = "h-gate-e2e"


def _event(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def _reply(blocks: list[tuple[str, Any]], piece: int = 65536) -> bytes:
    """An Anthropic stream with text blocks (``("text", s)``) and tool calls
    (``(name, args)``), the arguments sent in large pieces."""
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {"id": "m", "type": "message", "role": "assistant", "model": "tiny",
               "content": [], "usage": usage}  # fmt: skip
    parts = [_event({"type": "message_start", "message": message})]
    stop = "end_turn"
    for index, (kind, value) in enumerate(blocks):
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": value}]
        else:
            stop = "tool_use"
            block = {"type": "tool_use", "id": f"toolu_{index}", "name": kind, "input": {}}
            raw = json.dumps(value)
            deltas = [{"type": "input_json_delta", "partial_json": raw[i : i + piece]}
                      for i in range(0, len(raw), piece)]  # fmt: skip
        parts.append(
            _event({"type": "content_block_start", "index": index, "content_block": block})
        )
        parts += [
            _event({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas
        ]
        parts.append(_event({"type": "content_block_stop", "index": index}))
    parts.append(_event({"type": "message_delta", "delta": {"stop_reason": stop},
                         "usage": {"output_tokens": 5}}))  # fmt: skip
    parts.append(_event({"type": "message_stop"}))
    return "".join(parts).encode()


@pytest.fixture
def setup(tmp_path: Path, replay_server: ReplayServer) -> tuple[Path, Path]:
    home, project = tmp_path / "home", new_project(tmp_path)
    write_models(home, replay_server, defaultProvider="loop", defaultModel="tiny")
    return home, project


@contextmanager
def _ask(
    setup: tuple[Path, Path],
    server: ReplayServer,
    tool: str,
    args: dict[str, Any],
    height: int = 36,
) -> Iterator[tuple[Terminal, str, float]]:
    """Start pitui, send a prompt, wait for the dialog to be armed; the terminal, the
    screen and the seconds it took (the terminal is closed when the block ends)."""
    home, project = setup
    server.add(Reply(_reply([(tool, args)])), Reply(_reply([("text", "understood")])))
    with started(
        project, home, ready="tiny", height=height, args=("--no-session",), socket=SOCKET
    ) as term:
        term.send("go")
        begun = time.monotonic()
        screen = term.wait_for(lambda s: "y allow once" in s, "the armed dialog", timeout=60)
        yield term, screen, time.monotonic() - begun


@pytest.mark.parametrize("height", [36, 24])
def test_newlines_are_shown_and_the_keys_stay_on_screen(
    setup: tuple[Path, Path], replay_server: ReplayServer, tmp_path: Path, height: int
) -> None:
    marker = tmp_path / "pwned"
    command = "echo safe" + "\n" * 150 + f"touch {marker}"
    with _ask(setup, replay_server, "bash", {"command": command}, height) as (term, screen, _):
        # The view is filled once the dialog is drawn: its size note comes with it.
        screen = term.wait_for(lambda s: "characters on 151 lines" in s, "the size note")
        assert "Allow $ echo safe⏎×150touch" in screen, screen
        assert "runs a shell command" in screen
        assert "Deny [n]" in screen and "y allow once" in screen
        term.keys("End")  # the end of the command is reachable
        term.wait_for(lambda s: f"touch {marker}"[:60] in s, "the end of the command")
        term.keys("Escape")
        term.wait_for(lambda s: "understood" in s, "the reply after the denial")
    assert not marker.exists()


def test_a_1_mb_command_opens_at_once_and_says_its_size(
    setup: tuple[Path, Path], replay_server: ReplayServer
) -> None:
    command = "touch " + "a" * 1_000_000
    with _ask(setup, replay_server, "bash", {"command": command}) as (term, screen, seconds):
        print(f"1 MB command: dialog armed {seconds:.2f} s after Enter (arming waits 0.4 s)")
        screen = term.wait_for(lambda s: "1,000,006 characters" in s, "the size note")
        assert "$ touch aaaa" in screen
        assert "runs a shell command" in screen and "Deny [n]" in screen
        term.keys("Escape")
        term.wait_for(lambda s: "understood" in s, "the reply after the denial")


def test_control_characters_are_spelled_out(
    setup: tuple[Path, Path], replay_server: ReplayServer
) -> None:
    command = "echo \x1b]0;pwned\x07 \x1b[31mred\x1b[0m \r\u202eevil\ttab"
    with _ask(setup, replay_server, "bash", {"command": command}) as (term, screen, _):
        screen = term.wait_for(lambda s: "\\x1b]0;pwned\\x07" in s, "the spelled-out command")
        assert "\\x1b[31mred\\x1b[0m" in screen and "\\r\\u202eevil\\ttab" in screen
        term.keys("Escape")
        term.wait_for(lambda s: "understood" in s, "the reply after the denial")


def test_a_path_full_of_newlines_still_shows_why_it_asks(
    setup: tuple[Path, Path], replay_server: ReplayServer, tmp_path: Path
) -> None:
    path = "notes.txt" + "\n" * 120 + str(tmp_path / "outside.txt")
    with _ask(setup, replay_server, "write", {"path": path, "content": "x"}) as (term, screen, _):
        assert "⏎×120" in screen, screen
        assert "writes outside the project" in screen or "write changes files" in screen
        assert "Deny [n]" in screen and "y allow once" in screen
        term.keys("Escape")
        term.wait_for(lambda s: "understood" in s, "the reply after the denial")


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_the_demo_dialog_is_never_seen_without_its_command_or_its_buttons(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """The demo model's "list files" asks about ``ls -a``: every screen from the
    dialog's first frame to its arming shows the command in its view and the buttons
    (the view used to be filled two refreshes after the first frame, and the dialog
    could arm before it was; a one-row command also said its size)."""
    width, height = size
    body = re.compile(r"│ \$ ls -a +│")
    with started(new_project(tmp_path), tmp_path / "home", width=width, height=height) as term:
        term.send("list files")
        deadline, seen = time.monotonic() + 60, []
        while time.monotonic() < deadline:
            screen = term.screen()
            if "keys arm in a moment" in screen or "y allow once" in screen:
                seen.append(screen)
                if "y allow once" in screen:
                    break
            time.sleep(0.01)
        assert seen and "y allow once" in seen[-1], seen[-1:] or "no dialog"
        for screen in seen:
            assert body.search(screen) and "Allow once [y]" in screen, screen
            assert "characters ·" not in screen, screen
        term.keys("Escape")
        term.wait_for(lambda s: "Permission" not in s, "the dialog closed")
