"""``pitui -p`` with MCP servers: a loopback model calls their tools through the gate."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from pitui.core.mcp.runtime import STARTUP_WAIT_ENV
from tests.core.mcp.helpers import (
    demo_entry,
    processes_running,
    text_reply,
    time_entry,
    tool_call_reply,
    write_mcp,
)
from tests.modes.loopback import messages, run_pitui, session_lines, write_models
from tests.replay_server import ReplayServer


@pytest.fixture(autouse=True)
def _patient_first_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first prompt waits for the servers as long as the run may take: pi's 10 s are
    not enough for a Python server to start on a loaded machine (its tools would then be
    missing from the first request the test checks)."""
    monkeypatch.setenv(STARTUP_WAIT_ENV, "45")


def tool_names(request: Any) -> list[str]:
    return [tool["name"] for tool in request.json().get("tools", [])]


def tool_result(home: Path, name: str) -> dict[str, Any]:
    return next(m for m in messages(session_lines(home)) if m.get("toolName") == name)


def test_a_model_calls_mcp_server_time(tmp_path: Path, pitui_home: Path) -> None:
    server = (
        ReplayServer()
        .add(
            tool_call_reply("mcp__time__get_current_time", {"timezone": "UTC"}),
            text_reply("It is now."),
        )
        .start()
    )
    try:
        write_models(pitui_home, server)
        write_mcp(pitui_home / "mcp.json", {"time": time_entry()})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "what time is it?")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "It is now."
        assert "mcp__time__get_current_time" in tool_names(server.requests[0])
        call = next(m for m in messages(session_lines(pitui_home)) if m["role"] == "assistant")
        assert call["content"][0]["name"] == "mcp__time__get_current_time"
        result = tool_result(pitui_home, "mcp__time__get_current_time")
        assert not result["isError"] and result["details"] == {
            "server": "time",
            "tool": "get_current_time",
        }
        answer = json.loads(result["content"][0]["text"])
        assert answer["timezone"] == "UTC" and answer["datetime"].startswith("20")
        # The model read the same result in the next request.
        sent = server.requests[1].json()["messages"][-1]["content"][0]
        assert sent["type"] == "tool_result" and '"timezone": "UTC"' in sent["content"]
    finally:
        server.stop()


def test_tool_search_declares_for_the_next_call(tmp_path: Path, pitui_home: Path) -> None:
    server = (
        ReplayServer()
        .add(
            tool_call_reply("tool_search", {"query": "current time"}),
            tool_call_reply("mcp__time__get_current_time", {"timezone": "UTC"}, "toolu_2"),
            text_reply("Done."),
        )
        .start()
    )
    try:
        write_models(pitui_home, server)
        write_mcp(pitui_home / "mcp.json", {"time": time_entry(exposure="deferred")})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "time?")
        assert done.returncode == 0, done.stderr
        first, second = server.requests[0].json(), server.requests[1].json()
        assert "tool_search" in tool_names(server.requests[0])
        assert "mcp__time__get_current_time" not in tool_names(server.requests[0])
        assert "mcp__time__get_current_time" in tool_names(server.requests[1])
        assert "<mcp_servers>" in json.dumps(first["system"])
        assert second["system"] == first["system"]
        loaded = tool_result(pitui_home, "tool_search")["details"]["loaded"]
        assert loaded[0] == "mcp__time__get_current_time"
        assert not tool_result(pitui_home, "mcp__time__get_current_time")["isError"]
    finally:
        server.stop()


def test_workspace_denies_mutating_mcp_calls(tmp_path: Path, pitui_home: Path) -> None:
    server = (
        ReplayServer()
        .add(
            tool_call_reply("mcp__demo__write_note", {"text": "hi"}),
            text_reply("ok"),
            tool_call_reply("mcp__demo__write_note", {"text": "hi"}),
            text_reply("ok"),
        )
        .start()
    )
    try:
        write_models(pitui_home, server)
        write_mcp(pitui_home / "mcp.json", {"demo": demo_entry()})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "note")
        assert done.returncode == 0, done.stderr
        denied = tool_result(pitui_home, "mcp__demo__write_note")
        text = denied["content"][0]["text"]
        assert denied["isError"] and "not marked read-only" in text and "--approve all" in text
        assert '"approve": "always"' in text and str(pitui_home / "mcp.json") in text

        for path in (pitui_home / "sessions").rglob("*.jsonl"):
            path.unlink()
        write_mcp(pitui_home / "mcp.json", {"demo": demo_entry(approve="always")})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "note")
        allowed = tool_result(pitui_home, "mcp__demo__write_note")
        assert not allowed["isError"] and allowed["content"][0]["text"] == "noted: hi"
    finally:
        server.stop()


def test_project_server_waits_for_trust(tmp_path: Path, pitui_home: Path) -> None:
    marker = f"pitui-test-{uuid.uuid4().hex}"
    server = ReplayServer().add(text_reply("one"), text_reply("two")).start()
    try:
        write_models(pitui_home, server)
        entry = demo_entry()
        entry["args"].append(marker)
        write_mcp(tmp_path / ".pitui" / "mcp.json", {"proj": entry})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "hi")
        assert done.returncode == 0, done.stderr
        assert 'MCP: project server "proj"' in done.stderr
        assert "was not started: allow it with `pitui mcp trust proj`" in done.stderr
        assert not any(n.startswith("mcp__proj") for n in tool_names(server.requests[0]))

        trusted = run_pitui(tmp_path, "mcp", "trust", "proj")
        assert trusted.returncode == 0, trusted.stderr
        assert "trust.json" not in {p.name for p in (tmp_path / ".pitui").iterdir()}
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "hi")
        assert "was not started" not in done.stderr
        assert "mcp__proj__echo" in tool_names(server.requests[1])
        assert processes_running(marker) == []
    finally:
        server.stop()


def test_a_server_that_fails_is_reported_once(tmp_path: Path, pitui_home: Path) -> None:
    server = ReplayServer().add(text_reply("fine")).start()
    try:
        write_models(pitui_home, server)
        write_mcp(pitui_home / "mcp.json", {"broken": {"command": str(tmp_path / "missing")}})
        done = run_pitui(tmp_path, "-p", "--model", "loop/tiny", "hi")
        assert done.returncode == 0 and done.stdout.strip() == "fine"
        assert done.stderr.count('MCP server "broken" failed: command not found') == 1
    finally:
        server.stop()
