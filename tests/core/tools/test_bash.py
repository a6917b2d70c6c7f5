"""The bash tool with real subprocesses: output, exit codes, streaming, timeout, abort, spill."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from pitui.agent.tool import AgentToolResult, ToolError
from pitui.ai.abort import AbortSignal
from pitui.core.tools.bash import BashError, BashTool

from .helpers import read_and_remove, run, text


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


async def test_simple_command_runs_in_cwd(tmp_path: Path) -> None:
    result = await run(BashTool(tmp_path), command="echo 'test output'; pwd")
    assert text(result) == f"test output\n{tmp_path}\n"
    assert result.details is None


async def test_stderr_merged_and_stdin_closed(tmp_path: Path) -> None:
    result = await run(BashTool(tmp_path), command="echo out; echo err >&2; cat")
    assert text(result) == "out\nerr\n"


async def test_empty_output(tmp_path: Path) -> None:
    assert text(await run(BashTool(tmp_path), command="true")) == "(no output)"


async def test_exit_code_error(tmp_path: Path) -> None:
    with pytest.raises(BashError) as info:
        await run(BashTool(tmp_path), command="exit 1")
    assert str(info.value) == "(no output)\n\nCommand exited with code 1"
    with pytest.raises(ToolError) as info2:
        await run(BashTool(tmp_path), command="echo oops; exit 3")
    assert str(info2.value) == "oops\n\n\nCommand exited with code 3"


async def test_timeout_kills(tmp_path: Path) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(ToolError) as info:
        await run(BashTool(tmp_path), command="echo started; sleep 5", timeout=0.5)
    assert str(info.value) == "started\n\n\nCommand timed out after 0.5 seconds"
    assert loop.time() - start < 3
    with pytest.raises(ToolError, match=r"^Command timed out after 1 seconds$"):
        await run(BashTool(tmp_path), command="sleep 5", timeout=1)


async def test_abort_kills_whole_group_including_grandchildren(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    command = (
        f"sleep 30 & echo $! > {pids}; "
        f"bash -c 'sleep 31 & echo $! >> {pids}; wait' & "
        "echo ready; wait"
    )
    signal = AbortSignal()
    updates: list[AgentToolResult] = []
    task = asyncio.ensure_future(
        run(BashTool(tmp_path), signal=signal, updates=updates, command=command)
    )
    for _ in range(100):
        if pids.exists() and len(pids.read_text().split()) == 2 and updates:
            break
        await asyncio.sleep(0.05)
    children = [int(p) for p in pids.read_text().split()]
    assert all(alive(pid) for pid in children)
    signal.abort()
    with pytest.raises(ToolError) as info:
        await task
    assert str(info.value) == "ready\n\n\nCommand aborted"
    for _ in range(50):
        if not any(alive(pid) for pid in children):
            break
        await asyncio.sleep(0.05)
    assert not any(alive(pid) for pid in children)


async def test_abort_before_start(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Command aborted$"):
        await run(BashTool(tmp_path), signal=signal, command="sleep 5")


async def test_streaming_updates_are_throttled(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    command = "for i in 1 2 3 4 5 6; do echo line$i; sleep 0.05; done"
    result = await run(BashTool(tmp_path, update_interval=0.12), updates=updates, command=command)
    assert text(result).endswith("line6\n")
    assert 1 <= len(updates) < 6
    assert text(updates[0]).startswith("line1\n")
    assert updates[0].details == {}  # no truncation, no full-output file yet
    # Later updates carry the growing tail of the buffer.
    assert len(text(updates[-1])) >= len(text(updates[0]))


async def test_spill_file_past_50kb(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    # update_interval=0: every chunk produces an update (no throttling).
    tool = BashTool(tmp_path, update_interval=0)
    result = await run(tool, updates=updates, command="seq 1 12000")
    out = text(result)
    match = re.search(r"\n\n\[Showing lines 10002-12001 of 12001\. Full output: (\S+)\]$", out)
    assert match, out[-200:]
    full = match.group(1)
    assert os.path.basename(full).startswith("pi-bash-") and full.endswith(".log")
    assert out.startswith("10002\n")
    assert result.details is not None
    assert result.details["fullOutputPath"] == full
    assert result.details["truncation"]["truncatedBy"] == "lines"
    assert any(u.details.get("fullOutputPath") == full for u in updates)
    assert read_and_remove(full) == "".join(f"{i}\n" for i in range(1, 12001))


async def test_truncated_by_lines_under_limit_still_gets_a_file(tmp_path: Path) -> None:
    result = await run(BashTool(tmp_path), command="seq 1 3000")
    match = re.search(r"\[Showing lines 1002-3001 of 3001\. Full output: (\S+)\]$", text(result))
    assert match
    assert read_and_remove(match.group(1)) == "".join(f"{i}\n" for i in range(1, 3001))


async def test_huge_last_line_partial(tmp_path: Path) -> None:
    command = f"{sys.executable} -c \"print('a' * 60000, end='')\""
    out = text(await run(BashTool(tmp_path), command=command))
    match = re.search(
        r"\n\n\[Showing last 50\.0KB of line 1 \(line is 58\.6KB\)\. Full output: (\S+)\]$", out
    )
    assert match
    assert out.startswith("a" * 51200 + "\n\n")
    read_and_remove(match.group(1))


async def test_missing_cwd(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    with pytest.raises(ToolError) as info:
        await run(BashTool(missing), command="echo hi")
    assert (
        str(info.value)
        == f"Working directory does not exist: {missing}\nCannot execute bash commands."
    )


async def test_shell_path_option(tmp_path: Path) -> None:
    result = await run(BashTool(tmp_path, shell_path="/bin/sh"), command="echo via-sh")
    assert text(result) == "via-sh\n"
    with pytest.raises(ToolError, match=r"^Custom shell path not found: /nonexistent-shell"):
        await run(BashTool(tmp_path, shell_path="/nonexistent-shell"), command="echo")
    not_exec = tmp_path / "noexec"
    not_exec.write_text("")
    with pytest.raises(ToolError, match=f"^spawn {re.escape(str(not_exec))} EACCES$"):
        await run(BashTool(tmp_path, shell_path=str(not_exec)), command="echo")


async def test_command_prefix(tmp_path: Path) -> None:
    tool = BashTool(tmp_path, command_prefix="export TEST_VAR=hello\necho prefix-output")
    assert text(await run(tool, command="echo $TEST_VAR")) == "prefix-output\nhello\n"


async def test_output_not_ansi_stripped(tmp_path: Path) -> None:
    result = await run(BashTool(tmp_path), command="printf '\\033[31mred\\033[0m'")
    assert text(result) == "\x1b[31mred\x1b[0m"


def test_tool_is_not_leaking_env_requirements() -> None:
    assert os.path.exists("/bin/sh")
