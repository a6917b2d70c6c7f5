"""In a real terminal: an MCP server's tool reaches the model, a call that is not
read-only asks first, ``/mcp`` shows the server and its tools, and neither Ctrl+Q nor
closing the terminal (SIGHUP) leaves a server process behind."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from tests.core.mcp.helpers import (
    demo_entry,
    processes_running,
    text_reply,
    tool_call_reply,
    write_mcp,
)
from tests.e2e.tmux import Terminal, needs_tmux
from tests.modes.loopback import write_models
from tests.replay_server import ReplayServer

pytestmark = [needs_tmux, pytest.mark.e2e]


@pytest.mark.parametrize("quit_by", ["ctrl+q", "closing the terminal"])
def test_a_mutating_mcp_call_asks_first(tmp_path: Path, quit_by: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    marker = f"pitui-test-{uuid.uuid4().hex}"
    server = (
        ReplayServer()
        .add(
            tool_call_reply("mcp__demo__write_note", {"text": "from the model"}),
            text_reply("The note is written."),
        )
        .start()
    )
    write_models(home, server, defaultProvider="loop", defaultModel="tiny")
    entry = demo_entry()
    entry["args"].append(marker)
    write_mcp(home / "mcp.json", {"demo": entry})
    terminal = Terminal(project, home)
    try:
        terminal.wait_for(lambda s: "tiny" in s, "the session")
        terminal.type("write a note")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "not marked read-only" in s, "the approval")
        assert "MCP tool demo/write_note" in screen and "from the model" in screen
        assert len(server.requests) == 1  # nothing ran yet
        # Its keys arm once the keyboard has been quiet a moment (typing cannot answer it).
        terminal.wait_for(lambda s: "keys arm in a moment" not in s, "the armed keys")
        time.sleep(0.3)
        terminal.keys("y")
        terminal.wait_for(lambda s: "The note is written." in s, "the reply")
        assert "noted: from the model" in server.requests[1].body.decode()
        assert processes_running(marker)
        terminal.type("/mcp")
        terminal.keys("Enter")
        screen = terminal.wait_for(lambda s: "demo · connected · 11 tools" in s, "/mcp")
        assert "echo [direct] (read-only)" in screen and "write_note [direct]" in screen
        terminal.keys("Escape")
        terminal.wait_for(lambda s: "demo · connected" not in s, "/mcp to close")
        if quit_by == "ctrl+q":
            terminal.keys("C-q")
            terminal.wait_for(lambda s: "tiny" not in s, "pitui to quit")
    finally:
        terminal.close()
        server.stop()
    deadline = time.monotonic() + 15
    while processes_running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_running(marker) == [], "an MCP server outlived the terminal"
