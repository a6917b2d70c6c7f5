"""``pitui session …`` with crash residue, directories, ids, and read-only sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.modes.session_cli import main
from tests.core.session.helpers import HEADER, assistant, entry, jsonl
from tests.modes.loopback import continued_session, run_pitui

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pi-oracle" / "before-compaction.v3.jsonl"
CALL = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def crashed_file(path: Path) -> Path:
    """A crash mid tool call, then mid append; pitui was started again and went on."""
    lines = jsonl([HEADER, entry("a1", None), entry("b2", "a1", message=assistant(content=[CALL]))])
    lines += b'{"type":"message","id":"c3","parentId":"b2","timestamp":"2026-01-01T00:0'
    lines += b"\n" + jsonl([entry("d4", "b2"), entry("e5", "d4", message=assistant("back"))])
    path.write_bytes(lines)
    return path


def test_check_tells_crash_residue_from_corruption(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = crashed_file(tmp_path / "s.jsonl")
    code, out, _ = _run(["check", str(path)], capsys)
    assert code == 0, out
    assert out.splitlines() == [
        f"{path}: warning: line 4: the torn start of an entry a crash cut off; skipped",
        f"{path}: warning: entry b2: tool call(s) unanswered before entry d4: t1",
        f"{path}: ok (4 entries, 2 warning(s) from a crash)",
    ]
    path.write_bytes(path.read_bytes() + b"this is garbage\n")
    code, out, _ = _run(["check", str(path)], capsys)
    assert code == 1
    assert f"{path}: line 7: not JSON" in out


def test_a_directory_is_not_a_session_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("check", "context", "tree"):
        code, _, err = _run([command, str(tmp_path)], capsys)
        assert code == 1
        assert f"{tmp_path} is a directory, not a session file" in err


def _two_sessions(root: Path) -> tuple[Path, Path]:
    first = root / "proj-a" / "2026-01-01T00-00-00-000Z_aaaa1111.jsonl"
    second = root / "proj-b" / "2026-01-02T00-00-00-000Z_aaaa2222.jsonl"
    for path, sid in (
        (first, "aaaa1111-0000-4000-8000-000000000001"),
        (second, "aaaa2222-0000-4000-8000-000000000002"),
    ):
        path.parent.mkdir(parents=True)
        path.write_bytes(jsonl([{**HEADER, "id": sid}, entry("a1", None, message=assistant())]))
    return first, second


def test_commands_accept_a_session_id_or_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _two_sessions(tmp_path)
    root = ["--session-dir", str(tmp_path)]
    code, out, _ = _run(["check", "aaaa2222", *root], capsys)
    assert code == 0 and out == f"{second}: ok (1 entries)\n"
    code, out, _ = _run(["tree", "AAAA1111-0000", *root], capsys)
    assert code == 0 and "assistant: ok" in out
    code, out, _ = _run(["context", "aaaa1", "--json", *root], capsys)
    assert code == 0 and json.loads(out)["leafId"] == "a1"
    code, _, err = _run(["check", "aaaa", *root], capsys)
    assert code == 1 and "aaaa matches 2 sessions" in err
    assert str(first) in err and str(second) in err
    code, _, err = _run(["check", "zzzz", *root], capsys)
    assert code == 1 and "zzzz: no such session file or session id" in err


def test_ls_prints_paths_on_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _two_sessions(tmp_path)
    code, out, _ = _run(["ls", "--all", "--paths", "--session-dir", str(tmp_path)], capsys)
    assert code == 0
    assert {line.split("  ")[-1] for line in out.splitlines()} == {str(second), str(first)}
    code, out, _ = _run(["ls", "--all", "--json", "--session-dir", str(tmp_path)], capsys)
    assert {row["path"] for row in json.loads(out)} == {str(second), str(first)}


# --------------------------------------------------------------------------- --read-only


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PITUI_DEMO_PACE_MS", "0")
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.mark.parametrize("how", ["--session", "-c"])
def test_read_only_never_writes_and_says_why_a_prompt_is_refused(
    how: str, project: Path, tmp_path: Path
) -> None:
    path, args = continued_session(how, project, tmp_path, FIXTURE)
    before = path.read_bytes()
    result = run_pitui(project, "-p", "--read-only", "--model", "demo/demo", *args, "hello")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{path} is open read-only" in result.stderr
    assert "nothing can be added to it" in result.stderr
    assert path.read_bytes() == before  # not even a model_change for the demo model
