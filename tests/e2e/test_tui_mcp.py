"""In a real terminal: an MCP server's tool reaches the model, a call that is not
read-only asks first, ``/mcp`` shows the server and its tools, and neither Ctrl+Q nor
closing the terminal (SIGHUP) leaves a server process behind."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pitui.ui.view.startup_listing import keys_line
from tests.core.mcp.helpers import (
    demo_entry,
    processes_running,
    text_reply,
    tool_call_reply,
    wait_gone,
    write_mcp,
)
from tests.e2e.tmux import Terminal, ended_within, needs_tmux, new_project, started
from tests.modes.loopback import write_models
from tests.replay_server import ReplayServer, Reply

pytestmark = [needs_tmux, pytest.mark.e2e]

CONNECTED = "demo · connected · 11 tools"
STARTED = keys_line().split(" · ")[0]
"""The start of the listing's keys line (what fits in the conversation's width)."""
CONNECT_TIMEOUT_S = 60
"""The demo server imports the MCP SDK: on a loaded machine that alone takes seconds."""


@contextmanager
def _pitui_with_demo(
    tmp_path: Path, *replies: Reply
) -> Iterator[tuple[Terminal, ReplayServer, str]]:
    """pitui on a loopback model replying ``replies``, with the demo MCP server (carrying a
    marker of its own: the pids are found by it) connected; the terminal, the model's
    server and the marker."""
    home, project = tmp_path / "home", new_project(tmp_path)
    marker = f"pitui-test-{uuid.uuid4().hex}"
    server = ReplayServer().add(*replies).start()
    write_models(home, server, defaultProvider="loop", defaultModel="tiny")
    entry = demo_entry()
    entry["args"].append(marker)
    write_mcp(home / "mcp.json", {"demo": entry})
    try:
        with started(project, home, ready="tiny") as terminal:
            _wait_connected(terminal)
            yield terminal, server, marker
    finally:
        server.stop()


def _open_mcp(terminal: Terminal) -> None:
    """Type ``/mcp`` and press Enter once the completion list is the one for ``/mcp``:
    Enter takes the highlighted completion, and a list still showing the matches of
    ``/m`` (under load it can lag the typing) has ``/model`` first, which opens the
    model picker instead."""
    terminal.type("/mcp")
    terminal.wait_for(
        lambda s: "Manage MCP servers" in s and "Select model (opens" not in s,
        "the completion of /mcp",
    )
    terminal.keys("Enter")


def _wait_connected(terminal: Terminal) -> None:
    """``/mcp`` says the server is connected. The first prompt waits for it at most 10 s
    and then goes without its tools: on a busy machine the model's call would then name
    an unknown tool and no dialog would come.

    ``/mcp`` is sent once the session is attached, which the start-up listing (its keys
    line, shown right after the attach) says: sent before, while the model's name is
    already on screen, it only says that no session is connected."""
    terminal.wait_for(lambda s: STARTED in s, "the start-up listing", timeout=CONNECT_TIMEOUT_S)
    _open_mcp(terminal)
    terminal.wait_for(lambda s: CONNECTED in s, "the MCP server", timeout=CONNECT_TIMEOUT_S)
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "demo · connected" not in s, "/mcp to close")


def _ask_to_write(terminal: Terminal, text: str) -> str:
    """Send the prompt whose reply calls ``write_note``; the screen with its dialog."""
    terminal.send("write a note")
    shown = ("not marked read-only", "MCP tool demo/write_note", text)
    return terminal.wait_for(lambda s: all(t in s for t in shown), "the approval")


@pytest.mark.parametrize("quit_by", ["ctrl+q", "closing the terminal"])
def test_a_mutating_mcp_call_asks_first(tmp_path: Path, quit_by: str) -> None:
    replies = (
        tool_call_reply("mcp__demo__write_note", {"text": "from the model"}),
        text_reply("The note is written."),
    )
    with _pitui_with_demo(tmp_path, *replies) as (terminal, server, marker):
        _ask_to_write(terminal, "from the model")
        assert len(server.requests) == 1  # nothing ran yet
        # Its keys arm once the keyboard has been quiet a moment (typing cannot answer it):
        # the key row then reads "y allow once …".
        terminal.wait_for(lambda s: "y allow once" in s, "the armed keys")
        terminal.keys("y")
        terminal.wait_for(lambda s: "The note is written." in s, "the reply")
        assert "noted: from the model" in server.requests[1].body.decode()
        assert processes_running(marker)
        _open_mcp(terminal)
        # The server's row and its tools' lines (below it: a capture can catch the frame
        # before they are drawn).
        tools = (CONNECTED, "echo [direct] (read-only)", "write_note [direct]")
        terminal.wait_for(lambda s: all(t in s for t in tools), "/mcp with the tools")
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "demo · connected" not in s, "/mcp to close")
        if quit_by == "ctrl+q":
            terminal.keys("C-q")
            terminal.wait_for(lambda s: "tiny" not in s, "pitui to quit")
    assert wait_gone(marker, 15) == [], "an MCP server outlived the terminal"


def test_closing_the_terminal_while_a_call_waits_for_approval(tmp_path: Path) -> None:
    """The shutdown used to block for ever here (an approval dialog open when the terminal
    went away); the failsafe ends pitui, and its MCP server, within seconds."""
    replies = (tool_call_reply("mcp__demo__write_note", {"text": "x"}), text_reply("ok"))
    with _pitui_with_demo(tmp_path, *replies) as (terminal, _server, marker):
        _ask_to_write(terminal, "x")
        pitui = terminal.processes()
    closed = time.monotonic()
    assert wait_gone(marker, 25) == [], "an MCP server outlived the terminal"
    left = 25 - (time.monotonic() - closed)  # one bound for both, as the failsafe's
    assert ended_within(pitui, left) is not None, "pitui outlived its terminal"
