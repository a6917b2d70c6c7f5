"""Shared parts of the MCP tests: server configs, scripted model replies, process checks."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from tests.replay_server import Reply

DEMO = Path(__file__).with_name("demo_server.py")


def demo_entry(**extra: Any) -> dict[str, Any]:
    """The test suite's own server over stdio."""
    return {"command": sys.executable, "args": [str(DEMO)], **extra}


def time_entry(**extra: Any) -> dict[str, Any]:
    """``mcp-server-time`` from PyPI over stdio."""
    return {"command": sys.executable, "args": ["-m", "mcp_server_time"], **extra}


def write_mcp(path: Path, servers: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _start() -> dict[str, Any]:
    message: dict[str, Any] = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "tiny", "content": [],
        "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip
    return {"type": "message_start", "message": message}


def _end(reason: str) -> dict[str, Any]:
    usage = {"output_tokens": 5}
    return {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": usage}


def tool_call_reply(name: str, args: dict[str, Any], call_id: str = "toolu_1") -> Reply:
    """An Anthropic stream whose reply is one tool call."""
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
    return Reply(body=_sse([
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        _end("tool_use"),
        {"type": "message_stop"},
    ]))  # fmt: skip


def text_reply(text: str) -> Reply:
    """An Anthropic stream whose reply is ``text``."""
    block = {"type": "text", "text": ""}
    return Reply(body=_sse([
        _start(),
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        _end("end_turn"),
        {"type": "message_stop"},
    ]))  # fmt: skip


def processes_running(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``marker`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z" and int(entry) != os.getpid():
            found.append(int(entry))
    return found


def wait_gone(marker: str, within: float = 10.0) -> list[int]:
    """Wait (bounded) until no process carries ``marker``; the pids still left."""
    deadline = time.monotonic() + within
    while (left := processes_running(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
