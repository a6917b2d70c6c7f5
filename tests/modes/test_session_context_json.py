"""``pitui session context --json``'s writer: messages kept encoded are written as the
report's plain JSON would be, byte for byte, also where orjson refuses a message."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pitui.core.context_report import report_for_file
from pitui.core.session.table import JsonSlice
from pitui.modes.session_inspect import _json_pieces
from tests.core.session.helpers import ORACLE, assistant, entry

COMPACTED = ORACLE / "before-compaction.v3.jsonl"
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "t", "cwd": "/"}


@pytest.fixture(autouse=True)
def _fast_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")


def _written(data: dict[str, object]) -> bytes:
    out = io.BytesIO()
    for piece in _json_pieces(data):
        out.write(piece)
    return out.getvalue()


@pytest.mark.parametrize("name", ["before-compaction.v3.jsonl", "large-session.v3.jsonl"])
async def test_the_streamed_report_is_the_plain_reports_bytes(name: str) -> None:
    report = await report_for_file(ORACLE / name, keep_json=True)
    assert any(isinstance(k, JsonSlice) for k in report.message_json.values())
    assert _written(report.to_json(lazy_rows=True)) == _written(report.to_json())


async def test_a_message_orjson_refuses_is_written_with_the_others(tmp_path: Path) -> None:
    # An integer beyond 64 bits: its chunk goes to the next encoder, the messages kept
    # encoded beside it as the objects they encode.
    huge = 2**70
    lines = [
        HEADER,
        entry("a", None),
        entry("b", "a", message=assistant("fine")),
        entry("c", "b", message={**assistant("big"), "extra": huge}),
        entry("d", "c"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = await report_for_file(path, keep_json=True)
    kept = list(report.message_json.values())
    assert sum(isinstance(k, JsonSlice) for k in kept) == len(kept) - 1
    streamed = _written(report.to_json(lazy_rows=True))
    assert streamed == _written(report.to_json())
    assert json.loads(streamed)["agentMessages"][2]["extra"] == huge


def test_a_session_command_ends_its_process_without_freeing_what_it_built(
    tmp_path: Path,
) -> None:
    # ``pitui session context``: the report (and the file's table) stays until the
    # process ends, which is without the interpreter's teardown (no ~90 ms freeing a
    # 100k-entry file's objects); exit functions run, and all the output arrives.
    probe = (
        "import atexit, sys\n"
        "atexit.register(print, 'exit functions ran')\n"
        f"sys.argv = ['pitui', 'session', 'context', {str(COMPACTED)!r}, '--json']\n"
        "from pitui.cli import main\n"
        "main()\n"
        "print('not reached: the process ended inside main')\n"
    )
    env = {**os.environ, "PITUI_HOME": str(tmp_path), "PITUI_DEMO_PACE_MS": "0"}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    printed, _, rest = result.stdout.partition("\n")
    assert json.loads(printed)["agentMessages"]
    assert rest == "exit functions ran\n"


def test_the_printed_report_stays_with_its_table() -> None:
    import pitui.modes.session_inspect as inspect_module

    inspect_module._KEPT.clear()
    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
        assert inspect_module.cmd_context([str(COMPACTED)]) == 0
    (report,) = inspect_module._KEPT
    assert report.store is not None and report.store.entry_count() == report.entry_count
    inspect_module._KEPT.clear()


def test_the_report_s_loaded_messages_share_their_sets_of_set_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A 100k-entry file with few branches keeps ~25,000 messages (~100,000 models): their
    # own sets of set fields were ~75 MB of the command's 287 MB peak.
    import pitui.modes.session_inspect as inspect_module
    from pitui.ai import _base

    monkeypatch.setattr(_base, "_shared_fields", None)
    inspect_module._KEPT.clear()
    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
        assert inspect_module.cmd_context([str(COMPACTED), "--json"]) == 0
    (report,) = inspect_module._KEPT
    loaded = [m for m in report.transcript if id(m) in report.message_json]
    assert loaded and all(_base.shares_fields(m) for m in loaded)
    inspect_module._KEPT.clear()
