"""``pitui --list-models [search]``: the table, usability, fuzzy search, errors."""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pitui import paths
from pitui.modes import models_cli
from tests.replay_server import ReplayServer, Reply


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _no_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", _closed_port_url())


def run(search: str | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = models_cli.run(argparse.Namespace(list_models=search))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def rows(lines: list[str]) -> dict[tuple[str, str], list[str]]:
    return {(cells[0], cells[1]): cells for cells in (line.split() for line in lines[1:])}


def test_lists_whole_catalogue_with_usability(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    code, lines, err = run("", capsys)
    assert code == 0 and err == ""
    assert lines[0].split() == [
        "provider",
        "model",
        "context",
        "max-out",
        "thinking",
        "images",
        "usable",
    ]
    table = rows(lines)
    assert table["anthropic", "claude-sonnet-4-6"] == [
        "anthropic",
        "claude-sonnet-4-6",
        "1M",
        "64K",
        "yes",
        "yes",
        "no",
    ]
    assert table["openai", "gpt-4.1"][2:] == ["1.0M", "32.8K", "no", "yes", "key"]
    assert table["demo", "demo"][-1] == "demo"
    providers = [cells[0] for cells in (line.split() for line in lines[1:])]
    assert providers == sorted(providers)
    assert "sk-openai-test-key" not in "\n".join(lines)


def test_fuzzy_search(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run("sonnet 4-6", capsys)
    assert [key[1] for key in rows(lines)] == ["claude-sonnet-4-6"]
    _, lines, _ = run("demo", capsys)
    assert ("demo", "demo") in rows(lines)
    _, lines, _ = run("zzzzqqq", capsys)
    assert lines == ['No models matching "zzzzqqq"']


def test_ollama_models_are_listed_as_usable(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    replay_server: ReplayServer,
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", replay_server.url)
    replay_server.add(
        Reply.json_error(200, {"models": [{"name": "llama3.2:3b"}]}),
        Reply.json_error(200, {"capabilities": ["completion", "vision"]}),
    )
    _, lines, _ = run("ollama", capsys)
    assert rows(lines)["ollama", "llama3.2:3b"][2:] == ["128K", "16.4K", "no", "yes", "ollama"]


def test_invalid_models_json_warns_and_still_lists(capsys: pytest.CaptureFixture[str]) -> None:
    path = paths.models_file()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"providers": {"x": {"models": [{"id": "m"}]}}}))
    code, lines, err = run("", capsys)
    assert code == 0
    assert "models.json" in err and str(path) in err and "baseUrl" in err
    assert ("anthropic", "claude-opus-4-6") in rows(lines)


def test_custom_models_appear(capsys: pytest.CaptureFixture[str]) -> None:
    path = paths.models_file()
    path.parent.mkdir(parents=True)
    provider = {"baseUrl": "http://h/v1", "api": "openai-completions", "apiKey": "k"}
    path.write_text(json.dumps({"providers": {"lab": {**provider, "models": [{"id": "m1"}]}}}))
    _, lines, _ = run("lab", capsys)
    assert rows(lines)["lab", "m1"][2:] == ["128K", "16.4K", "no", "no", "key"]


def test_format_tokens() -> None:
    assert models_cli.format_tokens(200_000) == "200K"
    assert models_cli.format_tokens(1_000_000) == "1M"
    assert models_cli.format_tokens(1_047_576) == "1.0M"
    assert models_cli.format_tokens(8192) == "8.2K"
    assert models_cli.format_tokens(999) == "999"


def test_fuzzy_score_matches_pi() -> None:
    score = models_cli.fuzzy_score
    assert score("", "anything") == 0
    assert score("abc", "ab") is None
    assert score("cs46", "anthropic claude-sonnet-4-6") is not None
    assert score("xyz", "anthropic claude") is None
    # Letters/digits swapped ("4o" vs "o4") still match, with a penalty.
    assert score("gpt4o", "openai gpt-4o") is not None
    swapped = score("o4", "openai gpt-4o")
    assert swapped is not None
    boundary = score("gpt", "openai gpt-4o")
    inner = score("pen", "openai gpt-4o")
    assert boundary is not None and inner is not None and boundary < inner


def test_subprocess_without_textual(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PITUI_HOME": str(tmp_path / "home"),
        "OLLAMA_HOST": _closed_port_url(),
    }
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_OAUTH_TOKEN"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-m", "pitui", "--list-models", "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "demo" in done.stdout.splitlines()[1]
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pitui.modes.models_cli, pitui.ai.providers.demo; "
            "print('textual' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert probe.stdout.strip() == "False"
