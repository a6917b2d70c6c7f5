"""pi 1.6 session files both ways: pitui continues pi's, and pi 1.6 continues pitui's.

pitui runs for real against a loopback server; the pi direction runs the real pi 1.6 CLI
(skipped when it is not installed, see tests/pi16.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pitui.core.session.check import check_bytes
from tests.modes.loopback import ANTHROPIC_TEXT, messages, run_pitui, write_models
from tests.pi16 import require_pi16, run_pi16
from tests.replay_server import ReplayServer, Reply

PI16 = Path(__file__).parents[1] / "fixtures" / "pi-1.6" / "session.jsonl"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _roles(body: dict[str, Any]) -> list[str]:
    return [m["role"] for m in body["messages"]]


def test_pitui_continues_a_pi16_session(
    project: Path, pitui_home: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    path = tmp_path / "pi16.jsonl"
    shutil.copy(PI16, path)
    original = path.read_bytes()
    replay_server.add(Reply(body=ANTHROPIC_TEXT))
    write_models(pitui_home, replay_server)
    result = run_pitui(project, "-p", "--model", "loop/tiny", "--session", str(path), "third")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # nothing about the file is wrong
    body = replay_server.requests[0].json()
    # pi's system messages stay in the file and out of the request; pitui's prompt leads.
    assert _roles(body) == ["user", "assistant", "user", "assistant", "user"]
    assert "pitui" in body["system"][0]["text"] and "running inside pi" not in json.dumps(body)
    assert [t["name"] for t in body["tools"]] == ["read", "bash", "edit", "write"]
    data = path.read_bytes()
    assert data.startswith(original)  # pi's lines are untouched, byte for byte
    added = _lines(path)[len(original.splitlines()) :]
    assert [line["message"]["role"] for line in added] == ["user", "assistant"]
    assert added[0]["parentId"] == _lines(PI16)[-1]["id"]  # continues pi's leaf
    assert check_bytes(data).clean


def test_pi16_continues_a_pitui_session_and_pitui_again(
    project: Path, pitui_home: Path, replay_server: ReplayServer, tmp_path: Path
) -> None:
    pi = require_pi16()
    replay_server.add(*[Reply(body=ANTHROPIC_TEXT) for _ in range(3)])
    write_models(pitui_home, replay_server)
    path = tmp_path / "s.jsonl"
    first = run_pitui(project, "-p", "--model", "loop/tiny", "--session", str(path), "one")
    assert first.returncode == 0, first.stderr
    by_pitui = path.read_bytes()

    second = run_pi16(
        pi, tmp_path / "pi-home", replay_server, project, "-p", "--session", str(path), "two"
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.startswith("Olá!")
    pi_body = replay_server.requests[1].json()
    assert _roles(pi_body) == ["user", "assistant", "user"]
    data = path.read_bytes()
    assert data.startswith(by_pitui)  # pi appended; pitui's lines are as they were
    pi_messages = messages(_lines(path)[len(by_pitui.splitlines()) :])
    assert [m["role"] for m in pi_messages] == ["system", "user", "assistant"]
    assert pi_messages[0]["toolsAdded"]  # pi declares its prompt and tools mid-file

    third = run_pitui(project, "-p", "--model", "loop/tiny", "--session", str(path), "three")
    assert third.returncode == 0, third.stderr
    assert third.stderr == ""
    body = replay_server.requests[2].json()
    assert _roles(body) == ["user", "assistant", "user", "assistant", "user"]
    result = check_bytes(path.read_bytes())
    assert result.clean and not result.warnings


def test_session_context_and_tree_list_the_system_messages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pitui.modes.session_cli import main

    assert main(["context", str(PI16)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["1", "system"]
    assert lines[1].endswith(
        "[system prompt: 5 sections, 4 tools] (pi's; not sent, pitui sends its own)"
    )
    assert "[system prompt: tools, rules; −bash, −edit, −write]" in lines[4]
    assert main(["context", str(PI16), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["role"] for m in data["agentMessages"]].count("system") == 2
    assert "system" not in [m["role"] for m in data["llmMessages"]]
    assert main(["tree", str(PI16)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "• [system prompt: 5 sections, 4 tools]" in rows
    assert "• [system prompt: tools, rules; −bash, −edit, −write]" in rows
