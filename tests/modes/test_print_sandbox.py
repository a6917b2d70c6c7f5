"""``pitui -p`` (workspace policy): bash runs sandboxed, or not at all."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pitui.ai.types import TextContent, ToolResultMessage
from pitui.core.session_setup import SessionOptions, create_agent_session
from pitui.core.settings import SandboxSettings, Settings
from tests.core.sandbox_support import needs_a_sandbox
from tests.core.sandbox_support import visible_outside as visible_outside

ROOT = Path(__file__).resolve().parents[2]


@needs_a_sandbox
def test_rm_rf_outside_fails_and_the_result_says_the_sandbox_denied_it(
    tmp_path: Path, pitui_home: Path, visible_outside: Path
) -> None:
    project, temp, outside = tmp_path / "project", tmp_path / "tmp", visible_outside
    for folder in (project, temp):
        folder.mkdir()
    (outside / "keep.txt").write_text("precious\n")
    pitui_home.mkdir()
    (pitui_home / "settings.json").write_text('{"sandbox": {"writableSlashTmp": false}}')
    env = {**os.environ, "PITUI_DEMO_PACE_MS": "0", "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "pitui", "-p", "--mode", "json", f"run rm -rf {outside}"],
        cwd=project, input="", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (outside / "keep.txt").read_text() == "precious\n"
    ends = [e for e in map(json.loads, result.stdout.splitlines())
            if e["type"] == "tool_execution_end"]  # fmt: skip
    assert len(ends) == 1 and ends[0]["isError"] is True
    output = ends[0]["result"]["content"][0]["text"]
    assert "Permission denied" in output or "Read-only file system" in output
    assert "[pitui sandbox] The sandbox denied this" in output


@needs_a_sandbox
def test_print_mode_bash_cannot_plant_settings_leave_processes_or_see_tmux(
    tmp_path: Path, pitui_home: Path
) -> None:
    project = tmp_path / "project"
    (project / ".pitui").mkdir(parents=True)
    (project / ".pitui" / "settings.json").write_text("{}\n")
    pitui_home.mkdir()
    command = (
        'echo \'{"shellPath": "/x"}\' > .pitui/settings.json; '
        "setsid sh -c 'sleep 1; touch late' & env > env.txt"
    )
    env = {**os.environ, "PITUI_DEMO_PACE_MS": "0", "PYTHONPATH": str(ROOT),
           "TMUX": "/tmp/tmux-0/default,1,0"}  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "pitui", "-p", "--mode", "json", f"run {command}"],
        cwd=project, input="", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    time.sleep(1.3)
    assert (project / ".pitui" / "settings.json").read_text() == "{}\n"
    assert not (project / "late").exists()
    assert "TMUX=" not in (project / "env.txt").read_text()


async def test_without_a_sandbox_workspace_denies_bash_naming_approve_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no bwrap to be found
    settings = Settings(sandbox=SandboxSettings(backend="bwrap"))
    options = SessionOptions(cwd=tmp_path, approve="workspace", no_session=True, settings=settings)
    session = await create_agent_session(options)
    marker = tmp_path / "ran"
    await session.prompt(f"run touch {marker}")
    await session.close()
    assert not marker.exists()
    result = next(m for m in session.messages if isinstance(m, ToolResultMessage))
    block = result.content[0]
    assert result.is_error and isinstance(block, TextContent)
    assert block.text.startswith("Permission denied for bash: bash runs only in a sandbox")
    assert "--approve all" in block.text


@pytest.mark.parametrize("mode", ["ask", "workspace", "edits", "all", "none"])
def test_every_policy_can_be_picked_on_the_command_line(mode: str, tmp_path: Path) -> None:
    from pitui.cli import build_parser
    from pitui.core.session_setup import options_from_args

    args = build_parser().parse_args(["--approve", mode])
    assert options_from_args(args, tmp_path).approve == mode


@needs_a_sandbox
async def test_print_mode_refuses_a_git_command_that_writes_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody to ask: the git command that would run with .git writable is refused."""
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    await asyncio.to_thread(subprocess.run, ["git", "init", "-q", str(tmp_path)], check=True)
    options = SessionOptions(cwd=tmp_path, approve="workspace", no_session=True)
    session = await create_agent_session(options)
    await session.prompt("run git -c user.name=u -c user.email=u@x commit --allow-empty -qm x")
    await session.prompt("run git commit --allow-empty -qm y")
    await session.close()
    results = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    texts = [b.text for r in results for b in r.content if isinstance(b, TextContent)]
    assert "Permission denied for bash" not in texts[0]  # sandboxed, and it fails there
    assert "Read-only file system" in texts[0] or "Permission denied" in texts[0], texts[0]
    assert texts[1].startswith("Permission denied for bash: writes the repository"), texts[1]
    assert not (tmp_path / ".git" / "refs" / "heads" / "master").exists()
    assert not (tmp_path / ".git" / "refs" / "heads" / "main").exists()
