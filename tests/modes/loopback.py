"""Run the real ``pitui`` in a subprocess against a loopback replay server.

The pitui home gets a ``models.json`` whose providers point at the server, so a test
drives the whole program (CLI, session, provider adapter, HTTP) with scripted replies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.replay_server import FIXTURES, ReplayServer

ANTHROPIC_TEXT = (FIXTURES / "providers" / "anthropic_text.sse").read_bytes()
"""A streamed Anthropic reply whose text starts ``Olá! (That's "hi" in Portuguese)``."""


def write_models(home: Path, server: ReplayServer, *providers: str, **settings: Any) -> None:
    """Providers named ``providers`` (each with a model ``tiny``) served by ``server``.

    ``settings`` go to ``settings.json``; retries wait 1 ms unless told otherwise.
    """
    home.mkdir(parents=True, exist_ok=True)
    config = {
        "providers": {
            name: {
                "baseUrl": server.url,
                "apiKey": "test-key",
                "api": "anthropic-messages",
                "models": [{"id": "tiny"}],
            }
            for name in providers or ("loop",)
        }
    }
    (home / "models.json").write_text(json.dumps(config))
    settings.setdefault("retry", {"baseDelayMs": 1})
    (home / "settings.json").write_text(json.dumps(settings))


def pitui_command(*args: str) -> list[str]:
    """``python -m pitui ARGS`` with this interpreter."""
    return [sys.executable, "-m", "pitui", *args]


def run_pitui(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run pitui to completion (stdin empty, the environment of the test)."""
    return subprocess.run(
        pitui_command(*args),
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=timeout,
        check=False,
    )


def session_lines(home: Path) -> list[dict[str, Any]]:
    """Every line of the one session file under ``home/sessions``."""
    [path] = list((home / "sessions").rglob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def messages(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of ``message`` entries, in file order."""
    return [line["message"] for line in lines if line.get("type") == "message"]


def continued_session(
    how: str, project: Path, tmp_path: Path, source: Path
) -> tuple[Path, list[str]]:
    """A copy of ``source`` that ``pitui --session FILE`` or ``pitui -c`` continues in
    ``project``: returns the file and the flags that name it."""
    from pitui.core.session.listing import default_session_dir

    if how == "-c":
        folder = default_session_dir(str(project))
        folder.mkdir(parents=True)
        path = folder / "2026-01-01T00-00-00-000Z_x.jsonl"
        flags = ["-c"]
    else:
        path = tmp_path / "s.jsonl"
        flags = ["--session", str(path)]
    shutil.copy(source, path)
    return path, flags
