"""Session files with checkpoint entries stay pi's: pi 0.73 and 1.6 open and continue
them, and build the same request as from the file without those entries.

pitui writes the file for real (print mode, the offline demo model writing a file); the
pi side runs the real CLIs (skipped when they are not installed, see tests/pi16.py).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.core.checkpoints.points import CHECKPOINT_TYPE
from pitui.core.session.store import SessionStore
from tests.core.checkpoints.helpers import fast_demo  # noqa: F401  (autouse fixture)
from tests.modes.loopback import ANTHROPIC_TEXT, run_pitui
from tests.pi16 import pi16_command, run_pi16
from tests.replay_server import ReplayServer, Reply

PI073 = Path(os.environ.get("PITUI_TEST_PI073") or "/tmp/pi073") / "node_modules/.bin/pi"


def _pi(version: str) -> list[str]:
    command = pi16_command() if version == "1.6" else ([str(PI073)] if PI073.is_file() else None)
    if command is None or (shutil.which("node") is None and version != "1.6"):
        pytest.skip(f"pi {version} is not installed (see tests/pi16.py)")
    return command


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _is_checkpoint(line: dict[str, Any]) -> bool:
    return line.get("type") == "custom" and line.get("customType") == CHECKPOINT_TYPE


def _without_checkpoints(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same session as if no checkpoint had been taken (children re-parented)."""
    parent_of = {line["id"]: line.get("parentId") for line in lines if _is_checkpoint(line)}
    kept = []
    for line in lines:
        if _is_checkpoint(line):
            continue
        parent = line.get("parentId")
        while parent in parent_of:
            parent = parent_of[parent]
        kept.append({**line, "parentId": parent} if "parentId" in line else line)
    return kept


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "app.py").write_text("port = 9090\n")
    return project


@pytest.fixture
def source(project: Path, pitui_home: Path) -> Path:
    """The session file of a real ``pitui -p`` run in which the demo model writes a file."""
    result = run_pitui(project, "-p", "write app.py: port = 8080")
    assert result.returncode == 0, result.stderr
    [path] = list((pitui_home / "sessions").rglob("*.jsonl"))
    return path


@pytest.mark.parametrize("version", ["0.73", "1.6"])
def test_pi_continues_a_file_with_checkpoints_and_sends_the_same(
    version: str, project: Path, source: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    command = _pi(version)
    lines = _lines(source)
    assert sum(_is_checkpoint(line) for line in lines) == 2  # before the write, at the end
    with_entries, without = tmp_path / "with.jsonl", tmp_path / "without.jsonl"
    shutil.copy(source, with_entries)
    _write(without, _without_checkpoints(lines))
    bodies = []
    for path in (with_entries, without):
        replay_server.add(Reply(body=ANTHROPIC_TEXT))
        result = run_pi16(
            command,
            tmp_path / f"home-{path.stem}",
            replay_server,
            project,
            "-p",
            "--session",
            str(path),
            "next",
        )
        assert result.returncode == 0, result.stderr
        bodies.append(replay_server.requests[-1].json())
    assert bodies[0]["messages"] == bodies[1]["messages"]
    continued = _lines(with_entries)
    assert continued[: len(lines)] == lines  # pi kept every line as it was
    added = continued[len(lines) :]
    roles = [a["message"]["role"] for a in added if a["type"] == "message"]
    assert [role for role in roles if role != "system"] == ["user", "assistant"]  # 1.6: +system
    first_message = next(a for a in added if a["type"] == "message")
    assert _is_checkpoint(next(x for x in lines if x["id"] == first_message["parentId"]))
    # And pitui opens pi's continuation: same context as without the checkpoints.
    mine = _pitui_context(with_entries)
    assert mine == _pitui_context(_rewritten(tmp_path, _without_checkpoints(continued)))


def _rewritten(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "stripped-continued.jsonl"
    _write(path, lines)
    return path


def _pitui_context(path: Path) -> list[dict[str, Any]]:
    import asyncio

    async def build() -> list[dict[str, Any]]:
        store = await SessionStore.open(path, read_only=True)
        return [m.to_json_dict() for m in store.build_context().messages]

    return asyncio.run(build())


def test_session_context_lists_checkpoints_under_not_sent(project: Path, source: Path) -> None:
    ids = [line["id"] for line in _lines(source) if _is_checkpoint(line)]
    result = run_pitui(project, "session", "context", str(source))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "not sent (" in text
    tail = text.split("not sent (", 1)[1]
    for entry_id in ids:
        assert f"{entry_id}  [custom: {CHECKPOINT_TYPE}]  file checkpoint" in tail
    files = run_pitui(project, "session", "files", str(source), "--at", ids[0])
    assert files.stdout.startswith("1 file differs from checkpoint"), files.stdout
