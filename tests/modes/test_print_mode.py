"""``pitui -p`` and ``--mode json`` as a user runs them: real subprocesses, demo model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.modes.loopback import run_pitui
from tests.replay_server import ReplayServer, Reply

PI_EVENTS = (
    Path(__file__).parents[1] / "fixtures" / "pi-cli" / "anthropic" / "json-mode-events.jsonl"
)


def _pitui(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PITUI_DEMO_PACE_MS": "0"}
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.txt").write_text("first line\nsecond line\n")
    return root


def test_print_mode_answers_and_writes_the_session(project: Path, pitui_home: Path) -> None:
    result = _pitui(project, "-p", "read notes.txt")
    assert result.returncode == 0, result.stderr
    assert "first line" in result.stdout
    assert "demo" in result.stdout.lower()
    files = list((pitui_home / "sessions").rglob("*.jsonl"))
    assert len(files) == 1


def test_the_process_ends_after_its_exit_functions_with_all_output(
    project: Path, pitui_home: Path
) -> None:
    """Print mode ends its own process without the interpreter's teardown (pitui.cli):
    exit functions still run, everything printed arrives, the exit code is the run's."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(print, 'exit functions ran')\n"
        "sys.argv = ['pitui', '-p', 'read notes.txt']\n"
        "from pitui.cli import main\n"
        "main()\n"
        "print('not reached: the process ended inside main')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=project,
        input="",
        capture_output=True,
        text=True,
        env={**os.environ, "PITUI_DEMO_PACE_MS": "0"},
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "first line" in result.stdout
    assert result.stdout.endswith("exit functions ran\n")
    assert "not reached" not in result.stdout
    files = list((pitui_home / "sessions").rglob("*.jsonl"))
    assert len(files) == 1 and files[0].read_text().count("\n") >= 4


def test_piped_stdin_becomes_the_prompt(project: Path) -> None:
    result = _pitui(project, "--no-session", stdin="run echo piped-ok\n")
    assert result.returncode == 0, result.stderr
    assert "piped-ok" in result.stdout


def test_no_session_writes_nothing(project: Path, pitui_home: Path) -> None:
    result = _pitui(project, "-p", "--no-session", "hello")
    assert result.returncode == 0
    assert not (pitui_home / "sessions").exists()


def test_continue_uses_the_same_session(project: Path, pitui_home: Path) -> None:
    assert _pitui(project, "-p", "hello").returncode == 0
    assert _pitui(project, "-p", "-c", "again").returncode == 0
    files = list((pitui_home / "sessions").rglob("*.jsonl"))
    assert len(files) == 1
    roles = [
        json.loads(line).get("message", {}).get("role")
        for line in files[0].read_text().splitlines()
    ]
    assert roles.count("user") == 2


def test_session_dir_puts_files_directly_there(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "my-sessions"
    assert _pitui(project, "-p", "--session-dir", str(target), "hello").returncode == 0
    assert len(list(target.glob("*.jsonl"))) == 1


def test_unknown_model_is_a_clear_error(project: Path) -> None:
    result = _pitui(project, "-p", "--model", "nope/does-not-exist", "hello")
    assert result.returncode == 1
    assert "nope/does-not-exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_json_mode_header_then_events_with_pi_field_names(project: Path) -> None:
    result = _pitui(project, "-p", "--mode", "json", "--no-session", "read notes.txt")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    types = [line["type"] for line in lines[1:]]
    assert types[:3] == ["agent_start", "turn_start", "message_start"]
    assert types[-1] == "agent_end"
    pi_lines = [json.loads(line) for line in PI_EVENTS.read_text().splitlines()[1:]]
    pi_keys = {line["type"]: set(line) for line in pi_lines}
    ours = {line["type"]: set(line) for line in lines[1:]}
    for event_type in ("tool_execution_start", "tool_execution_end", "message_update", "turn_end"):
        assert ours[event_type] == pi_keys[event_type], event_type


def test_tools_flag_limits_the_tool_set(project: Path) -> None:
    result = _pitui(project, "-p", "--no-session", "--tools", "ls", "read notes.txt")
    assert result.returncode == 0, result.stderr


def test_openrouter_key_alone_talks_to_openrouter(
    tmp_path: Path, pitui_home: Path, replay_server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With only ``OPENROUTER_API_KEY`` set the request goes to OpenRouter's default model
    (its base URL pointed at the loopback server by models.json), not to the demo model."""
    replay_server.add(Reply.sse_file("openai_chat_text.sse"))
    pitui_home.mkdir(parents=True, exist_ok=True)
    config = {"providers": {"openrouter": {"baseUrl": replay_server.url}}}
    (pitui_home / "models.json").write_text(json.dumps(config))
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-key")
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    result = run_pitui(tmp_path, "-p", "hello")
    assert result.returncode == 0, result.stderr
    [request] = replay_server.requests
    assert request.json()["model"] == "openai/gpt-5.1-codex"
    assert request.headers.get("Authorization", request.headers.get("authorization")) == (
        "Bearer sk-or-test-key"
    )
