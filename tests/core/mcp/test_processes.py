"""No server process outlives pitui: wrappers, stubborn servers, SIGHUP and SIGTERM.

Real processes throughout: each test gives its servers a unique marker argument and
looks in /proc for anything still carrying it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pitui.core.mcp import processes
from pitui.core.mcp.config import LoadedConfig, ServerEntry
from pitui.core.mcp.log import McpLog
from pitui.core.mcp.processes import live_groups
from pitui.core.mcp.runtime import McpRuntime
from tests.core.mcp.helpers import DEMO, processes_running, text_reply, wait_gone, write_mcp
from tests.modes.loopback import pitui_command, write_models
from tests.replay_server import ReplayServer, Reply


def wrapper(marker: str, *, stubborn: bool = False) -> dict[str, object]:
    """A wrapper (like npx) that starts the real server and does not exit when its stdin
    closes; a stubborn one ignores SIGTERM too: only SIGKILL to the group ends it."""
    ignore = "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if stubborn else ""
    code = (
        "import signal, subprocess, sys, time\n"
        f"{ignore}"
        f"subprocess.Popen([sys.executable, {str(DEMO)!r}, {marker!r}])\n"
        "time.sleep(600)\n"
    )
    return {"command": sys.executable, "args": ["-c", code]}


async def test_stop_reaches_the_whole_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(processes, "STDIN_GRACE_S", 0.3)
    monkeypatch.setattr(processes, "TERM_GRACE_S", 0.3)
    marker = f"pitui-test-{uuid.uuid4().hex}"
    entry = ServerEntry("wrapped", wrapper(marker, stubborn=True), "user", tmp_path / "mcp.json")
    runtime = McpRuntime(tmp_path, LoadedConfig(servers=[entry]), log=McpLog(tmp_path / "l"))
    runtime.start()
    await runtime.wait_all()
    assert runtime.connections["wrapped"].state == "connected"
    assert len(processes_running(marker)) == 2  # the wrapper and the server
    await runtime.close()
    assert processes_running(marker) == []
    assert not live_groups()


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_no_server_outlives_print_mode(
    tmp_path: Path, pitui_home: Path, signum: signal.Signals
) -> None:
    marker = f"pitui-test-{uuid.uuid4().hex}"
    # The model never finishes its reply: pitui is waiting when the signal comes.
    server = ReplayServer().add(Reply(body=text_reply("x").body, hang_after=40)).start()
    try:
        write_models(pitui_home, server)
        write_mcp(pitui_home / "mcp.json", {
            "demo": {"command": sys.executable, "args": [str(DEMO), marker]},
            "wrapped": wrapper(marker + "-w"),
        })  # fmt: skip
        process = subprocess.Popen(
            pitui_command("-p", "--model", "loop/tiny", "hello"),
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        server.wait_sent(1)  # the servers are up: the first prompt waited for them
        assert processes_running(marker) and len(processes_running(marker + "-w")) == 2
        process.send_signal(signum)
        _, err = process.communicate(timeout=30)
        assert wait_gone(marker) == [], err
    finally:
        server.stop()


async def test_closing_while_a_server_still_starts_does_not_wait(tmp_path: Path) -> None:
    marker = f"pitui-test-{uuid.uuid4().hex}"
    code = f"import time; time.sleep(600)  # {marker}"  # never answers initialize
    entry = ServerEntry(
        "hangs", {"command": sys.executable, "args": ["-c", code]}, "user", tmp_path
    )
    runtime = McpRuntime(tmp_path, LoadedConfig(servers=[entry]), log=McpLog(tmp_path / "l"))
    runtime.start()
    for _ in range(400):  # until the process runs (bounded)
        if processes_running(marker):
            break
        await asyncio.sleep(0.05)
    started = time.monotonic()
    await runtime.close()
    assert time.monotonic() - started < 8  # stdin grace + SIGTERM, not the 30 s connect timeout
    assert processes_running(marker) == [] and not live_groups()
