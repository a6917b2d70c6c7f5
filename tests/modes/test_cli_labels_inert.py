"""A session label (or any stored text) never reaches the terminal as control sequences.

A label with OSC 52 (clipboard write), OSC 0 (title) and CSI 5n (a status report the
terminal would type into the shell), in 7-bit and 8-bit (C1) forms, goes through every
CLI output: ``pitui session ls/tree/context/check`` and ``--export`` (its message, and
the ``.md`` / ``.jsonl`` files it writes) (issue 21 item 12).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from pitui.core.session.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]
LABEL = (
    "lbl \x1b]52;c;ZXZpbA==\x07 clip \x1b]0;pwned\x07 title \x1b[5n status "
    "\x9d0;c1 title\x9c \x9b5n \x90dcs\x9c end"
)
RAW = ("\x1b", "\x07", "\x9b", "\x9c", "\x9d", "\x90")


def _pitui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PITUI_DEMO_PACE_MS": "0", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        cwd=cwd, input="", capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip


async def _label_first_entry(file: Path) -> None:
    store = await SessionStore.open(file)
    user = next(e for e in store.get_branch() if getattr(e, "type", "") == "message")
    await store.set_label(user.id, LABEL)
    await store.close()


def test_a_hostile_label_is_inert_in_every_cli_output(tmp_path: Path, pitui_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert _pitui(project, "-p", "hello").returncode == 0
    (file,) = (pitui_home / "sessions").rglob("*.jsonl")
    asyncio.run(_label_first_entry(file))
    runs = [
        ["session", "tree", str(file)],
        ["session", "ls"],
        ["session", "ls", "--json"],
        ["session", "context", str(file)],
        ["session", "context", str(file), "--json"],
        ["session", "check", str(file)],
        ["--export", str(file), str(tmp_path / "out.md")],
        ["--export", str(file), str(tmp_path / "out.jsonl")],
        ["--export", str(file), str(tmp_path / "out.html")],
    ]
    for args in runs:
        result = _pitui(project, *args)
        assert result.returncode == 0, (args, result.stderr)
        for stream in (result.stdout, result.stderr):
            assert not any(c in stream for c in RAW), (args, stream)
    tree = _pitui(project, "session", "tree", str(file)).stdout
    assert "lbl" in tree and "end" in tree  # the label is shown, inert
    markdown = (tmp_path / "out.md").read_text()
    assert not any(c in markdown for c in RAW)
    jsonl = (tmp_path / "out.jsonl").read_text()
    assert not any(c in jsonl for c in RAW)
    labels = [json.loads(line) for line in jsonl.splitlines()]
    assert LABEL in [entry.get("label") for entry in labels]  # the data, escaped not lost
