"""Outside the TUI too, model and tool output cannot drive the terminal (OSC 0, OSC 52, CSI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pitui.core.sanitize import json_inert, json_inert_bytes

ROOT = Path(__file__).resolve().parents[2]
TITLE = "\x1b]0;pwned title\x07"
CLIPBOARD = "\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07"
EVIL = f"before {TITLE}middle {CLIPBOARD}after \x9b31m red \x1b[2J\n"
CONTROLS = ("\x1b", "\x07", "\x9b")


def _pitui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PITUI_DEMO_PACE_MS": "0", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        cwd=cwd, input="", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "evil.txt").write_text(EVIL)
    return root


def test_print_mode_renders_a_tool_result_with_osc_sequences_inert(project: Path) -> None:
    result = _pitui(project, "-p", "read evil.txt")
    assert result.returncode == 0, result.stderr
    assert "before" in result.stdout and "after" in result.stdout
    assert not any(c in result.stdout + result.stderr for c in CONTROLS)
    assert "]52;" not in result.stdout and "]0;" not in result.stdout


def test_json_mode_escapes_controls_and_keeps_the_data(project: Path) -> None:
    result = _pitui(project, "-p", "--mode", "json", "--no-session", "read evil.txt")
    assert result.returncode == 0, result.stderr
    assert not any(c in result.stdout for c in CONTROLS)
    ends = [e for e in map(json.loads, result.stdout.splitlines())
            if e["type"] == "tool_execution_end"]  # fmt: skip
    assert ends[0]["result"]["content"][0]["text"] == EVIL  # unchanged once parsed


def test_session_subcommands_render_stored_output_inert(project: Path, pitui_home: Path) -> None:
    assert _pitui(project, "-p", "read evil.txt").returncode == 0
    (file,) = (pitui_home / "sessions").rglob("*.jsonl")
    for args in (["tree", str(file)], ["context", str(file)], ["ls"], ["ls", "--json"],
                 ["context", str(file), "--json"]):  # fmt: skip
        result = _pitui(project, "session", *args)
        assert result.returncode == 0, (args, result.stderr)
        assert not any(c in result.stdout for c in CONTROLS), args
    context = json.loads(_pitui(project, "session", "context", str(file), "--json").stdout)
    texts = [m["content"][0]["text"] for m in context["agentMessages"] if m["role"] == "toolResult"]
    assert texts == [EVIL]  # the data is unchanged once parsed


def test_json_inert_round_trips() -> None:
    data = {"text": "a\x9bb\x7fc\x1bd\\", "n": 1}
    dumped = json.dumps(data, ensure_ascii=False)
    safe = json_inert(dumped)
    assert safe.isprintable() and json.loads(safe) == data
    assert json.loads(json_inert_bytes(dumped.encode())) == data
    assert json_inert("plain") == "plain"
