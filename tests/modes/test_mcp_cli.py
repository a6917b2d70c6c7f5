"""``pitui mcp add/remove/list/trust`` against real files and real servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pitui.modes.mcp_cli import main
from tests.core.mcp.helpers import DEMO


def test_add_list_remove(
    tmp_path: Path,
    pitui_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["add", "demo", "--env", "A=${HOME}", "--", sys.executable, str(DEMO)]) == 0
    assert (
        main(["add", "-l", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Key: v"]) == 0
    )
    user = json.loads((pitui_home / "mcp.json").read_text())
    assert user["mcpServers"]["demo"] == {
        "command": sys.executable, "args": [str(DEMO)], "env": {"A": "${HOME}"}
    }  # fmt: skip
    project = json.loads((tmp_path / ".pitui" / "mcp.json").read_text())
    assert project["mcpServers"]["web"] == {
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"X-Key": "v"},
    }
    capsys.readouterr()

    assert main(["list"]) == 1  # the project server is not allowed yet
    out = capsys.readouterr().out
    assert "demo: connected, 11 tools (auto)" in out and "    echo (read-only)" in out
    assert "web: not allowed yet: run `pitui mcp trust web`" in out

    assert main(["remove", "-l", "web"]) == 0
    assert main(["list"]) == 0
    assert main(["remove", "nope"]) == 1
    assert main(["add", "bad", "--url", "ftp://x"]) == 1
    assert "url must be an http or https URL" in capsys.readouterr().err
